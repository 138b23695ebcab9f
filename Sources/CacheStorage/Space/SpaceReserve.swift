import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file of real, allocated blocks (`DIR/space.reserve`) that the store gives up when the disk
/// is full, so that what must write to free space can still commit.
///
/// LMDB copies every page it changes, so even a deletion needs free pages; SQLite appends a
/// deletion to its write-ahead log and needs its `-shm` file to open. On a disk filled by other
/// files neither could run, and the one command a user has to make room, `cachectl purge`, would
/// fail. Releasing the reserve gives them that room; it is allocated again once the volume has
/// space to spare. Every process on the store shares the one file: releasing and allocating are
/// single system calls on it, safe in any order.
struct SpaceReserve: Sendable {
    let url: URL
    let sharing: FileSharing

    /// The bytes the file holds now (0 when missing).
    var heldBytes: Int { url.fileSize ?? 0 }

    /// Gives the reserve's blocks back to the volume. Returns whether it held any.
    @discardableResult
    func release() -> Bool {
        guard heldBytes > 0 else { return false }
        guard let descriptor = try? CheckedPath.openFile(url.path, flags: O_WRONLY) else { return false }
        defer { close(descriptor) }
        return ftruncate(descriptor, 0) == 0
    }

    /// Allocates the reserve up to `bytes` when it holds less and the volume has room for it and
    /// `spare` more. Returns whether the reserve now holds `bytes`.
    @discardableResult
    func replenish(to bytes: Int, keepingFree spare: Int) -> Bool {
        guard bytes > 0 else { return true }
        let held = heldBytes
        guard held < bytes else { return true }
        guard let space = VolumeSpace.of(url.deletingLastPathComponent().path),
            space.availableBytes >= bytes - held + spare
        else { return false }
        if url.isSymbolicLink { unlink(url.path) }
        guard let descriptor = try? StoreFiles.openFile(url, sharing: sharing) else { return false }
        defer { close(descriptor) }
        if Platform.preallocate(descriptor, bytes: bytes) { return true }
        // A partial allocation is worse than none: it takes space without being counted on.
        ftruncate(descriptor, 0)
        return false
    }
}
