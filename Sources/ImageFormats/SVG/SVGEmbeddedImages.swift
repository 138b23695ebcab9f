import Foundation

/// The raster images an SVG embeds as `data:` URIs (`<image href="data:image/png;base64,...">`),
/// validated like any downloaded image before a renderer decodes them: a renderer decodes each at
/// its own size, whatever size the document draws it at, so a 100×100 document can carry a
/// 20000×20000 image.
///
/// Their pixels together are held to the pixel limit, and an SVG inside an SVG is refused (it
/// would be validated, and rendered, recursively). Each is validated to the end of its structure
/// (its header, its pixel limit, its metadata and HEIF grid budgets, its chunks and boxes), but its
/// compressed pixels are not inflated: a document may embed many images up to the pixel limit
/// together, and inflating them all would cost what decoding them does.
struct SVGEmbeddedImages {
    private let limits: ValidationLimits
    /// The pixels of the images checked so far, together.
    private(set) var pixelCount = 0

    init(limits: ValidationLimits) {
        self.limits = limits
    }

    /// Whether an attribute's value is a `data:` URI (which may name an image).
    static func isDataURI(_ value: String) -> Bool {
        value.utf8.prefix(5).elementsEqual("data:".utf8)
    }

    /// Validates the image the `data:` URI `value` holds, and counts its pixels.
    mutating func check(_ value: String) throws(ParseFailure) {
        guard let bytes = Self.payload(of: value) else {
            throw refusal("a data: URI whose payload is not valid base64 or percent-encoding")
        }
        switch FormatSniffer.classify(bytes, isComplete: true) {
        case .image(.svg):
            throw refusal("an SVG image as a data: URI, which would be rendered inside this one")
        case let .refused(error):
            throw refusal("a data: URI that is not an image it accepts (\(error.detail))")
        case .needMoreBytes:
            throw refusal("a data: URI of \(bytes.count) bytes, too short for any image")
        case .image:
            break
        }
        let remaining = limits.maxPixelCount - pixelCount
        do {
            let info = try ImageValidator(limits: limits, maxPixelCount: max(remaining, 0)).validate(Data(bytes))
            pixelCount += info.pixelCount
        } catch {
            if case let .tooManyPixels(format, width, height, _) = error {
                throw refusal(
                    "a \(format.displayName) image of \(width)x\(height) pixels as a data: URI, which with the images before it is over the limit of \(limits.maxPixelCount) pixels")
            }
            throw refusal("a data: URI image that is refused: \(error.detail)")
        }
    }

    private func refusal(_ what: String) -> ParseFailure {
        .refused(.refusedContent(format: .svg, reason: "it embeds \(what)"))
    }

    /// The bytes a `data:[<media type>][;base64],<data>` URI holds, or nil when they cannot be decoded.
    static func payload(of uri: String) -> [UInt8]? {
        let bytes = Array(uri.utf8)
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")) else { return nil }
        let header = String(decoding: bytes[5..<comma], as: UTF8.self).lowercased()
        let data = bytes[(comma + 1)...]
        if header.hasSuffix(";base64") {
            return Data(base64Encoded: Data(data.filter { !XMLProlog.isXMLSpace($0) })).map { [UInt8]($0) }
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(data.count)
        var index = data.startIndex
        while index < data.endIndex {
            if data[index] == UInt8(ascii: "%") {
                guard index + 2 < data.endIndex, let high = hexValue(data[index + 1]), let low = hexValue(data[index + 2]) else { return nil }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(data[index])
                index += 1
            }
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
