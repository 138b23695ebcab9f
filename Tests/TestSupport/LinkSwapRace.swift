import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A neighbour racing an opener that sets modes: a thread puts a regular file of this user at
/// `name` (with `contents`, at `fileMode`, a mode the opener wants to change), then a symbolic link
/// to `victim` in its place, over and over, while `attempt` runs again and again. An opener that
/// checks a file and then changes its mode by name sooner or later changes the victim's instead.
public enum LinkSwapRace {
    /// Runs `attempt` up to `attempts` times, or until `victim`'s mode is no longer what it was,
    /// with the swapping thread beside it; returns how many ran and the victim's mode after. Blocks:
    /// run it off Swift's cooperative pool (``OffPoolRun``).
    public static func run(
        name: String, staged: String, victim: String, fileMode: mode_t, contents: [UInt8] = [], attempts: Int,
        _ attempt: () -> Void
    ) -> (attempts: Int, victimMode: mode_t?) {
        let original = mode(victim)
        let stop = Atomic<Bool>(false)
        let swapperDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !stop.load(ordering: .relaxed) {
                let file = open(staged, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, fileMode)
                if file >= 0 {
                    _ = contents.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
                    fchmod(file, fileMode)
                    close(file)
                    rename(staged, name)
                }
                unlink(staged)
                if symlink(victim, staged) == 0 { rename(staged, name) }
            }
            swapperDone.signal()
        }
        var done = 0
        while done < attempts && mode(victim) == original {
            attempt()
            done += 1
        }
        stop.store(true, ordering: .relaxed)
        swapperDone.wait()
        return (done, mode(victim))
    }

    /// The permission bits of `path` itself (not of what a link there names).
    public static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }
}
