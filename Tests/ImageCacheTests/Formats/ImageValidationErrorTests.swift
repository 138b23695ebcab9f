import ImageCache
import Testing

/// Error stages, messages and the format vocabulary.
@Suite("Errors and formats")
struct ImageValidationErrorTests {
    static let errors: [ImageValidationError] = [
        .notAnImage(reason: "an HTML page"),
        .unsupportedFormat(name: "TGA"),
        .invalidHeader(format: .png, reason: "bad IHDR"),
        .tooManyPixels(format: .gif, width: 65535, height: 65535, limit: 100_000_000),
        .refusedContent(format: .svg, reason: "it declares XML entities"),
        .corruptStructure(format: .jpeg, reason: "a bad marker"),
        .truncated(format: .webp, reason: "the RIFF size is larger than the file"),
    ]

    @Test("each error has its stage, in validation order")
    func stages() {
        #expect(Self.errors.map(\.stage) == [.sniff, .sniff, .header, .policy, .policy, .structure, .structure])
        #expect(ValidationStage.sniff < .header && .header < .policy && .policy < .structure)
    }

    @Test("each message is a sentence that names the format and what to do")
    func messages() {
        for error in Self.errors {
            #expect(error.description.hasSuffix("."), "\(error)")
            #expect(error.description.contains(";"), "\(error) says what to do after a semicolon")
            #expect(error.errorDescription == error.description)
            if let format = error.format { #expect(error.description.uppercased().contains(format.rawValue.uppercased())) }
        }
        #expect(ImageValidationError.tooManyPixels(format: .gif, width: 65535, height: 65535, limit: 100_000_000).description.contains("4295 Mpx"))
    }

    @Test("formats have their extension and media type")
    func formats() {
        #expect(ImageFormat.allCases.count == 10)
        #expect(ImageFormat.jpeg.fileExtension == "jpg" && ImageFormat.jpeg.mimeType == "image/jpeg")
        #expect(ImageFormat.svg.mimeType == "image/svg+xml" && ImageFormat.avif.mimeType == "image/avif")
        #expect(ImageFormat(rawValue: "webp") == .webp)
    }
}
