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
    /// The bytes one pixel takes when decoded at the depth the file declares: channels × bytes per
    /// sample (a 16-bit RGBA PNG 8, a palette PNG 4 once expanded to RGBA, a 16-bit RGB TIFF 6); nil
    /// when the file does not say, or only the header was read.
    public var bytesPerPixel: Int?
    /// The pixels of the raster images an SVG embeds as `data:` URIs, together, which a renderer
    /// decodes at their own size whatever size it draws them at; 0 for other formats, and when the
    /// document was not validated for decoding.
    public var embeddedPixelCount: Int

    /// Describes an image.
    public init(
        format: ImageFormat, pixelWidth: Int, pixelHeight: Int, isAnimated: Bool = false, frameCount: Int? = nil,
        bytesPerPixel: Int? = nil, embeddedPixelCount: Int = 0
    ) {
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.isAnimated = isAnimated
        self.frameCount = frameCount
        self.bytesPerPixel = bytesPerPixel
        self.embeddedPixelCount = embeddedPixelCount
    }

    /// Width × height, the figure ``ImageValidator/maxPixelCount`` limits (`Int.max` if that overflows).
    public var pixelCount: Int {
        let (product, overflow) = pixelWidth.multipliedReportingOverflow(by: pixelHeight)
        return overflow ? .max : product
    }
}
