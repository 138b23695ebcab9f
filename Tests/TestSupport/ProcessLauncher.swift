import Foundation

/// Starts child processes one at a time.
///
/// Foundation's `Process.run()` on Linux is not safe to call from several threads at once: two
/// suites starting children in parallel crashed the test process (SIGSEGV in a `memmove` inside
/// `Process.run`). Every test launches through here; the lock is held only while spawning.
public enum ProcessLauncher {
    private static let lock = NSLock()

    /// Runs `process.run()` under the launch lock.
    public static func launch(_ process: Process) throws {
        lock.lock()
        defer { lock.unlock() }
        try process.run()
    }
}
