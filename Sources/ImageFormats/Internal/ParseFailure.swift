/// Why a format parser stopped, before the validator knows which stage it was in.
///
/// The same parser code reads a download prefix and a complete file, so "the bytes ran out" only
/// becomes "need more bytes" or "truncated" once the validator knows which it was given.
enum ParseFailure: Error {
    /// The available bytes end before what the parser was reading.
    case needMoreBytes
    /// The bytes contradict the format; the validator words it as a header or structure error.
    case malformed(String)
    /// A specific refusal the parser already worded (a pixel limit, a precise truncation).
    case refused(ImageValidationError)
}

extension ParseFailure {
    /// The failure as the validator words it for a walk of the whole file, `byteCount` bytes long:
    /// running out of bytes there means the file is cut short.
    func structureError(format: ImageFormat, byteCount: Int) -> ImageValidationError {
        switch self {
        case .needMoreBytes: .truncated(format: format, reason: "the data ends after \(byteCount) bytes, before the image does")
        case let .malformed(reason): .corruptStructure(format: format, reason: reason)
        case let .refused(refusal): refusal
        }
    }
}
