// write-recorder: an LD_PRELOAD interposer that records, in order, every change a process makes to
// the files under one folder, so a test can build the disk states a power loss could leave.
//
//   POWERLOSS_DIR=/abs/folder   files under it are recorded (absolute paths, as the store opens them)
//   POWERLOSS_LOG=/abs/log      where the records go (appended, binary, see below)
//   POWERLOSS_MARK_FD=1         writes to this descriptor are recorded as marks (a worker's acks)
//
// Each record: one type byte, then fields as little-endian integers and length-prefixed strings:
//   'C' path                 a file was created            'W' path offset length bytes   a write
//   'D' path offset length bytes   a write on an O_SYNC/O_DSYNC descriptor (durable when it returns)
//   'T' path size            ftruncate                     'S' path   fsync/fdatasync returned 0
//                                                          (of a file, or of a folder: its names)
//   'R' from to              rename                        'U' path   unlink
//   'E' path path            renameat2 RENAME_EXCHANGE     'K' path   a folder was created
//   'X' path                 a folder was removed          'L' from to   a hard link (linkat)
//   'M' length bytes         a mark
// fallocate and posix_fallocate are recorded as the truncation they amount to when they extend
// the file (the new bytes read as zeros), and not at all otherwise.
// One mutex covers each call and its record, so the log's order is the order the kernel saw; when
// several processes record into one log, an exclusive lock on the log covers them too.
// Built by the power-loss tests (Tests/TestSupport/PowerLoss) with the toolchain's clang.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char folder[PATH_MAX];
static char prefix[PATH_MAX];
static size_t prefix_length;
static int log_fd = -1;
static int mark_fd = -1;
static char *fd_paths[MAX_FDS];
static int fd_durable[MAX_FDS];
static int fd_folder[MAX_FDS];

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_unlink)(const char *);
static int (*real_unlinkat)(int, const char *, int);
static int (*real_renameat2)(int, const char *, int, const char *, unsigned int);
static int (*real_mkdirat)(int, const char *, mode_t);
static int (*real_fallocate)(int, int, off_t, off_t);
static int (*real_posix_fallocate)(int, off_t, off_t);
static int (*real_truncate)(const char *, off_t);
static int (*real_linkat)(int, const char *, int, const char *, int);
static ssize_t (*real_pwritev2)(int, const struct iovec *, int, off_t, int);

static void resolve(void) {
    real_open = dlsym(RTLD_NEXT, "open");
    real_open64 = dlsym(RTLD_NEXT, "open64");
    real_openat = dlsym(RTLD_NEXT, "openat");
    real_openat64 = dlsym(RTLD_NEXT, "openat64");
    real_close = dlsym(RTLD_NEXT, "close");
    real_write = dlsym(RTLD_NEXT, "write");
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_pwrite64 = dlsym(RTLD_NEXT, "pwrite64");
    real_writev = dlsym(RTLD_NEXT, "writev");
    real_pwritev = dlsym(RTLD_NEXT, "pwritev");
    real_ftruncate = dlsym(RTLD_NEXT, "ftruncate");
    real_ftruncate64 = dlsym(RTLD_NEXT, "ftruncate64");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_rename = dlsym(RTLD_NEXT, "rename");
    real_renameat = dlsym(RTLD_NEXT, "renameat");
    real_unlink = dlsym(RTLD_NEXT, "unlink");
    real_unlinkat = dlsym(RTLD_NEXT, "unlinkat");
    real_renameat2 = dlsym(RTLD_NEXT, "renameat2");
    real_mkdirat = dlsym(RTLD_NEXT, "mkdirat");
    real_fallocate = dlsym(RTLD_NEXT, "fallocate");
    real_posix_fallocate = dlsym(RTLD_NEXT, "posix_fallocate");
    real_truncate = dlsym(RTLD_NEXT, "truncate");
    real_linkat = dlsym(RTLD_NEXT, "linkat");
    real_pwritev2 = dlsym(RTLD_NEXT, "pwritev2");
    const char *dir = getenv("POWERLOSS_DIR");
    const char *log = getenv("POWERLOSS_LOG");
    const char *mark = getenv("POWERLOSS_MARK_FD");
    if (!dir || !log) return;
    snprintf(folder, sizeof folder, "%s", dir);
    snprintf(prefix, sizeof prefix, "%s/", dir);
    prefix_length = strlen(prefix);
    log_fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (mark) mark_fd = atoi(mark);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

// The recorder's critical section: this process's threads and every other recording process.
static void enter(void) {
    pthread_mutex_lock(&lock);
    if (log_fd >= 0) syscall(SYS_flock, log_fd, LOCK_EX);
}

static void leave(void) {
    if (log_fd >= 0) syscall(SYS_flock, log_fd, LOCK_UN);
    pthread_mutex_unlock(&lock);
}

// Another library's constructor may write before this one's runs: every wrapper resolves first.
static void ready(void) { pthread_once(&once, resolve); }

__attribute__((constructor)) static void start(void) { ready(); }

// Writes the whole buffer to the log with raw system calls (never through the wrappers below).
static void emit(const void *bytes, size_t length) {
    const char *cursor = bytes;
    while (length > 0) {
        ssize_t written = syscall(SYS_write, log_fd, cursor, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) abort();  // a log with a hole would build states that never existed
        cursor += written;
        length -= (size_t)written;
    }
}

static void emit_u64(uint64_t value) { emit(&value, sizeof value); }

static void emit_string(const char *text) {
    uint32_t length = (uint32_t)strlen(text);
    emit(&length, sizeof length);
    emit(text, length);
}

static int watched(const char *path) {
    return log_fd >= 0 && path && (strncmp(path, prefix, prefix_length) == 0 || strcmp(path, folder) == 0);
}

// The absolute path `path` names relative to `dirfd` (only as far as the recorder needs: no `..`).
static void absolute(int dirfd, const char *path, char *out) {
    if (path[0] == '/') {
        snprintf(out, PATH_MAX, "%s", path);
        return;
    }
    char base[PATH_MAX] = "";
    if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base)) base[0] = 0;
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t length = readlink(link, base, sizeof base - 1);
        base[length > 0 ? length : 0] = 0;
    }
    snprintf(out, PATH_MAX, "%s/%s", base, path);
}

