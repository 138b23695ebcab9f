import CacheStorage
import Logging

/// Counts the disk tier's failures and logs each cause once: a full disk during a feed of 400
/// images is one warning, not 400.
final class StorageFailureLog: Sendable {
    private struct State {
        var counts = StorageFailureCounts()
        var logged: Set<String> = []
    }

    private let state = Mutex(State())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    var counts: StorageFailureCounts { state.withLock { $0.counts } }

    /// Counts `error`, met while trying to `operation` a cached response, and logs its cause the first time.
    func record(_ error: any Error, operation: String) {
        let kind: String
        let storage = error as? StorageError
        switch storage {
        case .diskFull?, .quotaExceeded?: kind = "disk full"
        case .readOnly?, .permissionDenied?: kind = "read-only"
        case .keyTooLong?, .entryTooLarge?: kind = "refused"
        default: kind = "other"
        }
        let first = state.withLock { state in
            switch kind {
            case "disk full": state.counts.diskFull += 1
            case "read-only": state.counts.readOnly += 1
            case "refused": state.counts.refused += 1
            default: state.counts.other += 1
            }
            return state.logged.insert(kind).inserted
        }
        if first {
            logger.warning(
                "Could not \(operation) a cached response; loads go on without it (logged once per cause)",
                metadata: ["cause": "\(kind)", "error": "\(error)"])
        }
    }

    /// Counts a write dropped because the writes waiting for the disk were at `limits`, and logs
    /// the cause the first time.
    func recordQueueFull(_ operation: String, limits: WriteBehindLimits) {
        let first = state.withLock { state in
            state.counts.queueFull += 1
            return state.logged.insert("queue full").inserted
        }
        if first {
            logger.warning(
                "Could not \(operation) a cached response: the writes waiting for the disk are at their limits; loads go on without it (logged once per cause). Raise HTTPCache.Configuration.writeBehind if the disk is only briefly slow.",
                metadata: [
                    "cause": "queue full", "maxPendingWrites": "\(limits.maxPendingWrites)",
                    "maxPendingBytes": "\(limits.maxPendingBytes)",
                ])
        }
    }
}
