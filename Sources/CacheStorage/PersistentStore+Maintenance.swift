import Foundation

extension PersistentStore {
    /// Checks every invariant: each record has its blob with the stated length and checksum, no
    /// blob lacks a record, and the index lists exactly the entries LMDB holds.
    ///
    /// Reads every byte, so it takes as long as reading the whole store. With `repair`, damaged
    /// entries are removed and the index is rebuilt from LMDB. Safe while other processes write:
    /// entries changed since the index's last catch-up are not counted as disagreements.
    public func verify(repair: Bool = false) async throws -> VerificationReport {
        try checkOpen()
        if repair, let reason = core.readOnlyReason {
            throw StorageError.readOnly(path: directory.path, reason: reason)
        }
        do {
            try await flush()
        } catch let error as StorageError where error.isOutOfSpace || error.isPermissionProblem {
            // A full disk or a read-only store: check what is there; entries the index has not
            // caught up with are not counted as disagreements.
        }
        var damaged: [KeyDigest] = []
        var orphanedLogBlobs: [UInt64] = []
        var indexProblems = false
        typealias IndexedRow = (storedAt: Int64, key: String, bytes: Int, checksum: UInt64)
        /// Checks LMDB's entries, and the index's `rows` against them unless `applied` is nil (an
        /// index SQLite cannot read).
        func checkBlobs(
            rows indexed: [KeyDigest: IndexedRow], extraRows: [(digest: KeyDigest, key: String)], applied: Int64?
        ) throws -> VerificationReport {
            var rows = indexed
            return try core.blobs.read { txn in
                let databases = core.blobs.databases
                var report = VerificationReport(entriesChecked: 0, bytesChecked: 0, problems: [], repaired: false)
                let info = try txn.storeInfo(databases)
                let appliedSequence = UInt64(bitPattern: applied ?? 0)
                var inFlux = Set<KeyDigest>()
                var indexComparable = applied != nil
                if let info, appliedSequence < info.head {
                    if appliedSequence < info.trimmedThrough {
                        indexComparable = false
                    } else {
                        inFlux = try txn.journalDigests(after: appliedSequence, databases)
                    }
                }
                // Log numbers that records name (a logged record has its blob's number): any other
                // in either log is an orphan.
                var named = Set<UInt64>()
                try txn.forEachRecord(databases) { digest, stored in
                    let value = stored.bytes
                    report.entriesChecked += 1
                    let location = BlobLocation(record: value)
                    if let location { named.insert(location.number) }
                    guard let location, let metadata = EntryRecord.decode(value), KeyDigest(key: metadata.key) == digest
                    else {
                        report.problems.append(.unreadableRecord(digest: digest.hexString))
                        damaged.append(digest)
                        return true
                    }
                    let row = rows.removeValue(forKey: digest)
                    if indexComparable && !inFlux.contains(digest) {
                        if row == nil {
                            report.problems.append(.unindexedEntry(key: metadata.key))
                            indexProblems = true
                        } else if let row, row.bytes != metadata.byteCount || row.checksum != metadata.checksum
                            || row.key != metadata.key || row.storedAt != IndexRowKey(metadata, digest: digest).storedAt
                        {
                            report.problems.append(.indexMismatch(key: metadata.key))
                            indexProblems = true
                        }
                    }
                    let problem = try txn.withBytes(of: stored, at: location, databases) { blob -> VerificationReport.Problem? in
                        guard let blob else { return .missingBlob(key: metadata.key) }
                        report.bytesChecked += blob.count
                        if blob.count != metadata.byteCount {
                            return .sizeMismatch(key: metadata.key, expected: metadata.byteCount, actual: blob.count)
                        }
                        return XXHash64.hash(blob) != metadata.checksum ? .checksumMismatch(key: metadata.key) : nil
                    }
                    if let problem {
                        report.problems.append(problem)
                        damaged.append(digest)
                    }
                    return true
                }
                for (log, name) in [(databases.blobLog, "log"), (databases.recordLog, "record")] {
                    try txn.forEach(log) { keyBytes, _ in
                        if let number = BlobLocation.number(fromKey: keyBytes), !named.contains(number) {
                            report.problems.append(.orphanBlob(digest: "\(name)#\(number)"))
                            orphanedLogBlobs.append(number)
                        }
                        return true
                    }
                }
                if indexComparable {
                    for (digest, row) in rows where !inFlux.contains(digest) {
                        report.problems.append(.danglingIndexRow(key: row.key))
                        indexProblems = true
                    }
                    for extra in extraRows where !inFlux.contains(extra.digest) {
                        report.problems.append(.danglingIndexRow(key: extra.key))
                        indexProblems = true
                    }
                }
                return report
            }
        }
        var report: VerificationReport
        do {
            report = try core.index.query { connection -> VerificationReport in
                var rows: [KeyDigest: IndexedRow] = [:]
                // A second row for one digest (rows are keyed by stored-at time too, see IndexRowKey).
                var extraRows: [(digest: KeyDigest, key: String)] = []
                let applied = try connection.scalar("SELECT applied_seq FROM mirror_state WHERE id = 1") ?? 0
                let statement = try connection.prepare("SELECT stored_at, digest, key, byte_size, checksum FROM entries")
                while try statement.step() {
                    guard let row = MetadataIndex.row(statement, column: 0) else { continue }
                    let key = statement.string(2) ?? ""
                    guard rows[row.digest] == nil else {
                        extraRows.append((row.digest, key))
                        continue
                    }
                    rows[row.digest] = (row.storedAt, key, Int(statement.int64(3)), UInt64(bitPattern: statement.int64(4)))
                }
                return try checkBlobs(rows: rows, extraRows: extraRows, applied: applied)
            }
        } catch where MetadataIndex.isDamage(error) {
            // What a failed first look gathered is dropped: LMDB is checked again, alone.
            damaged = []
            orphanedLogBlobs = []
            report = try checkBlobs(rows: [:], extraRows: [], applied: nil)
            report.problems.insert(.malformedIndex(reason: "\(error)"), at: 0)
            indexProblems = true
        }
        if repair && !report.isClean {
            for start in stride(from: 0, to: damaged.count, by: StoreCore.removalsPerTransaction) {
                let chunk = Array(damaged[start..<min(start + StoreCore.removalsPerTransaction, damaged.count)])
                _ = try await core.writer.submit(.removeIfDamaged(chunk))
            }
            for start in stride(from: 0, to: orphanedLogBlobs.count, by: StoreCore.removalsPerTransaction) {
                let chunk = orphanedLogBlobs[start..<min(start + StoreCore.removalsPerTransaction, orphanedLogBlobs.count)]
                _ = try await core.writer.submit(.removeOrphanedLogBlobs(Array(chunk)))
            }
            if indexProblems || !damaged.isEmpty { _ = try await core.writer.submit(.rebuildIndex) }
            report.repaired = true
            core.logger.notice("Repaired the cache store", metadata: ["problems": "\(report.problems.count)"])
        }
        return report
    }