static const char *tracked(int fd) { return fd >= 0 && fd < MAX_FDS ? fd_paths[fd] : NULL; }
// Descriptors of folders are tracked for their syncs only.
static const char *tracked_file(int fd) { return tracked(fd) && !fd_folder[fd] ? fd_paths[fd] : NULL; }

static void record_write(int fd, const void *bytes, size_t length, off_t offset) {
    if (fd == mark_fd && mark_fd >= 0 && log_fd >= 0) {
        emit("M", 1);
        emit_u64(length);
        emit(bytes, length);
        return;
    }
    const char *path = tracked_file(fd);
    if (!path) return;
    emit(fd_durable[fd] ? "D" : "W", 1);
    emit_string(path);
    emit_u64((uint64_t)offset);
    emit_u64(length);
    emit(bytes, length);
}

static void record_iov(int fd, const struct iovec *iov, int count, ssize_t done, off_t offset) {
    for (int index = 0; index < count && done > 0; index++) {
        size_t piece = iov[index].iov_len < (size_t)done ? iov[index].iov_len : (size_t)done;
        record_write(fd, iov[index].iov_base, piece, offset);
        offset += (off_t)piece;
        done -= (ssize_t)piece;
    }
}

static int opened(int dirfd, const char *path, int flags, mode_t mode, int (*call)(int, const char *, int, ...),
                  int (*plain)(const char *, int, ...)) {
    ready();
    enter();
    char full[PATH_MAX];
    absolute(dirfd, path, full);
    int watch = watched(full);
    struct stat before;
    int existed = watch && stat(full, &before) == 0;
    int fd = plain ? plain(path, flags, mode) : call(dirfd, path, flags, mode);
    int saved = errno;
    if (fd >= 0 && watch && fd < MAX_FDS) {
        struct stat after;
        if (fstat(fd, &after) == 0 && S_ISDIR(after.st_mode)) {
            free(fd_paths[fd]);
            fd_paths[fd] = strdup(full);
            fd_folder[fd] = 1;
        } else if (fstat(fd, &after) == 0 && S_ISREG(after.st_mode)) {
            free(fd_paths[fd]);
            fd_paths[fd] = strdup(full);
            fd_folder[fd] = 0;
            fd_durable[fd] = (flags & (O_DSYNC | O_SYNC)) != 0;
            if (!existed) {
                emit("C", 1);
                emit_string(full);
            } else if (flags & O_TRUNC) {
                emit("T", 1);
                emit_string(full);
                emit_u64(0);
            }
        }
    }
    leave();
    errno = saved;
    return fd;
}

#define MODE_ARGUMENT(flags)                                                      \
    mode_t mode = 0;                                                              \
    if ((flags) & (O_CREAT | O_TMPFILE)) {                                        \
        va_list arguments;                                                        \
        va_start(arguments, flags);                                               \
        mode = (mode_t)va_arg(arguments, int);                                    \
        va_end(arguments);                                                        \
    }

