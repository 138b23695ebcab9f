import Foundation

/// The bytes every test entry must hold, derived from its key `<prefix>/<n>/<length>`, so any
/// process can check an entry it did not write. Tests/CacheStorageTests/TestPayload.swift is the twin.
enum Payload {
    static func key(prefix: String, number: Int, length: Int) -> String { "\(prefix)/\(number)/\(length)" }

    static func bytes(for key: String) -> Data? {
        let parts = key.split(separator: "/")
        guard parts.count >= 3, let number = Int(parts[parts.count - 2]), let length = Int(parts[parts.count - 1]) else { return nil }
        return Data((0..<length).map { index in
            var mixed = UInt64(index | number << 32) &* 0x9E37_79B9_7F4A_7C15
            mixed = (mixed ^ (mixed >> 29)) &* 0xBF58_476D_1CE4_E5B9
            return UInt8(truncatingIfNeeded: mixed >> 56)
        })
    }
}
