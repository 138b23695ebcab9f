import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real, small file system mounted for one test: a tmpfs of a given size (for disk-full tests)
/// or a read-only bind mount of a folder (for read-only tests). Unmounted when released.
///
/// Mounting needs root with the right to mount (`CAP_SYS_ADMIN`), as CI runs. Elsewhere (not root,
/// or root in a container that may not mount) the tests that need it are skipped with a notice;
/// CI sets `CACHE_TESTS_REQUIRE_MOUNTS=1`, which turns that skip into a failure.
public final class MountedFileSystem: Sendable {
    /// The mount point.
    public let url: URL
    private let holder: TemporaryDirectory

    private init(holder: TemporaryDirectory, url: URL) {
        self.holder = holder
        self.url = url
    }

    deinit {
        #if os(Linux)
        umount2(url.path, Int32(MNT_DETACH))
        #endif
    }

    /// Whether CI demands mounts (`CACHE_TESTS_REQUIRE_MOUNTS=1`).
    public static let isRequired = ProcessInfo.processInfo.environment["CACHE_TESTS_REQUIRE_MOUNTS"] == "1"

    /// Whether tests that mount file systems run here: where a small tmpfs really mounts, or when
    /// CI demands it.
    public static var isAvailable: Bool {
        if let refusal = mountRefusal, !isRequired {
            print("notice: \(refusal); skipping tests that mount small or read-only file systems")
        }
        return mountRefusal == nil || isRequired
    }

    /// Why this process cannot mount, found by mounting a tiny tmpfs once; nil when it can. Being
    /// root is not enough: a container's root usually lacks the right to mount.
    private static let mountRefusal: String? = {
        #if os(Linux)
        if geteuid() != 0 { return "not root" }
        #endif
        do {
            _ = try tmpfs(bytes: 64 << 10, label: "mount-probe")
            return nil
        } catch let error as MountError {
            return "mounting is not permitted here (\(String(cString: strerror(error.code))))"
        } catch {
            return "mounting is not permitted here (\(error))"
        }
    }()

    /// A tmpfs of `bytes`, its root folder 0700.
    public static func tmpfs(bytes: Int, label: String = "tmpfs") throws -> MountedFileSystem {
        let holder = TemporaryDirectory(label)
        let point = holder.url.appendingPathComponent("mnt", isDirectory: true)
        try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
        #if os(Linux)
        guard mount("tmpfs", point.path, "tmpfs", 0, "size=\(bytes),mode=0700") == 0 else {
            throw MountError(operation: "mount a tmpfs at \(point.path)", code: errno)
        }
        return MountedFileSystem(holder: holder, url: point)
        #else
        throw MountError(operation: "mount (Linux only)", code: ENOSYS)
        #endif
    }

    /// `folder` seen through a read-only bind mount: the same files, unwritable even for root.
    public static func readOnlyView(of folder: URL) throws -> MountedFileSystem {
        let holder = TemporaryDirectory("readonly-view")
        let point = holder.url.appendingPathComponent("mnt", isDirectory: true)
        try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
        #if os(Linux)
        guard mount(folder.path, point.path, nil, UInt(MS_BIND), nil) == 0 else {
            throw MountError(operation: "bind-mount \(folder.path)", code: errno)
        }
        guard mount(nil, point.path, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil) == 0 else {
            let code = errno
            umount2(point.path, Int32(MNT_DETACH))
            throw MountError(operation: "make the bind mount read-only", code: code)
        }
        return MountedFileSystem(holder: holder, url: point)
        #else
        throw MountError(operation: "mount (Linux only)", code: ENOSYS)
        #endif
    }

    /// Bytes still free for an unprivileged writer.
    public var availableBytes: Int {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Writes a file of zeros until the file system is full (or only `leaving` bytes are left);
    /// deleting it gives the space back. Returns the file.
    @discardableResult
    public func fill(leaving: Int = 0, name: String = "filler") throws -> URL {
        let file = url.appendingPathComponent(name)
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw MountError(operation: "create \(file.path)", code: errno) }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while availableBytes > leaving {
            let count = min(chunk.count, max(1, availableBytes - leaving))
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, count) }
            if written <= 0 { break }
        }
        return file
    }

    /// Why a mount failed.
    public struct MountError: Error, CustomStringConvertible {
        public var operation: String
        public var code: Int32
        public var description: String { "could not \(operation): \(String(cString: strerror(code)))" }
    }
}
