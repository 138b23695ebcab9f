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

    /// A bounds-checked cursor: every read returns nil instead of trapping on short input.
    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func read(count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= remaining else { return nil }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func readVarint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = read(count: 1)?.first {
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
                let slice = read(count: Int(length))
            else { return nil }
            return String(bytes: slice, encoding: .utf8)
        }
    }
}
