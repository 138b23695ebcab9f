/// HMAC-SHA256 (RFC 2104): a keyed hash, so a fingerprint cannot be recomputed, or a short cookie
/// guessed from it offline, without the key.
enum HMACSHA256 {
    private static let blockBytes = 64

    /// The 32-byte authentication code of `message` under `key`.
    static func authenticationCode(_ message: some Collection<UInt8>, key: [UInt8]) -> [UInt8] {
        var block = key.count > blockBytes ? SHA256.digest(key) : key
        block += [UInt8](repeating: 0, count: blockBytes - block.count)
        let inner = SHA256.digest(block.map { $0 ^ 0x36 } + Array(message))
        return SHA256.digest(block.map { $0 ^ 0x5C } + inner)
    }
}
