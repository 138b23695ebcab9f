import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A tmpfs of a few megabytes, for a cache that fills its disk; unmounted when released.
///
/// Mounting needs root (CI runs as root). Elsewhere the test is skipped with a notice, unless
/// `CACHE_TESTS_REQUIRE_MOUNTS=1` (CI) makes that a failure.
final class SmallDisk: Sendable {
    let url: URL
    private let holder: TemporaryFolder

    static var isAvailable: Bool {
        #if os(Linux)
        if geteuid() == 0 { return true }
        #endif
        let required = ProcessInfo.processInfo.environment["CACHE_TESTS_REQUIRE_MOUNTS"] == "1"
        if !required { print("notice: not root; skipping the proxy's full-disk test") }
        return required
    }

    init(bytes: Int) throws {
        holder = TemporaryFolder("small-disk")
        url = holder.url.appendingPathComponent("mnt", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        #if os(Linux)
        guard mount("tmpfs", url.path, "tmpfs", 0, "size=\(bytes),mode=0700") == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSLocalizedDescriptionKey: "mount a tmpfs: errno \(errno)"])
        }
        #endif
    }

    /// Fills what is left with one file, so the next write fails for lack of space.
    func fill() {
        let filler = url.appendingPathComponent("filler")
        guard let handle = fopen(filler.path, "w") else { return }
        let block = [UInt8](repeating: 0xAB, count: 64 * 1024)
        while fwrite(block, 1, block.count, handle) == block.count {}
        fclose(handle)
    }

    deinit {
        #if os(Linux)
        umount2(url.path, Int32(MNT_DETACH))
        #endif
    }
}
