// glibc's posix_spawn extension that closes every descriptor from a number up, in the child,
// before it runs the new program (glibc 2.34 and later). Declared only under _GNU_SOURCE, which
// Swift's Glibc module is not built with; declared here as glibc's header has it.
#include <spawn.h>

extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
