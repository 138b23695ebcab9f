import Foundation

/// The byte-level pieces shared by the ``HeaderFields`` and ``StoredResponse`` encodings:
/// LEB128 varints and length-prefixed UTF-8.
enum HTTPBlobCoding {
    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var remaining = value
        repeat {
            let low = UInt8(remaining & 0x7F)
            remaining >>= 7
            bytes.append(remaining == 0 ? low : low | 0x80)
        } while remaining != 0
    }

    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        appendVarint(UInt64(utf8.count), to: &bytes)
        bytes.append(contentsOf: utf8)
    }

    /// A bounds-checked cursor over borrowed bytes: every read returns nil instead of trapping on
    /// short input. It reads in place (no slices, no reference counting per read), so it lives only
    /// inside the `withUnsafeBytes` call that lends it the bytes.
    struct Reader {
        private let bytes: UnsafeRawBufferPointer
        private(set) var offset: Int
        /// Where the readable bytes end: `bytes.count`, or earlier for a nested blob.
        let end: Int

        init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0, end: Int? = nil) {
            self.bytes = bytes
            self.offset = offset
            self.end = min(end ?? bytes.count, bytes.count)
        }

        var remaining: Int { end - offset }

        /// The next `count` bytes, consumed.
        mutating func read(count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, count <= remaining else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
        }

        /// Whether the next bytes are `expected`; consumes them if so.
        mutating func skip(_ expected: [UInt8]) -> Bool {
            guard let found = read(count: expected.count) else { return false }
            return found.elementsEqual(expected)
        }

        /// A reader over the next `count` bytes, which this one skips.
        mutating func nested(count: Int) -> Reader? {
            guard count >= 0, count <= remaining else { return nil }
            defer { offset += count }
            return Reader(bytes, offset: offset, end: offset + count)
        }

        mutating func readVarint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < end {
                let byte = bytes[offset]
                offset += 1
                // Ten 7-bit groups hold 64 bits; a longer varint is corrupt.
                guard shift < 64 else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }

        mutating func readString() -> String? {
            guard let length = readVarint(), length <= UInt64(remaining),
                let raw = read(count: Int(length))
            else { return nil }
            // Decoding from a buffer is the standard library's specialised fast path; the validating
            // initialisers are generic and, unspecialised here, cost most of decoding a stored
            // response. Invalid UTF-8 is still refused: it would come back repaired, not equal.
            let buffer = raw.assumingMemoryBound(to: UInt8.self)
            let decoded = String(decoding: buffer, as: UTF8.self)
            if buffer.allSatisfy({ $0 < 0x80 }) { return decoded }
            return decoded.utf8.elementsEqual(buffer) ? decoded : nil
        }
    }
}
