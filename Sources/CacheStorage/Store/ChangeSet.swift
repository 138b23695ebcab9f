import Foundation

/// Applies entry operations inside one LMDB write transaction and remembers what they touched,
/// so the caller can journal those digests in the same transaction.
struct ChangeSet {
    let txn: LMDBTransaction
    let databases: BlobStore.Databases
    private(set) var touched: [KeyDigest] = []
    private var seen = Set<KeyDigest>()

    init(txn: LMDBTransaction, databases: BlobStore.Databases) {
        self.txn = txn
        self.databases = databases
    }

    mutating func apply(_ operation: WriteOperation) throws -> WriteOutcome {
        switch operation {
        case let .put(entries):
            for entry in entries { try put(entry) }
            return .done
        case let .update(key, attributes):
            return .found(try update(key: key, attributes: attributes))
        case let .remove(keys):
            var entries = 0
            var bytes = 0
            for key in keys {
                let digest = KeyDigest(key: key)
                guard try storedKey(digest) == key, let size = try delete(digest) else { continue }
                entries += 1
                bytes += size
            }
            return .removed(entries: entries, bytes: bytes)
        case let .removeIfDamaged(digests):
            var entries = 0
            var bytes = 0
            for digest in digests where try isDamaged(digest) {
                entries += 1
                bytes += try delete(digest) ?? 0
            }
            return .removed(entries: entries, bytes: bytes)
        case .removeAll, .evict, .flush, .rebuildIndex, .compact:
            return .done
        }
    }

    private mutating func put(_ entry: PreparedPut) throws {
        try entry.digest.withBytes { key in
            try entry.record.withUnsafeBytes { try txn.put(databases.records, key: key, value: $0) }
            try entry.data.withUnsafeBytes { try txn.put(databases.blobs, key: key, value: $0) }
        }
        touch(entry.digest)
    }

    private mutating func update(key: String, attributes: EntryAttributes) throws -> Bool {
        let digest = KeyDigest(key: key)
        let record = try digest.withBytes { try txn.get(databases.records, key: $0) }
        guard let record, var metadata = EntryRecord.decode(record), metadata.key == key else { return false }
        metadata.attributes = attributes
        let encoded = EntryRecord.encode(metadata)
        try digest.withBytes { digestBytes in
            try encoded.withUnsafeBytes { try txn.put(databases.records, key: digestBytes, value: $0) }
        }
        touch(digest)
        return true
    }

    /// Deletes record and blob; returns the record's byte count when there was an entry.
    mutating func delete(_ digest: KeyDigest) throws -> Int? {
        let size: Int? = try digest.withBytes { key in
            let record = try txn.get(databases.records, key: key)
            let size = record.flatMap(EntryRecord.decode)?.byteCount ?? (record == nil ? nil : 0)
            let hadRecord = try txn.delete(databases.records, key: key)
            let hadBlob = try txn.delete(databases.blobs, key: key)
            return hadRecord || hadBlob ? (size ?? 0) : nil
        }
        if size != nil { touch(digest) }
        return size
    }

    private func storedKey(_ digest: KeyDigest) throws -> String? {
        let record = try digest.withBytes { try txn.get(databases.records, key: $0) }
        return record.flatMap(EntryRecord.key(in:)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A record that does not decode, a missing blob, or bytes that do not match the record.
    private func isDamaged(_ digest: KeyDigest) throws -> Bool {
        try digest.withBytes { key in
            let record = try txn.get(databases.records, key: key)
            let blob = try txn.get(databases.blobs, key: key)
            guard let record else { return blob != nil }
            guard let metadata = EntryRecord.decode(record), KeyDigest(key: metadata.key) == digest, let blob else {
                return true
            }
            return blob.count != metadata.byteCount || XXHash64.hash(blob) != metadata.checksum
        }
    }

    private mutating func touch(_ digest: KeyDigest) {
        if seen.insert(digest).inserted { touched.append(digest) }
    }
}
