import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Platform {
    /// Names the calling thread (its first 15 bytes: what Linux keeps, and shows in `top` and
    /// `perf`). Apple's platforms take `Thread.name`, which the caller sets as well.
    package static func nameCurrentThread(_ name: String) {
        #if os(Linux)
        // Foundation keeps `Thread.name` to itself on Linux, and `pthread_setname_np` is not
        // exported to Swift there: this file is what it writes.
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = Array(name.utf8.prefix(15)).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        #endif
    }

    /// Raises the calling thread's nice value `increment` above the process's main thread's, which
    /// an unprivileged process may always do (and never undo). On Linux a nice value is per thread;
    /// Apple's platforms take the caller's `Thread.qualityOfService` instead.
    package static func lowerCurrentThreadPriority(by increment: Int32) {
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        // Relative to the process's main thread (whose id is the process's), not to the thread
        // that started this one (a pool thread, whose nice value the runtime may have set).
        // -1 is a valid nice value: errno tells a failure apart. 0 names the calling thread.
        errno = 0
        let process = getpriority(which, id_t(getpid()))
        guard errno == 0 else { return }
        _ = setpriority(which, 0, min(19, process + increment))
        #endif
    }
}
