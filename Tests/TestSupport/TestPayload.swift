import Foundation

/// Checkable entry bytes derived from the key `<prefix>/<n>/<length>`, so any process (a test, or
/// the storage-worker it started) can check an entry it did not write.
public enum TestPayload {
    /// The key for payload `number` of `length` bytes.
    public static func key(prefix: String, number: Int, length: Int) -> String { "\(prefix)/\(number)/\(length)" }

    /// The bytes the entry for `key` must hold; nil when `key` is not of that form.
    public static func bytes(for key: String) -> Data? {
        let parts = key.split(separator: "/")
        guard parts.count >= 3, let number = Int(parts[parts.count - 2]), let length = Int(parts[parts.count - 1]) else { return nil }
        return Data((0..<length).map { index in
            var mixed = UInt64(index | number << 32) &* 0x9E37_79B9_7F4A_7C15
            mixed = (mixed ^ (mixed >> 29)) &* 0xBF58_476D_1CE4_E5B9
            return UInt8(truncatingIfNeeded: mixed >> 56)
        })
    }
}
