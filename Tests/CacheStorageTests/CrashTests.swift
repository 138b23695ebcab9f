import Foundation
import TestSupport
import Testing

import CacheStorage

/// Real processes killed with SIGKILL at random moments while writing.
@Suite("Crash safety", .serialized)
struct CrashTests {
    /// Every entry a reopened store shows must hold exactly its payload, and the two stores agree.
    static func checkInvariants(_ folder: URL, cycle: Int) async throws {
        let store = try PersistentStore(directory: folder)
        defer { store.close() }
        for metadata in try store.entries() {
            let hit = try #require(try store.get(metadata.key), "cycle \(cycle): listed entry \(metadata.key) unreadable")
            #expect(hit.data == TestPayload.bytes(for: metadata.key), "cycle \(cycle): wrong bytes for \(metadata.key)")
        }
        let report = try await store.verify()
        #expect(report.isClean, "cycle \(cycle): \(report.problems)")
    }

    @Test("a writer killed at random moments never leaves a wrong or half-written entry (60 kills)")
    func killedWriter() async throws {
        let folder = TemporaryDirectory("crash")
        var random = SystemRandomNumberGenerator()
        var entriesSeen = 0
        for cycle in 0..<60 {
            let worker = try await WorkerProcess(role: "writer", directory: folder.url, seconds: 0, seed: UInt64(cycle))
            // Every sixth kill lands during start-up or recovery, before the store reports ready.
            if cycle % 6 != 5 { #expect(worker.waitUntilReady(), "cycle \(cycle): worker did not start") }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...60, using: &random)))
            worker.kill()
            try await Self.checkInvariants(folder.url, cycle: cycle)
            if cycle % 10 == 9 {
                let store = try PersistentStore(directory: folder.url)
                entriesSeen = max(entriesSeen, try store.statistics().entries)
                store.close()
            }
        }
        #expect(entriesSeen > 0, "the writer never committed anything: the test proved nothing")
    }
}

/// Writer, reader and evictor processes on one directory at once.
@Suite("Many processes", .serialized)
struct MultiProcessTests {
    @Test("two writers, a reader and an evictor for 6 s: no errors, invariants hold")
    func concurrentProcesses() async throws {
        let folder = TemporaryDirectory("multi")
        let roles = ["writer", "writer", "reader", "evictor"]
        var workers: [WorkerProcess] = []
        for (index, role) in roles.enumerated() {
            workers.append(try await WorkerProcess(role: role, directory: folder.url, seconds: 6, seed: UInt64(index + 1)))
        }
        for (role, worker) in zip(roles, workers) {
            let result = worker.finish()
            #expect(result.status == 0, "\(role) failed: \(result.output) \(result.errors)")
            #expect(result.output.contains("\(role) ok="), "\(role) printed no summary")
            #expect(!result.output.contains(" ok=0 "), "\(role) did no work")
        }
        try await CrashTests.checkInvariants(folder.url, cycle: 0)
    }
}
