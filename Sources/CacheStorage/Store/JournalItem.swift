/// One journaled change: the digest a transaction touched, and the index rows it left behind.
///
/// Replay reads the digest's current record for the row to write (see ``StoreMirror``); the rows a
/// deletion or a replacement by newer bytes left behind cannot be read from a record that is gone
/// or changed, so the item names them by their stored-at times (see ``IndexRowKey``).
///
/// Stored as the 16-byte digest, a format byte (1), then each left-behind stored-at time as 8
/// bytes. A bare 16-byte digest was written by a version that keyed rows by digest alone: it
/// cannot name the rows it removed, so its presence makes the index rebuild.
struct JournalItem: Equatable {
    let digest: KeyDigest
    var rowsLeft: [Int64] = []

    private static let format: UInt8 = 1

    /// Replaces `bytes` with the encoded item: a journal of thousands of items reuses one buffer.
    func encode(into bytes: inout [UInt8]) {
        bytes.removeAll(keepingCapacity: true)
        digest.withBytes { bytes.append(contentsOf: $0) }
        bytes.append(Self.format)
        for storedAt in rowsLeft { withUnsafeBytes(of: storedAt.littleEndian) { bytes.append(contentsOf: $0) } }
    }

    /// Decodes an item; `.legacy` for a bare digest, nil for anything else this version cannot read.
    static func decode(_ value: UnsafeRawBufferPointer) -> Decoded? {
        guard value.count >= KeyDigest.byteCount,
            let digest = KeyDigest(bytes: UnsafeRawBufferPointer(rebasing: value[..<KeyDigest.byteCount]))
        else { return nil }
        if value.count == KeyDigest.byteCount { return .legacy(digest) }
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: value[KeyDigest.byteCount...]))
        guard reader.readUInt8() == format else { return nil }
        var item = JournalItem(digest: digest)
        while !reader.isAtEnd {
            guard let storedAt = reader.readInt64() else { return nil }
            item.rowsLeft.append(storedAt)
        }
        return .item(item)
    }

    enum Decoded {
        case item(JournalItem)
        case legacy(KeyDigest)

        var digest: KeyDigest {
            switch self {
            case let .item(item): item.digest
            case let .legacy(digest): digest
            }
        }
    }
}
