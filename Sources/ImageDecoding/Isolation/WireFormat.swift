import Foundation

/// The bytes a decode job and its reply travel as between the app and a decode worker: integers
/// little-endian, strings and byte runs length-prefixed. Both ends are this package's own code,
/// built together, so the format carries a version and nothing else that negotiates.
struct WireWriter {
    private(set) var bytes = Data()

    mutating func integer(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        integer(utf8.count)
        bytes.append(contentsOf: utf8)
    }

    mutating func data(_ value: Data) {
        integer(value.count)
        bytes.append(value)
    }
}

/// Reads what ``WireWriter`` wrote; nil for anything malformed (a worker that died mid-reply).
struct WireReader {
    private let bytes: Data
    private var offset: Int

    init(_ bytes: Data) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    var isAtEnd: Bool { offset == bytes.endIndex }

    mutating func integer() -> Int? {
        guard bytes.endIndex - offset >= 8 else { return nil }
        var value: Int64 = 0
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes[offset..<offset + 8]) }
        offset += 8
        return Int(Int64(littleEndian: value))
    }

    mutating func string() -> String? {
        guard let run = data() else { return nil }
        return String(decoding: run, as: UTF8.self)
    }

    mutating func data() -> Data? {
        guard let count = integer(), count >= 0, bytes.endIndex - offset >= count else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }
}
