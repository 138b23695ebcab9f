import CacheStorage
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an HTTP cache keeps its ``FingerprintKey``: `vary-fingerprint.key` in the store's folder,
/// 32 random bytes written once, readable by whoever may read the store.
///
/// A file beside the store rather than an entry in it: an entry could be evicted, exported or
/// shown by `cachectl`, and the key must never leave the machine with the cache's contents.
///
/// Two processes opening a new store at once race to create it; the key is written to a file of
/// its own and then linked into place, which fails for the second, so both read back the one key
/// that won. A key that cannot be read or written (a read-only store, a damaged file) falls back
/// to ``FingerprintKey/process``: responses stored meanwhile match only within this process, and
/// are misses, never wrong answers, after it.
enum FingerprintKeyFile {
    static let name = "vary-fingerprint.key"

    /// The store's key, created now if it has none.
    static func key(for store: PersistentStore, logger: Logger) -> FingerprintKey {
        let path = store.directory.appendingPathComponent(name).path
        if let key = load(path) {
            if store.configuration.access == .readWrite { tighten(path, to: fileMode(of: store)) }
            return key
        }
        guard store.configuration.access == .readWrite else { return .process }
        let created = create(path, mode: fileMode(of: store))
        if let key = load(path) { return key }
        let reason = created ?? "it reads back wrong"
        logger.warning(
            """
            The HTTP cache could not keep its fingerprint key at \(path) (\(reason)); responses that vary \
            on request fields, or were fetched with credentials, will match only within this process. \
            Check that the store's folder is writable.
            """)
        return .process
    }

    /// The key in `path`; nil when it is absent, not a regular file (a planted link is not
    /// followed), or not exactly a key's length.
    private static func load(_ path: String) -> FingerprintKey? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size == FingerprintKey.byteCount
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: FingerprintKey.byteCount)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return count == FingerprintKey.byteCount ? FingerprintKey(bytes: bytes) : nil
    }

    /// Writes a new key to a file of its own, then links it to `path` unless a key is there
    /// already. Returns why it failed, or nil.
    private static func create(_ path: String, mode: mode_t) -> String? {
        let key = FingerprintKey.random()
        let scratch = "\(path).\(getpid()).\(UInt32.random(in: .min ... .max))"
        let descriptor = open(scratch, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { unlink(scratch) }
        // Exactly the store's mode whatever the umask: under 077 a group store's members could
        // not read the key, and each would fall back to a key of its own.
        fchmod(descriptor, mode)
        let written = key.bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == FingerprintKey.byteCount, synced else { return "the key could not be written" }
        guard link(scratch, path) == 0 || errno == EEXIST else { return String(cString: strerror(errno)) }
        return nil
    }

    /// Takes away the permissions the store's sharing no longer gives (a store once shared with
    /// its group, opened since as private): opening tightens the store's own files, and the key
    /// follows them. A file this user does not own is left as it is.
    private static func tighten(_ path: String, to mode: mode_t) {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_mode & 0o777 & ~mode != 0 else { return }
        chmod(path, info.st_mode & 0o777 & mode)
    }

    /// The mode the store gave its index, so the key is shared exactly as the store is
    /// (``FileSharing``): owner only by default, the group too when the store is shared.
    private static func fileMode(of store: PersistentStore) -> mode_t {
        var info = stat()
        let index = store.directory.appendingPathComponent("index.sqlite").path
        guard stat(index, &info) == 0 else { return 0o600 }
        return info.st_mode & 0o660
    }
}
