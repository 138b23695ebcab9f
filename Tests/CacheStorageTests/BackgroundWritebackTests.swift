import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CacheStorage

/// The index's write-ahead log is checkpointed on a thread beside the writer
/// (``BackgroundWriteback``), so it must still be checkpointed while the writer is never idle.
@Suite("Work beside the writer")
struct BackgroundWritebackTests {
    @Test("the index's log is checkpointed while puts keep the writer busy, and stays bounded")
    func checkpointsBesideBusyWriter() async throws {
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url)
        let index = folder.url.appendingPathComponent("index.sqlite")
        let log = folder.url.appendingPathComponent("index.sqlite-wal")
        let startBytes = index.fileSize ?? 0
        var largestLog = 0
        // 20,000 small entries, back to back: the writer never waits the second an idle pass
        // (which checkpoints on the writer) needs, and the log takes several megabytes a thousand.
        for batch in 0..<200 {
            try await store.put((0..<100).map { number in
                let key = TestPayload.key(prefix: "busy\(batch)", number: number, length: 200)
                return NewEntry(key: key, data: TestPayload.bytes(for: key)!)
            })
            largestLog = max(largestLog, log.fileSize ?? 0)
        }
        let grown = index.fileSize ?? 0
        // About 4 MiB of log between two checkpoints: asking once per commit past the threshold
        // (the log's file is reused, never shrunk) ran one for nearly every one of the 200 puts.
        // A loaded machine needs more (a passive checkpoint that cannot finish beside the writer
        // leaves the log past the threshold), up to half the commits in slow full runs. Three in
        // four commits still tells the two apart.
        let checkpoints = store.core.index.checkpointsBesideWriter.load(ordering: .relaxed)
        #expect(checkpoints >= 1 && checkpoints <= 150, "\(checkpoints) checkpoints for 200 commits")
        #expect(grown > startBytes + (1 << 20), "the index file did not grow (\(startBytes) → \(grown) bytes): nothing was checkpointed")
        #expect(largestLog < 64 << 20, "the log reached \(largestLog) bytes")
        #expect(try store.statistics().entries == 20_000)
        store.close()
        #expect(try await PersistentStore(directory: folder.url).verify().isClean)
    }
}
