import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// One store's flush marker used from several threads of one process: a commit from one thread
/// (a test's own transaction, say) beside the writer's periodic flush. `flock` does not keep them
/// apart (they share its descriptor); the marker must.
@Suite("Flush marker across threads")
struct FlushMarkerThreadsTests {
    @Test("commits and flushes from several threads at once never fail on the marker, and no commit runs beside a marking flush")
    func commitsBesideFlushes() throws {
        let folder = TemporaryDirectory("flush-threads")
        let marker = try FlushMarker(layout: StoreLayout(directory: folder.url), sharing: .owner)
        let failures = Locked<[String]>([])
        // Commits running now, and marking flushes that saw one running beside their locked sync.
        let committing = Locked(0)
        let overlaps = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<400 {
                do {
                    if (thread + round) % 2 == 0 {
                        try marker.commit {
                            committing.withLock { $0 += 1 }
                            usleep(20)
                            committing.withLock { $0 -= 1 }
                        }
                    } else {
                        var syncs = 0
                        try marker.flush {
                            syncs += 1
                            // The second sync is the one under the lock: no commit may be running.
                            if syncs == 2, committing.withLock({ $0 }) > 0 { overlaps.withLock { $0 += 1 } }
                        }
                    }
                } catch {
                    failures.withLock { $0.append("thread \(thread), round \(round): \(error)") }
                }
            }
        }
        let failed = failures.withLock { $0 }
        #expect(failed.isEmpty, "\(failed.count) failures, the first: \(failed.first ?? "")")
        #expect(overlaps.withLock { $0 } == 0, "a commit ran beside a marking flush")
        withExtendedLifetime(folder) {}
    }
}
