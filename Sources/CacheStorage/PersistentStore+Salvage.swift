import Foundation

extension PersistentStore {
    /// Copies every entry whose record decodes and whose bytes match its checksum into
    /// `destination`, derived entries after their sources, with their attributes (each becomes
    /// a new put: stored-at and last-access times start afresh).
    ///
    /// The way to repair a store damaged past what writing into it survives: LMDB trusts its
    /// pages, and a damaged page can make a write fail or fault, so nothing is written here.
    /// Reading a damaged tree can fault too: run this in a process of its own (as
    /// `cachectl verify --repair` does), and what it copied before a fault is kept. An LMDB error
    /// on the way ends the walk, reported in ``SalvageReport/stoppedEarly``, never thrown.
    public func copyEntriesThatReadClean(into destination: PersistentStore) throws -> SalvageReport {
        try checkOpen()
        var report = SalvageReport(copied: 0, leftBehind: 0)
        var batch: [NewEntry] = []
        var derived: [NewEntry] = []
        func putBatch() throws {
            guard !batch.isEmpty else { return }
            try destination.putAndWait(batch)
            report.copied += batch.count
            batch.removeAll(keepingCapacity: true)
        }
        do {
            try core.blobs.read { txn in
                let databases = core.blobs.databases
                try txn.forEachRecord(databases) { digest, stored in
                    guard let location = BlobLocation(record: stored.bytes),
                        let metadata = EntryRecord.decode(stored.bytes), KeyDigest(key: metadata.key) == digest,
                        let data = try? txn.withBytes(of: stored, at: location, databases, { bytes -> Data? in
                            guard let bytes, bytes.count == metadata.byteCount, XXHash64.hash(bytes) == metadata.checksum
                            else { return nil }
                            return Data(bytes)
                        })
                    else {
                        report.leftBehind += 1
                        return true
                    }
                    let entry = NewEntry(key: metadata.key, data: data, attributes: metadata.attributes, source: metadata.source)
                    if entry.source != nil {
                        derived.append(entry)
                    } else {
                        batch.append(entry)
                        if batch.count >= 64 { try putBatch() }
                    }
                    return true
                }
            }
        } catch let error as StorageError {
            guard case .lmdb = error else { throw error }
            report.stoppedEarly = error.description
        }
        try putBatch()
        for entry in derived {
            // A source left behind (or copied with other bytes) takes its derived entries with it.
            do {
                try destination.putAndWait([entry])
                report.copied += 1
            } catch StorageError.sourceChanged {
                report.leftBehind += 1
            }
        }
        return report
    }

    /// Replaces the store at `directory` with the one at `replacement` (which
    /// ``copyEntriesThatReadClean(into:)`` filled, and which is closed), moving the old store's
    /// files into `quarantine/`. `replacement`'s folder is removed afterwards.
    ///
    /// Needs the store to itself: when another process has it open, it throws
    /// ``StorageError/storeInUse(path:operation:)`` and changes nothing. `sharing` gives the
    /// modes of what it creates (the lock files when missing, the quarantine folder),
    /// ``FileSharing/owner`` by default.
    /// - Returns: where the old files went.
    public static func replaceStore(at directory: URL, with replacement: URL, sharing: FileSharing = .owner) throws -> URL {
        let layout = StoreLayout(directory: directory)
        let fresh = StoreLayout(directory: replacement)
        // No process may be using the store, nor open it while its files move.
        return try layout.withStoreToItself(sharing: sharing, operation: "repair") {
            try moveIntoPlace(fresh, replacing: layout, replacement: replacement, sharing: sharing)
        }
    }

    /// Moves the old store's files into `quarantine/` and the replacement's into their place.
    private static func moveIntoPlace(
        _ fresh: StoreLayout, replacing layout: StoreLayout, replacement: URL, sharing: FileSharing
    ) throws -> URL {
        let directory = layout.directory
        let parts = [\StoreLayout.blobs, \.index, \.flushState]
        let old = [layout.blobs, layout.index, layout.flushState] + layout.indexSidecars
        let moved: URL
        do {
            moved = try layout.quarantine(old, reason: "replaced by repair", sharing: sharing)
            for part in parts where FileManager.default.fileExists(atPath: fresh[keyPath: part].path) {
                try FileManager.default.moveItem(at: fresh[keyPath: part], to: layout[keyPath: part])
            }
            for (from, to) in zip(fresh.indexSidecars, layout.indexSidecars) where FileManager.default.fileExists(atPath: from.path) {
                try FileManager.default.moveItem(at: from, to: to)
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.io(
                path: directory.path, operation: "move the repaired store into place", errno: errno, message: "\(error)")
        }
        try? FileManager.default.removeItem(at: replacement)
        return moved
    }
}
