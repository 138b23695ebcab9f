import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PersistentStore {
    /// Deletes every entry of the store at `directory` by deleting the store's files, when no
    /// process has it open: their bytes go back to the volume at once, with no compacted copy to
    /// write (which a full volume may have no room for). The next open starts an empty store. The
    /// folder, its lock files, `quarantine/` and files that are not the store's stay.
    ///
    /// The index goes first and LMDB's file last: a crash between them leaves a store whose index
    /// the next open rebuilds from LMDB, every entry still there; after them, an empty store.
    ///
    /// - Throws: ``StorageError/storeInUse(path:operation:)`` when another process has the store
    ///   open (nothing is deleted then), or the error of a file that could not be deleted.
    /// - Returns: the bytes the deleted files took on the volume.
    @discardableResult
    public static func deleteEntries(at directory: URL, sharing: FileSharing = .owner) throws -> Int {
        let layout = StoreLayout(directory: directory)
        let files = [layout.index] + layout.indexSidecars + [layout.flushState, layout.dataFile, layout.lmdbLockFile]
        let freed = try layout.withStoreToItself(sharing: sharing, operation: "empty") {
            var freed = 0
            for file in files {
                var info = stat()
                let held = lstat(file.path, &info) == 0 ? Int(info.st_blocks) * 512 : 0
                if unlink(file.path) == 0 {
                    freed += held
                } else if errno != ENOENT {
                    throw FileSystemErrors.error(errno: errno, path: file.path, operation: "delete")
                }
            }
            // The deletions reach the disk before an empty store is made in their place.
            try? StoreFiles.sync(layout.blobs, operation: "sync the folder")
            try? StoreFiles.sync(layout.directory, operation: "sync the folder")
            return freed
        }
        return freed
    }
}
