import Foundation

/// Starts the store's own threads (the writer, and the index helper and write-back beside it)
/// below the app's threads in the scheduler's eyes.
///
/// Their work (commits, persisting recorded reads, copying SQLite's log back, syncing) is
/// background work: a put's caller awaits its commit, but reads, which run on the app's threads,
/// never wait for these. On a machine with few cores they had competed as equals: on two cores,
/// while one task read 1,000,000 small entries, the writer persisting those reads took nearly a
/// core, the write-back almost half of one, and the reading task about half a core; reads came
/// out at 86,000–150,000 /s, against 163,000–198,000 with these threads lowered (three runs each,
/// interleaved). Lowered threads still get whatever CPU the app leaves idle, and about a tenth of
/// a core against each busy thread of the app: a queued put waits longer only while the app keeps
/// every core busy.
///
/// `qualityOfService` says so where Foundation maps it to the scheduler (Apple's platforms); on
/// Linux, where it does not, the thread raises its own nice value (per thread there), which an
/// unprivileged process may always do (and never undo).
enum BackgroundThread {
    /// How much the nice value of the store's threads exceeds the process's main thread's.
    static let niceIncrement: Int32 = 10

    /// Starts `body` on a new thread named `name` (at most 15 bytes: what Linux keeps, and shows
    /// in `top` and `perf`).
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            lowerCurrentThread()
            body()
        }
        thread.name = name
        thread.qualityOfService = .utility
        thread.start()
    }

    private static func nameCurrentThread(_ name: String) {
        #if os(Linux)
        // Foundation keeps `Thread.name` to itself on Linux, and `pthread_setname_np` is not
        // exported to Swift there: this file is what it writes.
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = Array(name.utf8.prefix(15)).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        #endif
    }

    private static func lowerCurrentThread() {
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        // Relative to the process's main thread (whose id is the process's), not to the thread
        // that opened the store (a pool thread, whose nice value the runtime may have set).
        // -1 is a valid nice value: errno tells a failure apart. 0 names the calling thread.
        errno = 0
        let process = getpriority(which, id_t(getpid()))
        guard errno == 0 else { return }
        _ = setpriority(which, 0, min(19, process + niceIncrement))
        #endif
    }
}
