/// How far validation got before it refused a file, earliest first.
///
/// A loader can act on the stage: a `sniff` refusal means the server sent something else (an error
/// page), a `policy` refusal means the image is genuine but too big, a `structure` refusal usually
/// means a broken or interrupted download.
public enum ValidationStage: Int, Sendable, Comparable, CaseIterable {
    /// The magic bytes match no supported format.
    case sniff
    /// The header that gives the size is missing or invalid.
    case header
    /// The header is valid but the image breaks a limit (pixel count, expansion, entities).
    case policy
    /// Walking the chunks, markers, blocks or boxes found a bad length, checksum or missing end.
    case structure

    /// Whether `lhs` comes before `rhs` in validation.
    public static func < (lhs: ValidationStage, rhs: ValidationStage) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
