import Foundation

/// Starts child processes one at a time, and only while this process has few files open.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3.1) lists `/proc/self/fd` and copies each
/// entry's whole 256-byte name field (swift-corelibs-foundation PR #5472): once more than about
/// 1,300 descriptors are open, the listing fills glibc's 32 KB directory buffer and the copy of
/// its last entry can run past the buffer into an unmapped page, which crashed the test process
/// (SIGSEGV in a `memmove` inside `Process.run`). The suites running in parallel can hold more
/// than that at once (each open store and each loopback connection is a few descriptors), so a
/// launch waits, up to a minute, until the count is below a safe bound. Spawning is serialised
/// too (two suites spawning at once was the first suspect, and costs nothing to rule out).
public enum ProcessLauncher {
    private static let lock = NSLock()
    /// Well below the ~1,350 entries (24 bytes each) that fill 32 KB.
    private static let safeDescriptorCount = 900

    /// Runs `process.run()` once few enough descriptors are open (waiting without blocking a
    /// thread, so that the tests holding them can finish), under the launch lock.
    ///
    /// `prepare` runs just before the spawn, after any wait: for arguments that measure time up to
    /// the moment the child starts (a wait here once came between measuring and starting).
    public static func launch(_ process: Process, prepare: (Process) -> Void = { _ in }) async throws {
        try await waitUntilSafe()
        try spawn(process, prepare: prepare)
    }

    /// Waits (up to a minute) until few enough descriptors are open.
    private static func waitUntilSafe() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while openDescriptorCount() > safeDescriptorCount, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private static func spawn(_ process: Process, prepare: (Process) -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        prepare(process)
        try process.run()
    }

    /// Descriptors open in this process (0 where `/proc` is missing, where the bug does not apply).
    static func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}
