import Foundation

/// The binary form of an entry's metadata that LMDB keeps beside the blob, so that a read needs
/// no SQLite lookup. Versioned by its first byte, which names the store's one record layout (see
/// ``StoreInfo/currentFormat``); bytes of any other version read as damaged records.
/// `package` so that the package's fuzz target can reach the decoder.
package enum EntryRecord {
    static let version: UInt8 = 2

    private enum Field: UInt16, CaseIterable {
        case expiresAt, etag, lastModified, responseDate, contentType, format
        case pixelWidth, pixelHeight, cost, responseHeaders
        /// The entry this one was derived from (see ``EntrySource``).
        case source
        /// The number of the entry's blob in the blob log (see ``BlobLocation``), always the
        /// record's last 8 bytes. Set by the writer, which numbers blobs as it commits.
        case blobNumber
        /// The entry's bytes follow the record in its record log value (see ``BlobLocation``), and
        /// the record names its own number. No bytes of its own in the record.
        case bytesFollow

        /// The field's bit in the record's presence mask.
        var bit: UInt16 { 1 << rawValue }
    }

    package static func encode(_ metadata: EntryMetadata) -> [UInt8] {
        var writer = ByteWriter()
        let attributes = metadata.attributes
        writer.append(version)
        writer.appendBytes(Array(metadata.key.utf8))
        writer.append(UInt64(metadata.byteCount))
        writer.append(metadata.checksum)
        writer.append(metadata.storedAt.millisecondsSince1970)
        var present: UInt16 = 0
        func mark(_ field: Field, _ isPresent: Bool) { if isPresent { present |= field.bit } }
        mark(.expiresAt, attributes.expiresAt != nil)
        mark(.etag, attributes.etag != nil)
        mark(.lastModified, attributes.lastModified != nil)
        mark(.responseDate, attributes.responseDate != nil)
        mark(.contentType, attributes.contentType != nil)
        mark(.format, attributes.format != nil)
        mark(.pixelWidth, attributes.pixelWidth != nil)
        mark(.pixelHeight, attributes.pixelHeight != nil)
        mark(.cost, attributes.cost != nil)
        mark(.responseHeaders, attributes.responseHeaders != nil)
        mark(.source, metadata.source != nil)
        writer.append(present)
        if let value = attributes.expiresAt { writer.append(value.millisecondsSince1970) }
        if let value = attributes.etag { writer.appendBytes(Array(value.utf8)) }
        if let value = attributes.lastModified { writer.appendBytes(Array(value.utf8)) }
        if let value = attributes.responseDate { writer.append(value.millisecondsSince1970) }
        if let value = attributes.contentType { writer.appendBytes(Array(value.utf8)) }
        if let value = attributes.format { writer.appendBytes(Array(value.utf8)) }
        if let value = attributes.pixelWidth { writer.append(Int64(value)) }
        if let value = attributes.pixelHeight { writer.append(Int64(value)) }
        if let value = attributes.cost { writer.append(Int64(value)) }
        if let value = attributes.responseHeaders { writer.appendBytes(Array(value)) }
        if let source = metadata.source {
            writer.appendBytes(Array(source.key.utf8))
            writer.append(source.checksum)
        }
        return writer.bytes
    }

    /// Decodes a record; nil when the bytes are not a record of this layout.
    package static func decode(_ buffer: UnsafeRawBufferPointer) -> EntryMetadata? {
        decode(buffer, knownKey: nil)
    }

    /// Decodes a record as `decode(_:)` does; `knownKey`, a key the caller holds, is the metadata's
    /// when the record's is the same bytes: a read that has just compared them makes no second
    /// string of the key.
    static func decode(_ buffer: UnsafeRawBufferPointer, knownKey: String?) -> EntryMetadata? {
        var reader = ByteReader(buffer)
        guard reader.readUInt8() == version, let keyBytes = reader.readSlice(),
            let byteCount = reader.readUInt64(),
            let checksum = reader.readUInt64(),
            let storedAt = reader.readInt64(),
            let present = reader.readUInt16()
        else { return nil }
        let key =
            if let knownKey, Self.bytes(keyBytes, areUTF8Of: knownKey) { knownKey } else {
                String(decoding: keyBytes, as: UTF8.self)
            }
        func has(_ field: Field) -> Bool { present & field.bit != 0 }
        var attributes = EntryAttributes()
        var ok = true
        func int64(_ field: Field) -> Int64? {
            guard has(field) else { return nil }
            guard let value = reader.readInt64() else { ok = false; return nil }
            return value
        }
        func string(_ field: Field) -> String? {
            guard has(field) else { return nil }
            guard let value = reader.readString() else { ok = false; return nil }
            return value
        }
        attributes.expiresAt = int64(.expiresAt).map(Date.init(millisecondsSince1970:))
        attributes.etag = string(.etag)
        attributes.lastModified = string(.lastModified)
        attributes.responseDate = int64(.responseDate).map(Date.init(millisecondsSince1970:))
        attributes.contentType = string(.contentType)
        attributes.format = string(.format)
        attributes.pixelWidth = int64(.pixelWidth).map { Int($0) }
        attributes.pixelHeight = int64(.pixelHeight).map { Int($0) }
        attributes.cost = int64(.cost).map { Int($0) }
        if has(.responseHeaders) {
            guard let bytes = reader.readBytes() else { return nil }
            attributes.responseHeaders = Data(bytes)
        }
        var source: EntrySource?
        if has(.source) {
            guard let key = reader.readString(), let checksum = reader.readUInt64() else { return nil }
            source = EntrySource(key: key, checksum: checksum)
        }
        if has(.blobNumber) {
            guard reader.readUInt64() != nil else { return nil }
        }
        // `.bytesFollow` has no bytes in the record: the entry's follow it (see `split(logged:)`).
        guard ok, reader.isAtEnd, byteCount <= UInt64(Int.max) else { return nil }
        let stored = Date(millisecondsSince1970: storedAt)
        return EntryMetadata(
            key: key, byteCount: Int(byteCount), checksum: checksum, storedAt: stored, lastAccess: stored,
            attributes: attributes, source: source)
    }

    /// The number of the entry's blob in the blob log, if the record names one (see ``BlobLocation``).
    /// Reads the fixed head and the last 8 bytes only, so a record damaged between them still names it.
    static func blobNumber(in buffer: UnsafeRawBufferPointer) -> UInt64? {
        guard let head = Head(buffer), head.has(.blobNumber),
            buffer.count >= head.byteCount + 8
        else { return nil }
        return UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: buffer.count - 8, as: UInt64.self))
    }

    /// `record` naming blob `number` in the blob log (replacing a number it named already), or,
    /// when `bytesFollow`, its own number in the record log, the entry's bytes following it there.
    static func naming(blobNumber number: UInt64, in record: [UInt8], bytesFollow: Bool = false) -> [UInt8] {
        var bytes = record
        if bytes.withUnsafeBytes({ blobNumber(in: $0) }) != nil { bytes.removeLast(8) }
        guard let head = bytes.withUnsafeBytes({ Head($0) }) else { return record }
        let follow = Field.bytesFollow.bit
        let mask = (head.present | Field.blobNumber.bit) & ~follow | (bytesFollow ? follow : 0)
        withUnsafeBytes(of: mask.littleEndian) { bytes.replaceSubrange(head.byteCount - 2..<head.byteCount, with: $0) }
        withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Whether the entry's bytes follow the record in its record log value (see ``BlobLocation``).
    static func bytesFollow(in buffer: UnsafeRawBufferPointer) -> Bool {
        Head(buffer)?.has(.bytesFollow) ?? false
    }

    /// A record log value's record and, when they follow it, the entry's bytes: its last
    /// `byteCount` bytes, as the record's head says. Bytes said to follow but cut short are nil,
    /// and the whole value is the record: a read then finds the entry damaged.
    package static func split(logged value: UnsafeRawBufferPointer) -> (
        record: UnsafeRawBufferPointer, bytes: UnsafeRawBufferPointer?
    ) {
        guard let head = Head(value), head.has(.bytesFollow),
            head.entryBytes <= UInt64(value.count - head.byteCount)
        else { return (value, nil) }
        let recordEnd = value.count - Int(head.entryBytes)
        return (UnsafeRawBufferPointer(rebasing: value[..<recordEnd]), UnsafeRawBufferPointer(rebasing: value[recordEnd...]))
    }

    /// Reads only the entry's size, from the record's fixed head: a deletion needs no more, and
    /// decoding the whole record (strings, headers) for it was a tenth of evicting small entries.
    static func byteCount(in buffer: UnsafeRawBufferPointer) -> Int? {
        Head(buffer).flatMap { $0.entryBytes <= UInt64(Int.max) ? Int($0.entryBytes) : nil }
    }

    /// Reads only the stored-at time, from the record's fixed head (see ``IndexRowKey``).
    static func storedAt(in buffer: UnsafeRawBufferPointer) -> Date? {
        Head(buffer).map { Date(millisecondsSince1970: $0.storedAt) }
    }

    /// The fields before the first optional one (version, key, byte count, checksum, stored-at, the
    /// presence mask), for the accessors that read no further.
    private struct Head {
        /// The entry's size in bytes.
        let entryBytes: UInt64
        let storedAt: Int64
        let present: UInt16
        /// Where the optional fields begin.
        let byteCount: Int

        func has(_ field: Field) -> Bool { present & field.bit != 0 }

        init?(_ buffer: UnsafeRawBufferPointer) {
            var reader = ByteReader(buffer)
            guard reader.readUInt8() == EntryRecord.version, let key = reader.readSlice(),
                let entryBytes = reader.readUInt64(), reader.readUInt64() != nil, let storedAt = reader.readInt64(),
                let present = reader.readUInt16()
            else { return nil }
            self.entryBytes = entryBytes
            self.storedAt = storedAt
            self.present = present
            byteCount = 1 + 4 + key.count + 8 + 8 + 8 + 2
        }
    }

    /// Reads only the key, for the collision check on the hot read path.
    package static func key(in buffer: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var reader = ByteReader(buffer)
        guard reader.readUInt8() == version else { return nil }
        return reader.readSlice()
    }

    /// Whether the record in `buffer` is `key`'s (the collision check on the hot read path).
    static func isRecord(_ buffer: UnsafeRawBufferPointer, of key: String) -> Bool {
        guard let stored = self.key(in: buffer) else { return false }
        return bytes(stored, areUTF8Of: key)
    }

    /// Whether `bytes` are `string`'s UTF-8, compared as memory: a generic comparison of the
    /// string's UTF-8 view goes element by element, a visible part of a read of a small entry.
    private static func bytes(_ bytes: UnsafeRawBufferPointer, areUTF8Of string: String) -> Bool {
        var string = string
        return string.withUTF8 { utf8 in
            utf8.count == bytes.count && (utf8.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, utf8.count) == 0)
        }
    }
}

