/// What the first bytes of a download say about the image, from ``ImageValidator/inspectPrefix(_:)``.
///
/// A loader inspects each chunk it receives until the verdict is not ``needMoreBytes``, and cancels
/// the download on ``refused(_:)`` before a decompression bomb or an error page is fetched in full.
public enum PrefixVerdict: Sendable, Equatable {
    /// The prefix ends before the format and size are known; inspect again with more bytes.
    case needMoreBytes
    /// The prefix already shows the data must be refused.
    case refused(ImageValidationError)
    /// The header is valid and within the limits; the rest still needs ``ImageValidator/validate(_:)``.
    case accepted(ImageInfo)
}
