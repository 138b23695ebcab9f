import Foundation

/// Where a store keeps its files inside its directory.
///
/// ```
/// DIR/blobs/data.mdb, lock.mdb   LMDB: records, blobs, journal, info
/// DIR/index.sqlite (-wal, -shm)  SQLite: the index
/// DIR/open.lock                  held exclusively while a process opens or recovers the store
/// DIR/users.lock                 held shared by every process that has the store open
/// DIR/flush.state, flush.lock    periodic durability's dirty/clean marker (see FlushMarker)
/// DIR/quarantine/                damaged stores moved aside, newest kept
/// ```
struct StoreLayout: Sendable {
    let directory: URL

    var blobs: URL { directory.appendingPathComponent("blobs", isDirectory: true) }
    var index: URL { directory.appendingPathComponent("index.sqlite") }
    var indexSidecars: [URL] { ["-wal", "-shm"].map { URL(fileURLWithPath: index.path + $0) } }
    var flushState: URL { directory.appendingPathComponent("flush.state") }
    var openLock: URL { directory.appendingPathComponent("open.lock") }
    var usersLock: URL { directory.appendingPathComponent("users.lock") }
    var quarantine: URL { directory.appendingPathComponent("quarantine", isDirectory: true) }

    /// Moves the named parts aside into `quarantine/<time>-<reason>/`, keeping the newest three.
    func quarantine(_ parts: [URL], reason: String) throws -> URL {
        let fileManager = FileManager.default
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
        let slug = String(reason.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(40))
        var destination = quarantine.appendingPathComponent("\(stamp)-\(slug)", isDirectory: true)
        var attempt = 1
        while fileManager.fileExists(atPath: destination.path) {
            attempt += 1
            destination = quarantine.appendingPathComponent("\(stamp)-\(slug)-\(attempt)", isDirectory: true)
        }
        try fileManager.createDirectory(at: destination, withIntermediateDirectories: true)
        for part in parts where fileManager.fileExists(atPath: part.path) {
            try fileManager.moveItem(at: part, to: destination.appendingPathComponent(part.lastPathComponent))
        }
        let kept = (try? fileManager.contentsOfDirectory(atPath: quarantine.path).sorted()) ?? []
        for old in kept.dropLast(3) {
            try? fileManager.removeItem(at: quarantine.appendingPathComponent(old))
        }
        return destination
    }
}

/// An advisory `flock` on a file: how processes sharing a store coordinate opening and compaction.
final class FileLock: @unchecked Sendable {
    // @unchecked: the descriptor is immutable; flock itself is the synchronisation.
    private let descriptor: Int32
    let url: URL

    init(url: URL) throws {
        self.url = url
        descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            throw StorageError.io(
                path: url.path, operation: "open lock file", errno: errno, message: String(cString: strerror(errno)))
        }
    }

    deinit {
        close(descriptor)
    }

    func lockExclusive() { while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {} }
    func lockShared() { while flock(descriptor, LOCK_SH) != 0 && errno == EINTR {} }
    func unlock() { flock(descriptor, LOCK_UN) }

    /// Converts a held shared lock to exclusive, only if no other holder exists.
    func tryUpgrade() -> Bool { flock(descriptor, LOCK_EX | LOCK_NB) == 0 }

    /// Takes the lock exclusively only if nobody else holds it.
    func tryLockExclusive() -> Bool { flock(descriptor, LOCK_EX | LOCK_NB) == 0 }
}
