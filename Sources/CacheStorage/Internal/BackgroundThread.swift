import Foundation

/// Starts the store's own threads (the writer, and the index helper and write-back beside it)
/// below the app's threads in the scheduler's eyes.
///
/// Their work (commits, persisting recorded reads, copying SQLite's log back, syncing) is
/// background work: a put's caller awaits its commit, but reads, which run on the app's threads,
/// never wait for these. On a machine with few cores, threads competing as equals let the writer
/// persisting a reader's recorded reads take the cores that reader needed (see
/// Benchmarks/RESULTS.md); lowered, they still get whatever CPU the app leaves idle and a small
/// share against each busy thread of the app, so a queued put waits longer only while the app
/// keeps every core busy.
///
/// `qualityOfService` says so where Foundation maps it to the scheduler (Apple's platforms); on
/// Linux, where it does not, ``Platform/lowerCurrentThreadPriority(by:)`` raises the thread's own
/// nice value.
enum BackgroundThread {
    /// How much the nice value of the store's threads exceeds the process's main thread's.
    static let niceIncrement: Int32 = 10

    /// Starts `body` on a new thread named `name` (at most 15 bytes: what Linux keeps, and shows
    /// in `top` and `perf`).
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            Platform.nameCurrentThread(name)
            Platform.lowerCurrentThreadPriority(by: niceIncrement)
            body()
        }
        thread.name = name
        thread.qualityOfService = .utility
        thread.start()
    }
}
