#if canImport(CMalloc)
import CMalloc
#endif
import Dispatch
import ServiceLifecycle

/// Keeps the process's heap near what it holds: the allocator is set up before the server starts,
/// and its free pages are given back to the system once a second, until graceful shutdown.
///
/// A thumbnail's pixels and a source's bytes are large buffers that live for one request: mapped
/// on their own, their memory goes back to the system when they are freed, instead of staying in
/// the heap of whichever thread freed them, so the process's size follows what it holds (the
/// memory tier's limit) rather than its busiest moment. Small buffers (a thumbnail's bytes,
/// headers, paths) come and go with every request too, and the memory tier lets old ones go as new
/// ones arrive: the freed chunks are scattered through the heaps, which return only their top to
/// the system. `malloc_trim` releases every free page wherever it lies. It runs on a queue of its
/// own, never on an event loop: it holds each heap's lock while it walks it.
struct ProcessHeap: Service {
    /// How often the heaps are trimmed.
    static let interval = DispatchTimeInterval.seconds(1)

    /// Sets the allocator up; called once, before any other thread starts.
    static func configure() {
        #if canImport(CMalloc)
        mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        mallopt(M_ARENA_MAX, 2)
        #endif
    }

    func run() async throws {
        #if canImport(CMalloc)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "imagecache-proxy.heap-trimmer", qos: .utility))
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        timer.setEventHandler { _ = malloc_trim(0) }
        timer.resume()
        defer { timer.cancel() }
        #endif
        try? await gracefulShutdown()
    }
}
