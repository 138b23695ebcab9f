import Foundation

/// Identical loads in flight, by key: the second caller waits on the first caller's load.
final class InFlightLoads: Sendable {
    /// What makes two requests identical: same cache key, policy, headers and network access.
    struct Key: Hashable, Sendable {
        let cacheKey: String
        let policy: CachePolicy
        let headers: HeaderFields
        let networkAccess: ImageRequest.NetworkAccess
        /// Loads of the same bytes processed differently are different loads (each joins the
        /// one load of the bytes, then decodes once).
        let processing: ImageProcessing?
        let processedFormat: EncodedFormat?
    }

    private let loads = Mutex<[Key: SharedLoad]>([:])

    /// Joins the load for `key`, starting it with `operation` when none is in flight.
    func run(
        _ key: Key, priority: TaskPriority, progress: SharedLoad.ProgressHandler?,
        operation: @escaping @Sendable (SharedLoad) async throws -> ImageResponse
    ) async throws -> ImageResponse {
        let (shared, isNew) = loads.withLock { loads -> (SharedLoad, Bool) in
            if let existing = loads[key] { return (existing, false) }
            let created = SharedLoad()
            loads[key] = created
            return (created, true)
        }
        if isNew {
            // Started on this thread, up to its first wait (the request sent): a task started the
            // usual way first waits for a pool thread to be woken, a visible part of a fast fetch.
            shared.start(
                Task.immediate(priority: priority) {
                    let result = await Result(catching: { try await operation(shared) })
                    // Leave the registry before answering, so a caller arriving now starts afresh
                    // (and finds the result in the caches).
                    self.loads.withLock { loads in
                        if loads[key] === shared { loads[key] = nil }
                    }
                    shared.finish(result)
                })
        }
        return try await shared.wait(progress: progress)
    }

    /// Loads in flight now.
    var count: Int { loads.withLock { $0.count } }

    /// Callers waiting on loads in flight now.
    var waiters: Int { loads.withLock { Array($0.values) }.reduce(0) { $0 + $1.waiterCount } }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