/// Appends fixed-width little-endian integers and length-prefixed byte strings.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func append<Integer: FixedWidthInteger>(_ value: Integer) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func appendBytes(_ value: [UInt8]) {
        append(UInt32(value.count))
        bytes.append(contentsOf: value)
    }
}

/// Reads what ``ByteWriter`` wrote, returning nil instead of reading past the end.
struct ByteReader {
    private let buffer: UnsafeRawBufferPointer
    private var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var isAtEnd: Bool { offset == buffer.count }

    private mutating func read<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
        let size = MemoryLayout<Integer>.size
        guard offset + size <= buffer.count else { return nil }
        defer { offset += size }
        return Integer(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Integer.self))
    }

    mutating func readUInt8() -> UInt8? { read(UInt8.self) }
    mutating func readUInt16() -> UInt16? { read(UInt16.self) }
    mutating func readUInt64() -> UInt64? { read(UInt64.self) }
    mutating func readInt64() -> Int64? { read(Int64.self) }

    mutating func readSlice() -> UnsafeRawBufferPointer? {
        guard let length = read(UInt32.self).map(Int.init), offset + length <= buffer.count else { return nil }
        defer { offset += length }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + length)])
    }

    mutating func readBytes() -> [UInt8]? { readSlice().map { Array($0) } }

    mutating func readString() -> String? {
        readSlice().map { String(decoding: $0, as: UTF8.self) }
    }
}
