import Foundation
import TestSupport
import Testing

/// The child-process wrapper the crash, durability and full-disk suites wait on.
@Suite("Worker processes")
struct WorkerProcessTests {
    /// A waiting task can run again only after its deadline has passed: a test run can keep every
    /// one of Swift's cooperative threads busy, and hold every test for many seconds at its start.
    /// A line printed in time must still count then; before, the wait gave up without looking,
    /// and three suites failed on "worker did not start".
    @Test("a line printed before the wait's deadline counts even when the wait looks only after it")
    func lineCountsAfterDeadline() async throws {
        let worker = try await WorkerProcess(
            executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo ready; exec sleep 60"], environment: [:])
        #expect(await worker.waitForLine("ready", timeout: .seconds(30)))
        // The deadline has passed before the first look, as for a task that waited for a thread.
        #expect(await worker.waitForLine("ready", timeout: .zero))
        #expect(!(await worker.waitForLine("never printed", timeout: .zero)))
        await worker.kill()
        #expect(!worker.isRunning)
    }
}