int open(const char *path, int flags, ...) {
    MODE_ARGUMENT(flags)
    return opened(AT_FDCWD, path, flags, mode, NULL, real_open);
}
int open64(const char *path, int flags, ...) {
    MODE_ARGUMENT(flags)
    return opened(AT_FDCWD, path, flags, mode, NULL, real_open64);
}
int openat(int dirfd, const char *path, int flags, ...) {
    MODE_ARGUMENT(flags)
    return opened(dirfd, path, flags, mode, real_openat, NULL);
}
int openat64(int dirfd, const char *path, int flags, ...) {
    MODE_ARGUMENT(flags)
    return opened(dirfd, path, flags, mode, real_openat64, NULL);
}

int close(int fd) {
    ready();
    enter();
    if (fd >= 0 && fd < MAX_FDS && fd_paths[fd]) {
        free(fd_paths[fd]);
        fd_paths[fd] = NULL;
    }
    int result = real_close(fd);
    int saved = errno;
    leave();
    errno = saved;
    return result;
}

ssize_t write(int fd, const void *bytes, size_t length) {
    ready();
    enter();
    ssize_t written = real_write(fd, bytes, length);
    int saved = errno;
    if (written > 0 && (tracked_file(fd) || fd == mark_fd)) {
        off_t end = tracked_file(fd) ? lseek(fd, 0, SEEK_CUR) : 0;
        record_write(fd, bytes, (size_t)written, end - written);
    }
    leave();
    errno = saved;
    return written;
}

static ssize_t positioned(ssize_t (*call)(int, const void *, size_t, off_t), int fd, const void *bytes, size_t length,
                          off_t offset) {
    ready();
    enter();
    ssize_t written = call(fd, bytes, length, offset);
    int saved = errno;
    if (written > 0) record_write(fd, bytes, (size_t)written, offset);
    leave();
    errno = saved;
    return written;
}

