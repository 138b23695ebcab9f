#if canImport(CMalloc)
import CMalloc
import Dispatch
import ServiceLifecycle

/// Gives the allocator's free pages back to the system once a second, until graceful shutdown.
///
/// Small buffers (a thumbnail's bytes, headers, paths) come and go with every request, and the
/// memory tier lets old ones go as new ones arrive: the freed chunks are scattered through the
/// heaps, which return only their top to the system, so the process's resident size drifts above
/// what it holds. `malloc_trim` releases every free page wherever it lies. It runs on a queue of
/// its own, never on an event loop: it holds each heap's lock while it walks it.
struct HeapTrimmer: Service {
    /// How often the heaps are trimmed.
    static let interval = DispatchTimeInterval.seconds(1)

    func run() async throws {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "imagecache-proxy.heap-trimmer", qos: .utility))
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        timer.setEventHandler { _ = malloc_trim(0) }
        timer.resume()
        defer { timer.cancel() }
        try? await gracefulShutdown()
    }
}
#endif
