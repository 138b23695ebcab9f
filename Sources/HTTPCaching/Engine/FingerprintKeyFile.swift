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
        let mode = store.configuration.sharing.fileMode
        var loaded = load(path)
        if case let .success(key?) = loaded {
            // Takes away the permissions the store's sharing no longer gives (a store once shared
            // with its group, opened since as private): opening tightens the store's own files,
            // and the key follows them.
            if store.configuration.access == .readWrite { CheckedPath.setMode(at: path, to: mode, onlyRemoving: true) }
            return key
        }
        guard store.configuration.access == .readWrite else { return .process }
        var reason: String?
        if case let .failure(refusal) = loaded {
            reason = refusal.description
        } else {
            reason = create(path, mode: mode)
            loaded = load(path)
            if case let .success(key?) = loaded { return key }
            if case let .failure(refusal) = loaded { reason = refusal.description }
        }
        logger.warning(
            """
            The HTTP cache could not keep its fingerprint key at \(path) (\(reason ?? "it reads back wrong")); \
            responses that vary on request fields, or were fetched with credentials, will match only within \
            this process. Check that the store's folder is writable.
            """)
        return .process
    }

    /// The key in `path`; nil when it is absent or not exactly a key's length. Anything but a
    /// regular file (a link, a FIFO that would block the read) is refused without being read.
    private static func load(_ path: String) -> Result<FingerprintKey?, StorageError> {
        let descriptor: Int32
        do {
            descriptor = try CheckedPath.openFile(path, flags: O_RDONLY)
        } catch let error where error.isUnexpectedFileType {
            return .failure(error)
        } catch {
            return .success(nil)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size == FingerprintKey.byteCount else { return .success(nil) }
        var bytes = [UInt8](repeating: 0, count: FingerprintKey.byteCount)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return .success(count == FingerprintKey.byteCount ? FingerprintKey(bytes: bytes) : nil)
    }

    /// Writes a new key to a file of its own, then links it to `path` unless a key is there
    /// already. Returns why it failed, or nil.
    private static func create(_ path: String, mode: mode_t) -> String? {
        let key = FingerprintKey.random()
        let scratch = "\(path).\(getpid()).\(UInt32.random(in: .min ... .max))"
        // Exactly the store's mode whatever the umask: under 077 a group store's members could
        // not read the key, and each would fall back to a key of its own.
        // O_EXCL: a file this call makes, so a regular file whatever stood at the name before.
        let descriptor = open(scratch, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { unlink(scratch) }
        CheckedPath.setMode(of: descriptor, to: mode)
        let written = key.bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == FingerprintKey.byteCount, synced else { return "the key could not be written" }
        guard link(scratch, path) == 0 || errno == EEXIST else { return String(cString: strerror(errno)) }
        return nil
    }
}