ssize_t pwrite(int fd, const void *bytes, size_t length, off_t offset) {
    return positioned(real_pwrite, fd, bytes, length, offset);
}
ssize_t pwrite64(int fd, const void *bytes, size_t length, off_t offset) {
    return positioned(real_pwrite64, fd, bytes, length, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    ready();
    enter();
    ssize_t written = real_writev(fd, iov, count);
    int saved = errno;
    if (written > 0 && tracked_file(fd)) record_iov(fd, iov, count, written, lseek(fd, 0, SEEK_CUR) - written);
    leave();
    errno = saved;
    return written;
}

ssize_t pwritev(int fd, const struct iovec *iov, int count, off_t offset) {
    ready();
    enter();
    ssize_t written = real_pwritev(fd, iov, count, offset);
    int saved = errno;
    if (written > 0 && tracked_file(fd)) record_iov(fd, iov, count, written, offset);
    leave();
    errno = saved;
    return written;
}

static int truncated(int (*call)(int, off_t), int fd, off_t size) {
    ready();
    enter();
    int result = call(fd, size);
    int saved = errno;
    if (result == 0 && tracked_file(fd)) {
        emit("T", 1);
        emit_string(tracked_file(fd));
        emit_u64((uint64_t)size);
    }
    leave();
    errno = saved;
    return result;
}

int ftruncate(int fd, off_t size) { return truncated(real_ftruncate, fd, size); }
int ftruncate64(int fd, off_t size) { return truncated(real_ftruncate64, fd, size); }

static int synced(int (*call)(int), int fd) {
    ready();
    enter();
    int result = call(fd);
    int saved = errno;
    if (result == 0 && tracked(fd)) {
        emit("S", 1);
        emit_string(tracked(fd));
    }
    leave();
    errno = saved;
    return result;
}

int fsync(int fd) { return synced(real_fsync, fd); }
int fdatasync(int fd) { return synced(real_fdatasync, fd); }

static int renamed(int from_dir, const char *from, int to_dir, const char *to) {
    ready();
    enter();
    char full_from[PATH_MAX], full_to[PATH_MAX];
    absolute(from_dir, from, full_from);
    absolute(to_dir, to, full_to);
    int result = real_renameat(from_dir, from, to_dir, to);
    int saved = errno;
    if (result == 0 && (watched(full_from) || watched(full_to))) {
        emit("R", 1);
        emit_string(full_from);
        emit_string(full_to);
    }
    leave();
    errno = saved;
    return result;
}

int rename(const char *from, const char *to) { return renamed(AT_FDCWD, from, AT_FDCWD, to); }
int renameat(int from_dir, const char *from, int to_dir, const char *to) {
    return renamed(from_dir, from, to_dir, to);
}

static int unlinked(int dirfd, const char *path, int flags) {
    ready();
    enter();
    char full[PATH_MAX];
    absolute(dirfd, path, full);
    int result = real_unlinkat(dirfd, path, flags);
    int saved = errno;
    if (result == 0 && watched(full)) {
        emit((flags & AT_REMOVEDIR) ? "X" : "U", 1);
        emit_string(full);
    }
    leave();
    errno = saved;
    return result;
}

int unlink(const char *path) { return unlinked(AT_FDCWD, path, 0); }
int unlinkat(int dirfd, const char *path, int flags) { return unlinked(dirfd, path, flags); }
int rmdir(const char *path) { return unlinked(AT_FDCWD, path, AT_REMOVEDIR); }

int renameat2(int from_dir, const char *from, int to_dir, const char *to, unsigned int flags) {
    ready();
    enter();
    char full_from[PATH_MAX], full_to[PATH_MAX];
    absolute(from_dir, from, full_from);
    absolute(to_dir, to, full_to);
    int result = real_renameat2(from_dir, from, to_dir, to, flags);
    int saved = errno;
    if (result == 0 && (watched(full_from) || watched(full_to))) {
        emit((flags & RENAME_EXCHANGE) ? "E" : "R", 1);
        emit_string(full_from);
        emit_string(full_to);
    }
    leave();
    errno = saved;
    return result;
}

int mkdirat(int dirfd, const char *path, mode_t mode) {
    ready();
    enter();
    char full[PATH_MAX];
    absolute(dirfd, path, full);
    int result = real_mkdirat(dirfd, path, mode);
    int saved = errno;
    if (result == 0 && watched(full)) {
        emit("K", 1);
        emit_string(full);
    }
    leave();
    errno = saved;
    return result;
}

int mkdir(const char *path, mode_t mode) { return mkdirat(AT_FDCWD, path, mode); }

// An allocation that extends the file is recorded as the truncation to its new size.
static void record_extension(int fd, off_t before) {
    struct stat after;
    const char *path = tracked_file(fd);
    if (path && fstat(fd, &after) == 0 && after.st_size > before) {
        emit("T", 1);
        emit_string(path);
        emit_u64((uint64_t)after.st_size);
    }
}

static off_t size_of(int fd) {
    struct stat before;
    return fstat(fd, &before) == 0 ? before.st_size : 0;
}

int fallocate(int fd, int mode, off_t offset, off_t length) {
    ready();
    enter();
    off_t before = size_of(fd);
    int result = real_fallocate(fd, mode, offset, length);
    int saved = errno;
    if (result == 0) record_extension(fd, before);
    leave();
    errno = saved;
    return result;
}

int fallocate64(int fd, int mode, off_t offset, off_t length) { return fallocate(fd, mode, offset, length); }

int posix_fallocate(int fd, off_t offset, off_t length) {
    ready();
    enter();
    off_t before = size_of(fd);
    int result = real_posix_fallocate(fd, offset, length);
    if (result == 0) record_extension(fd, before);
    leave();
    return result;
}

int posix_fallocate64(int fd, off_t offset, off_t length) { return posix_fallocate(fd, offset, length); }

int truncate(const char *path, off_t size) {
    ready();
    enter();
    char full[PATH_MAX];
    absolute(AT_FDCWD, path, full);
    int result = real_truncate(path, size);
    int saved = errno;
    if (result == 0 && watched(full)) {
        emit("T", 1);
        emit_string(full);
        emit_u64((uint64_t)size);
    }
    leave();
    errno = saved;
    return result;
}

int truncate64(const char *path, off_t size) { return truncate(path, size); }

int linkat(int from_dir, const char *from, int to_dir, const char *to, int flags) {
    ready();
    enter();
    char full_from[PATH_MAX], full_to[PATH_MAX];
    absolute(from_dir, from, full_from);
    absolute(to_dir, to, full_to);
    // An O_TMPFILE descriptor linked in by /proc/self/fd/N: its contents were recorded under that name.
    if (strncmp(from, "/proc/self/fd/", 14) == 0) {
        int fd = atoi(from + 14);
        if (tracked(fd)) snprintf(full_from, sizeof full_from, "%s", tracked(fd));
    }
    int result = real_linkat(from_dir, from, to_dir, to, flags);
    int saved = errno;
    if (result == 0 && watched(full_to)) {
        emit("L", 1);
        emit_string(full_from);
        emit_string(full_to);
    }
    leave();
    errno = saved;
    return result;
}

int link(const char *from, const char *to) { return linkat(AT_FDCWD, from, AT_FDCWD, to, 0); }

ssize_t pwritev2(int fd, const struct iovec *iov, int count, off_t offset, int flags) {
    ready();
    enter();
    off_t start = offset == -1 ? lseek(fd, 0, SEEK_CUR) : offset;
    ssize_t written = real_pwritev2(fd, iov, count, offset, flags);
    int saved = errno;
    if (written > 0 && tracked_file(fd)) record_iov(fd, iov, count, written, start);
    leave();
    errno = saved;
    return written;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int count, off_t offset) { return pwritev(fd, iov, count, offset); }

int creat(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) { return open64(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
