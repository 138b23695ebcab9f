import Foundation

/// Asks the kernel to start reading the first pages of the store's files before opening needs
/// them, so the reads of a cold open (LMDB's meta and root pages, SQLite's schema page and the
/// log's header) overlap instead of waiting one after another.
///
/// Only a hint: `posix_fadvise(WILLNEED)` queues the reads and returns; nothing is read into this
/// process, and a file that is missing or cannot be opened is skipped.
enum OpenReadahead {
    /// How much of each file's head to ask for: the pages opening reads first.
    static let headBytes = 256 << 10

    static func start(_ layout: StoreLayout) {
        #if os(Linux)
        let files = [layout.blobs.appendingPathComponent("data.mdb"), layout.index] + layout.indexSidecars
        for file in files {
            let descriptor = open(file.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            _ = posix_fadvise(descriptor, 0, off_t(headBytes), POSIX_FADV_WILLNEED)
            close(descriptor)
        }
        #endif
    }
}