    /// Gives space back: rewrites LMDB's data file without free pages and vacuums the index.
    ///
    /// Needs the store to itself: when another process has it open, it throws
    /// ``StorageError/storeInUse(path:operation:)`` and changes nothing. In this process, reads
    /// and writes wait while it runs.
    /// - Returns: the bytes of the store's files before and after.
    public func compact() async throws -> (bytesBefore: Int, bytesAfter: Int) {
        try checkOpen()
        guard let usersLock = core.usersLock, let openLock = core.openLock, core.readOnlyReason == nil else {
            throw StorageError.readOnly(path: directory.path, reason: core.readOnlyReason ?? "the store was opened read-only")
        }
        // No process may open the store while its data file is replaced: hold the openers' lock
        // throughout (without waiting: a process opening right now makes the store in use).
        guard openLock.tryLockExclusive() else {
            throw StorageError.storeInUse(path: directory.path, operation: "compact")
        }
        defer { openLock.unlock() }
        // A failed conversion may drop the shared lock (flock is not atomic here): retake it either way.
        let exclusive = usersLock.tryUpgrade()
        defer { usersLock.lockShared() }
        guard exclusive else {
            throw StorageError.storeInUse(path: directory.path, operation: "compact")
        }
        guard case let .compacted(before, after) = try await core.writer.submit(.compact) else { return (0, 0) }
        return (before, after)
    }
}
