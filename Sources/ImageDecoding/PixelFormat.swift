/// How a decoded pixel's bytes are laid out.
public enum PixelFormat: Sendable, Hashable {
    /// Red, green, blue, alpha: one byte each, alpha straight (not premultiplied). Linux's decoder
    /// produces this.
    case rgba8
    /// Blue, green, red, alpha: one byte each, colour premultiplied by alpha, as Core Graphics
    /// draws fastest. Apple's decoder produces this.
    case bgra8Premultiplied

    /// Bytes per pixel.
    public var bytesPerPixel: Int { 4 }
}
