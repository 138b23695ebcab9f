import Foundation

/// Asks the kernel to start reading the first pages of the store's files before opening needs
/// them, so the reads of a cold open (the flush marker, LMDB's lock file and meta pages, SQLite's
/// header and schema pages and the log's header) overlap instead of waiting one after another.
///
/// Only a hint (``Platform/adviseWillNeed(_:bytes:)``): the kernel queues the reads and returns; nothing is read into this
/// process, and a file that is missing or cannot be opened is skipped.
enum OpenReadahead {
    /// How much of each file's head to ask for: the pages opening reads first (LMDB's meta pages,
    /// SQLite's header and schema and its first tables). Asking costs the opening thread time of
    /// its own (the kernel allocates and queues each page): cold opens asking for 256 KiB a file
    /// took longer than with 64 KiB.
    static let headBytes = 64 << 10

    static func start(_ layout: StoreLayout) {
        // In the order opening reads them.
        let files = [layout.flushState, layout.lmdbLockFile, layout.dataFile, layout.index] + layout.indexSidecars
        for file in files {
            // Whatever is not a regular file is left for opening to refuse, never waited on here.
            guard let descriptor = try? CheckedPath.openFile(file.path, flags: O_RDONLY) else { continue }
            Platform.adviseWillNeed(descriptor, bytes: headBytes)
            close(descriptor)
        }
    }
}
