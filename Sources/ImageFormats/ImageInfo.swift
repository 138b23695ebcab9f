/// What the validator learnt about an image without decoding its pixels.
public struct ImageInfo: Sendable, Hashable {
    /// The format, from the bytes themselves.
    public var format: ImageFormat
    /// The stored width in pixels, before any EXIF rotation: for ICO the largest entry, for SVG its
    /// `width` in CSS pixels (or the `viewBox`), for an animation its canvas.
    public var pixelWidth: Int
    /// The stored height in pixels, measured like ``pixelWidth``.
    public var pixelHeight: Int
    /// Whether the image has more than one frame to play: from ``ImageValidator/validate(_:)`` a count,
    /// from a header alone a hint (a GIF looping extension, the WebP animation flag).
    public var isAnimated: Bool
    /// Frames (GIF, animated WebP or PNG), pages (TIFF) or entries (ICO), 1 for a still image;
    /// nil when only the header was read and it does not say.
    public var frameCount: Int?

    /// Describes an image.
    public init(format: ImageFormat, pixelWidth: Int, pixelHeight: Int, isAnimated: Bool = false, frameCount: Int? = nil) {
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.isAnimated = isAnimated
        self.frameCount = frameCount
    }

    /// Width × height, the figure ``ImageValidator/maxPixelCount`` limits (`Int.max` if that overflows).
    public var pixelCount: Int {
        let (product, overflow) = pixelWidth.multipliedReportingOverflow(by: pixelHeight)
        return overflow ? .max : product
    }
}
