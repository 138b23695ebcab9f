import CLMDB
import Foundation

/// Writing committed pages to disk, and clearing dead readers.
extension BlobStore {
    /// Forces committed data to disk (and, in periodic durability, marks the store clean).
    func sync() throws {
        if isReadOnly { return }
        try environment.withSharedLock { env in
            try ensureOpen()
            let sync = { try LMDBError.check(mdb_env_sync(env.handle, 1), "flush to disk", path: self.directory.path) }
            if let flushMarker { try flushMarker.flush(sync) } else { try sync() }
        }
    }

    /// Writes LMDB's dirty pages to disk without marking the store flushed: for a thread beside
    /// the writer, so that the next marked ``sync()`` finds little left to write. A failure is
    /// left to that sync to report.
    func writeBack() {
        if isReadOnly { return }
        environment.withSharedLock { env in
            guard (try? ensureOpen()) != nil else { return }
            _ = mdb_env_sync(env.handle, 1)
        }
    }

    /// Clears reader slots left by processes that died inside a read transaction, at most once
    /// every 30 seconds (an idle pass asks).
    func clearStaleReadersIfDue() {
        let due = lastReaderCheck.withLock { last in
            guard Date().timeIntervalSince(last) > 30 else { return false }
            last = Date()
            return true
        }
        guard due else { return }
        environment.withSharedLock { env in
            guard !isClosed.withLock({ $0 }), !readsWithoutLocks else { return }
            var dead: Int32 = 0
            mdb_reader_check(env.handle, &dead)
        }
    }
}
