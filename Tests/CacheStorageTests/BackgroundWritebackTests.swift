import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CacheStorage

/// The index's write-ahead log is checkpointed on a thread beside the writer
/// (``BackgroundWriteback``), so it must still be checkpointed while the writer is never idle.
@Suite("Work beside the writer")
struct BackgroundWritebackTests {
    /// Puts batch `batch`: 100 entries under 200-byte keys, whose index rows take several
    /// megabytes of log a thousand.
    static func putBatch(_ batch: Int, prefix: String, into store: PersistentStore) async throws {
        try await store.put((0..<100).map { number in
            let key = TestPayload.key(prefix: "\(prefix)\(batch)", number: number, length: 200)
            return NewEntry(key: key, data: TestPayload.bytes(for: key)!)
        })
    }

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
            try await Self.putBatch(batch, prefix: "busy", into: store)
            largestLog = max(largestLog, log.fileSize ?? 0)
        }
        let grown = index.fileSize ?? 0
        // About 4 MiB of log between two checkpoints: asking once per commit past the threshold
        // (the log's file is reused, never shrunk) ran one for nearly every one of the 200 puts.
        // A loaded machine needs more (a passive checkpoint that cannot finish beside the writer
        // leaves the log past the threshold), up to half the commits in slow full runs. Three in
        // four commits still tells the two apart.
        let checkpoints = store.core.index.log.checkpointsBesideWriter.load(ordering: .relaxed)
        #expect(checkpoints >= 1 && checkpoints <= 150, "\(checkpoints) checkpoints for 200 commits")
        #expect(grown > startBytes + (1 << 20), "the index file did not grow (\(startBytes) → \(grown) bytes): nothing was checkpointed")
        #expect(largestLog < 64 << 20, "the log reached \(largestLog) bytes")
        #expect(try store.statistics().entries == 20_000)
        store.close()
        #expect(try await PersistentStore(directory: folder.url).verify().isClean)
    }

    @Test("past its bound the index's log starts over while the writer stays busy, and its file is cut back")
    func logStartsOverPastItsBound() async throws {
        let folder = TemporaryDirectory()
        var configuration = StoreConfiguration()
        let bound = 1 << 20
        configuration.indexLogBoundBytes = bound
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        let log = folder.url.appendingPathComponent("index.sqlite-wal")
        var sizes: [Int] = []
        // The same 20,000 entries as above, whose log grows to tens of megabytes without the bound.
        // Four batches in flight, so the writer always has the next one queued: a writer that
        // waits for each caller idles between batches (long enough, on a busy machine, for the
        // checkpoints beside it to copy everything, and SQLite then starts the log over by itself).
        try await withThrowingTaskGroup(of: Int.self) { group in
            for batch in 0..<200 {
                if batch >= 4 { sizes.append(try await group.next() ?? 0) }
                group.addTask {
                    try await Self.putBatch(batch, prefix: "bound", into: store)
                    return log.fileSize ?? 0
                }
            }
            for try await size in group { sizes.append(size) }
        }
        let index = store.core.index
        let restarts = index.log.restarts.load(ordering: .relaxed)
        // The log stays within a few bounds whatever the machine does. Alone, the writer is busy
        // and the log passes the bound within a few dozen batches, so the writer must restart it;
        // in a whole suite on two cores the puts come slowly enough that the checkpoints beside
        // the writer copy everything between batches and SQLite starts the log over by itself
        // before it passes twice the bound, where the writer would no longer wait. Either is
        // fine; a log past twice the bound that the writer never restarted is not.
        let largest = sizes.max() ?? 0
        #expect(largest <= 8 * bound, "the log reached \(largest) bytes against a bound of \(bound)")
        #expect(
            restarts >= 1 || largest <= 2 * bound,
            "the log reached \(largest) bytes and the writer never restarted it; log \(index.log.framesInLog.load(ordering: .relaxed) * index.pageBytes) bytes, uncopied \(index.uncheckpointedLogBytes), next try after \(index.log.restartNotBefore.load(ordering: .relaxed)), space tight \(store.core.space.isTight)")
        #expect(sizes.suffix(50).contains { $0 <= bound }, "the log's file was never cut back: \(sizes.suffix(50))")
        #expect(try store.statistics().entries == 20_000)
        store.close()
        #expect(try await PersistentStore(directory: folder.url).verify().isClean)
    }

    @Test("a reader that stays in the log stops the restarts without stopping the writer, and they resume once it leaves")
    func readerInTheLog() async throws {
        let folder = TemporaryDirectory()
        var configuration = StoreConfiguration()
        configuration.indexLogBoundBytes = 1 << 20
        let store = try PersistentStore(directory: folder.url, configuration: configuration)
        let index = store.core.index
        func putBatches(_ range: Range<Int>) async throws {
            for batch in range { try await Self.putBatch(batch, prefix: "reader", into: store) }
        }
        try await putBatches(0..<10)
        // A read transaction held open on the index's query connection, on a thread of its own.
        let release = Mutex(false)
        let inside = Mutex(false)
        let reader = Thread {
            try? index.query { connection in
                _ = try connection.scalar("SELECT count(*) FROM entries")
                inside.withLock { $0 = true }
                while !release.withLock({ $0 }) { usleep(10_000) }
            }
        }
        reader.start()
        while !inside.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        let restartsBefore = index.log.restarts.load(ordering: .relaxed)
        try await putBatches(10..<110)
        #expect(index.log.restarts.load(ordering: .relaxed) == restartsBefore, "the log started over under a reader")
        #expect(index.log.restartNotBefore.load(ordering: .relaxed) > 0, "no restart was tried and given up")
        release.withLock { $0 = true }
        // The next attempt comes after its pause: the writer goes on putting until then (a bound
        // on a hang of a minute and a half, not a timing).
        var batch = 110
        while index.log.restarts.load(ordering: .relaxed) == restartsBefore, batch < 110 + 3_000 {
            try await putBatches(batch..<(batch + 10))
            batch += 10
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(index.log.restarts.load(ordering: .relaxed) > restartsBefore, "the restarts did not resume after the reader left")
        #expect(try store.statistics().entries == batch * 100)
        store.close()
    }
}
