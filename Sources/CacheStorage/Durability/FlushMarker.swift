import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes periodic flushing safe against power loss.
///
/// Without a sync per commit, a power loss can leave LMDB's tree pointing at pages a later,
/// unflushed commit overwrote: bytes the metadata does not vouch for. So before the first commit
/// after a flush, a process durably writes `dirty <boot id>` to `DIR/flush.state`; a flush syncs
/// LMDB and then writes `clean <boot id>`. Commits (any process) hold `flush.lock` shared and the
/// marking flush holds it exclusively, so no commit slips between a sync and its `clean`. On open,
/// `dirty` from another boot means the machine went down with unflushed writes: the store is not
/// trusted. A process killed on a running machine loses nothing (same boot, page cache intact).
final class FlushMarker: Sendable {
    private let stateURL: URL
    private let statePath: String
    private let lock: FileLock
    private let bootID: String

    /// `flock` excludes other processes only: threads of this one share the lock's descriptor, so
    /// each would "hold" it at once (and a shared lock taken by one converts another's exclusive
    /// one), and their marker writes would share one temporary file. This keeps this marker's
    /// commits and flushes one at a time within the process, as `lock` does between processes.
    private let inProcess = Locked(())

    private let sharing: FileSharing
    /// Runs in the gap between releasing the exclusive lock and taking the shared one again, where
    /// another process's flush may mark the store clean: for the test that proves `commit` re-reads.
    private let betweenLocks: (@Sendable () -> Void)?

    init(layout: StoreLayout, sharing: FileSharing, betweenLocks: (@Sendable () -> Void)? = nil) throws {
        stateURL = layout.flushState
        statePath = stateURL.path
        self.sharing = sharing
        self.betweenLocks = betweenLocks
        lock = try FileLock(url: layout.flushLock, sharing: sharing)
        bootID = Self.currentBootID()
    }

    /// Read once a process: it cannot change while the process runs.
    private static let bootOfThisProcess = readBootID()

    /// Whether the store laid out as `layout` had unflushed commits when its machine last went down.
    static func hasUnflushedWritesFromEarlierBoot(in layout: StoreLayout) -> Bool {
        guard let text = state(at: layout.flushState.path) else { return false }
        let parts = text.split(separator: " ").map(String.init)
        guard parts.count == 2, parts[0] == "clean" || parts[0] == "dirty" else { return true }
        // A boot that could not be identified cannot be told from another: unflushed writes
        // under it are not trusted (a documented choice: safety over keeping the cache).
        return parts[0] == "dirty" && (parts[1] != currentBootID() || parts[1] == unknownBoot)
    }

    /// Whether the store laid out as `layout` has commits not yet marked as synced in this boot (a
    /// process killed within a second of writing leaves it so).
    static func isDirty(in layout: StoreLayout) -> Bool {
        state(at: layout.flushState.path)?.hasPrefix("dirty") ?? false
    }

    /// The marker file's text; nil when it is missing, is not a regular file's UTF-8 text, or
    /// cannot be read. Read with POSIX calls: every commit reads it, and every open twice.
    private static func state(at path: String) -> String? {
        // A FIFO planted at the name neither blocks the open nor reads as a marker, and a link
        // is not followed.
        guard let descriptor = try? CheckedPath.openFile(path, flags: O_RDONLY) else { return nil }
        defer { close(descriptor) }
        // A marker is one short line: a file longer than a page is not one, and reads as an
        // empty text (a damaged marker).
        var bytes = [UInt8](repeating: 0, count: 4097)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            count += got
        }
        return count < bytes.count ? String(bytes: bytes[..<count], encoding: .utf8) : ""
    }

    /// Runs an LMDB commit under the shared lock, marking the store dirty first when it is clean.
    ///
    /// The marker is read again after every change of lock, because converting a `flock` is not
    /// atomic: a flush in another process may mark the store clean in between, and a commit must
    /// never land under `clean`. When the marker cannot be written (a full disk), `body` does not run.
    func commit<Result>(_ body: () throws -> Result) throws -> Result {
        try inProcess.withLock { _ in
            let dirtyLine = "dirty \(bootID)"
            lock.lockShared()
            while readState() != dirtyLine {
                lock.unlock()
                lock.lockExclusive()
                do {
                    if readState() != dirtyLine { try writeState("dirty", durably: true) }
                } catch {
                    lock.unlock()
                    throw error
                }
                lock.unlock()
                betweenLocks?()
                lock.lockShared()
            }
            defer { lock.unlock() }
            return try body()
        }
    }

    /// Syncs through `sync` and marks the store clean, with no commit in between in any process.
    /// The bulk is synced before taking the lock, so commits wait only for the short second sync.
    func flush(_ sync: () throws -> Void) throws {
        try sync()
        try inProcess.withLock { _ in
            lock.lockExclusive()
            defer { lock.unlock() }
            try sync()
            try writeState("clean", durably: false)
        }
    }

    func readState() -> String {
        Self.state(at: statePath) ?? ""
    }

    /// `dirty` must be on disk before the commit it covers; `clean` need not be (losing it only
    /// leaves `dirty`, which errs on the safe side). Written to a temporary file renamed over the
    /// marker, which is removed again whenever the write fails (a full disk leaves no litter).
    private func writeState(_ state: String, durably: Bool) throws {
        let temporary = URL(fileURLWithPath: "\(statePath).\(getpid())")
        let text = Array("\(state) \(bootID)".utf8)
        unlink(temporary.path)
        let descriptor = open(
            temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, sharing.fileMode)
        guard descriptor >= 0 else { throw Self.error(temporary, "create") }
        fchmod(descriptor, sharing.fileMode)
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        var failure: StorageError?
        if written != text.count {
            failure = written < 0 ? Self.error(temporary, "write") : .diskFull(path: temporary.path, operation: "write the flush marker")
        } else if durably && fsync(descriptor) != 0 {
            failure = Self.error(temporary, "sync")
        }
        close(descriptor)
        if failure == nil && rename(temporary.path, stateURL.path) != 0 { failure = Self.error(stateURL, "replace") }
        if let failure {
            unlink(temporary.path)
            // On a full disk, overwrite the marker where it stands: `dirty` and `clean` lines
            // are the same length, so this needs no new block, and one sector is written whole.
            if failure.isOutOfSpace, overwriteInPlace(text, durably: durably) { return }
            throw failure
        }
        if durably {
            let directory = open(stateURL.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
            if directory >= 0 {
                defer { close(directory) }
                if fsync(directory) != 0 { throw Self.error(stateURL.deletingLastPathComponent(), "sync") }
            }
        }
    }

    /// Writes `text` over the existing marker of the same length; false when that cannot be done.
    private func overwriteInPlace(_ text: [UInt8], durably: Bool) -> Bool {
        guard stateURL.fileSize == text.count else { return false }
        guard let descriptor = try? CheckedPath.openFile(stateURL.path, flags: O_WRONLY) else { return false }
        defer { close(descriptor) }
        let written = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return written == text.count && (!durably || fsync(descriptor) == 0)
    }

    private static func error(_ url: URL, _ operation: String) -> StorageError {
        FileSystemErrors.error(errno: errno, path: url.path, operation: "\(operation) the flush marker")
    }

    /// What the boot is called when it cannot be identified.
    static let unknownBoot = "unknown"

    /// An identifier that changes at every boot of the machine: the kernel's boot id, else the
    /// boot time it reports, else ``unknownBoot``.
    static func currentBootID() -> String { bootOfThisProcess }

    private static func readBootID() -> String {
        Platform.bootIdentifier() ?? unknownBoot
    }
}
