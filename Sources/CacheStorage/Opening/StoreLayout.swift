import Foundation

/// Where a store keeps its files inside its directory.
///
/// ```
/// DIR/blobs/data.mdb, lock.mdb   LMDB: records, logs, pointer tail, journal, info, dependents
/// DIR/index.sqlite (-wal, -shm)  SQLite: the index
/// DIR/open.lock                  held exclusively while a process opens or recovers the store
/// DIR/users.lock                 held shared by every process that has the store open
/// DIR/flush.state, flush.lock    periodic durability's dirty/clean marker (see FlushMarker)
/// DIR/quarantine/                damaged stores and stores of another format moved aside, newest kept
/// DIR/space.reserve              given up so that deletions commit on a full disk (see SpaceReserve)
/// ```
///
/// Every name is made once, here: opening asks for them a few dozen times, and each
/// `appendingPathComponent` and `path` on Linux costs microseconds (a tenth of a warm open
/// went to making these URLs again).
struct StoreLayout: Sendable {
    let directory: URL
    let blobs: URL
    let index: URL
    let indexSidecars: [URL]
    let flushState: URL
    let flushLock: URL
    let openLock: URL
    let usersLock: URL
    let quarantine: URL
    let reserve: URL
    /// The LMDB data file, `blobs/data.mdb`.
    let dataFile: URL
    /// LMDB's lock file, `blobs/lock.mdb`.
    let lmdbLockFile: URL
    /// The paths of the store's folders and files whose modes opening brings in line, with
    /// whether each is a folder.
    private let ownPaths: [(path: String, isDirectory: Bool)]

    init(directory: URL) {
        self.directory = directory
        blobs = directory.appendingPathComponent("blobs", isDirectory: true)
        index = directory.appendingPathComponent("index.sqlite")
        let indexPath = index.path
        indexSidecars = ["-wal", "-shm"].map { URL(fileURLWithPath: indexPath + $0) }
        flushState = directory.appendingPathComponent("flush.state")
        flushLock = directory.appendingPathComponent("flush.lock")
        openLock = directory.appendingPathComponent("open.lock")
        usersLock = directory.appendingPathComponent("users.lock")
        quarantine = directory.appendingPathComponent("quarantine", isDirectory: true)
        reserve = directory.appendingPathComponent("space.reserve")
        dataFile = blobs.appendingPathComponent("data.mdb")
        lmdbLockFile = blobs.appendingPathComponent("lock.mdb")
        let folders = [directory, blobs, quarantine].map { ($0.path, true) }
        let files = [dataFile, lmdbLockFile, index] + indexSidecars
            + [flushState, flushLock, openLock, usersLock, reserve]
        ownPaths = folders + files.map { ($0.path, false) }
    }

    /// Brings the modes of the store's existing files this user owns in line with `sharing`.
    func tightenModes(sharing: FileSharing) {
        for own in ownPaths {
            StoreFiles.tighten(own.path, to: own.isDirectory ? sharing.directoryMode : sharing.fileMode)
        }
    }

    /// Moves the named parts aside into `quarantine/<time>-<reason>/`, keeping the newest three.
    ///
    /// A symbolic link planted at `quarantine` is removed (the link, not its target) and a real
    /// folder made in its place, so nothing outside the cache is ever moved into or deleted.
    func quarantine(_ parts: [URL], reason: String, sharing: FileSharing) throws -> URL {
        let fileManager = FileManager.default
        var info = stat()
        if lstat(quarantine.path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
            unlink(quarantine.path)
        }
        try StoreFiles.makeDirectory(quarantine, sharing: sharing)
        let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
        let slug = String(reason.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(40))
        var destination = quarantine.appendingPathComponent("\(stamp)-\(slug)", isDirectory: true)
        var attempt = 1
        while fileManager.fileExists(atPath: destination.path) {
            attempt += 1
            destination = quarantine.appendingPathComponent("\(stamp)-\(slug)-\(attempt)", isDirectory: true)
        }
        try StoreFiles.makeDirectory(destination, sharing: sharing)
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

extension StoreLayout {
    /// Runs `body` with the store to itself, for work on a closed store's files (replacing or
    /// deleting them): the openers' lock and the users' lock, each taken exclusively without
    /// waiting, so no process has the store open nor opens it meanwhile.
    ///
    /// - Throws: ``StorageError/storeInUse(path:operation:)`` naming `operation` when a process
    ///   has the store open or is opening it; `body` does not run then.
    func withStoreToItself<Value>(sharing: FileSharing, operation: String, _ body: () throws -> Value) throws -> Value {
        let openers = try FileLock(url: openLock, sharing: sharing)
        let users = try FileLock(url: usersLock, sharing: sharing)
        guard openers.tryLockExclusive() else { throw StorageError.storeInUse(path: directory.path, operation: operation) }
        defer { openers.unlock() }
        guard users.tryLockExclusive() else { throw StorageError.storeInUse(path: directory.path, operation: operation) }
        defer { users.unlock() }
        return try body()
    }
}

/// An advisory `flock` on a file: how processes sharing a store coordinate opening and compaction.
final class FileLock: @unchecked Sendable {
    // @unchecked: the descriptor is immutable; flock itself is the synchronisation.
    private let descriptor: Int32
    let url: URL

    /// Opens (creating when missing, with the sharing's mode) the lock file at `url`.
    init(url: URL, sharing: FileSharing) throws {
        self.url = url
        // A link planted at a lock's name is replaced by a real (empty) lock file, never followed.
        if url.isSymbolicLink { unlink(url.path) }
        descriptor = try StoreFiles.openFile(url, sharing: sharing)
    }

    private init(url: URL, descriptor: Int32) {
        self.url = url
        self.descriptor = descriptor
    }

    /// Opens an existing lock file without writing anything (flock works on a read-only
    /// descriptor); nil when it is missing or unreadable, as in a folder of another user.
    ///
    /// - Throws: ``StorageError/unexpectedFileType(path:found:expected:)`` when something other
    ///   than a regular file stands there (a FIFO would otherwise hang the open).
    static func existing(at url: URL) throws -> FileLock? {
        switch Result(catching: { () throws(StorageError) in try CheckedPath.openFile(url.path, flags: O_RDONLY) }) {
        case let .success(descriptor): return FileLock(url: url, descriptor: descriptor)
        case let .failure(error) where error.isUnexpectedFileType: throw error
        case .failure: return nil
        }
    }

    deinit {
        close(descriptor)
    }

    func lockExclusive() { while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {} }
    func lockShared() { while flock(descriptor, LOCK_SH) != 0 && errno == EINTR {} }
    func unlock() { flock(descriptor, LOCK_UN) }

    /// Takes the lock exclusively only if nobody else holds it.
    func tryLockExclusive() -> Bool { flock(descriptor, LOCK_EX | LOCK_NB) == 0 }

    /// Converts a held shared lock to exclusive, only if no other holder exists.
    func tryUpgrade() -> Bool { flock(descriptor, LOCK_EX | LOCK_NB) == 0 }
}
