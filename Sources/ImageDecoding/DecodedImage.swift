import Foundation

/// An image decoded to pixels: upright (EXIF orientation applied), in sRGB, 8 bits per channel
/// with straight (not premultiplied) alpha, rows top to bottom.
///
/// The first frame of an animated image, with ``frameCount`` saying how many it has. What it costs
/// to keep is its pixels: ``cost``, what the memory tier charges.
public struct DecodedImage: Sendable, Hashable {
    /// Width in pixels, after orientation.
    public let pixelWidth: Int
    /// Height in pixels, after orientation.
    public let pixelHeight: Int
    /// How each pixel's bytes are laid out.
    public let pixelFormat: PixelFormat
    /// Bytes from the start of one row to the next.
    public let bytesPerRow: Int
    /// The pixels, `bytesPerRow × pixelHeight` bytes.
    public let pixels: Data
    /// Frames in the source (1 unless it is animated); ``pixels`` holds the first.
    public let frameCount: Int

    /// An image of `pixels` laid out as `pixelFormat`, `bytesPerRow` apart.
    public init(
        pixelWidth: Int, pixelHeight: Int, pixelFormat: PixelFormat, bytesPerRow: Int, pixels: Data, frameCount: Int = 1
    ) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.pixelFormat = pixelFormat
        self.bytesPerRow = bytesPerRow
        self.pixels = pixels
        self.frameCount = frameCount
    }

    /// What keeping the image in memory costs: the bytes of its pixels.
    public var cost: Int { pixels.count }

    /// The pixel at (`x`, `y`) as its four channels in ``pixelFormat``'s order.
    public func pixel(x: Int, y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        precondition(x >= 0 && x < pixelWidth && y >= 0 && y < pixelHeight, "pixel (\(x), \(y)) outside the image")
        let offset = y * bytesPerRow + x * pixelFormat.bytesPerPixel
        return pixels.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
        }
    }
}
