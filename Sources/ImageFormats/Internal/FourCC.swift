/// Four-character codes as text for messages.
enum FourCC {
    /// The code as printable text, with non-printable bytes shown as `?`.
    static func text(_ bytes: some Collection<UInt8>) -> String {
        String(bytes.map { (0x20...0x7E).contains($0) ? Character(UnicodeScalar($0)) : "?" })
    }
}
