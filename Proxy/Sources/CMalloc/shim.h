// glibc's allocator settings (mallopt), which Swift's Glibc module does not declare.
#include <malloc.h>
