/// One journaled change: the digest a transaction touched, and the index rows it left behind.
///
/// Replay reads the digest's current record for the row to write (see ``StoreMirror``); the rows a
/// deletion or a replacement by newer bytes left behind cannot be read from a record that is gone
/// or changed, so the item names them by their stored-at times (see ``IndexRowKey``).
///
/// Stored as the 16-byte digest, a format byte (1), then each left-behind stored-at time as 8
/// bytes.
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

    /// Decodes an item; nil for bytes that are not one.
    static func decode(_ value: UnsafeRawBufferPointer) -> JournalItem? {
        guard value.count > KeyDigest.byteCount,
            let digest = KeyDigest(bytes: UnsafeRawBufferPointer(rebasing: value[..<KeyDigest.byteCount]))
        else { return nil }
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: value[KeyDigest.byteCount...]))
        guard reader.readUInt8() == format else { return nil }
        var item = JournalItem(digest: digest)
        while !reader.isAtEnd {
            guard let storedAt = reader.readInt64() else { return nil }
            item.rowsLeft.append(storedAt)
        }
        return item
    }
}
