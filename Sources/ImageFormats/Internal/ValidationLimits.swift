/// The limits a parser enforces while it reads, so a bomb is refused as soon as its size is known.
struct ValidationLimits: Sendable {
    /// The largest width × height accepted for the image and for each of its frames.
    let maxPixelCount: Int
    /// The largest SVG document, in bytes after gzip is undone.
    let svgByteLimit: Int
    /// The most bytes a PNG's compressed metadata chunks may inflate to, together.
    let inflatedMetadataByteLimit: Int
    /// Whether the walk also checks what only decoding would otherwise show: compressed image data
    /// (PNG's zlib stream, GIF's LZW codes) and what an SVG would cost to render.
    var checksImageData = false

    /// Most frames, pages, IFDs or items a walk will visit: real files have far fewer,
    /// and the cap keeps a crafted file from making a walk slow.
    static let maxFrameCount = 100_000

    /// Most tiles (or overlaid images) a HEIF grid or overlay may combine: 1024, well above the
    /// 382 tiles of 512×512 that a 100-megapixel image needs. Each is a separate decode.
    static let maxDerivedImageInputs = 1024

    /// Refuses `width` × `height` when it is over the pixel limit (or overflows `Int`).
    func checkPixels(_ format: ImageFormat, width: Int, height: Int) throws(ParseFailure) {
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixelCount > maxPixelCount {
            throw .refused(.tooManyPixels(format: format, width: width, height: height, limit: maxPixelCount))
        }
    }
}
