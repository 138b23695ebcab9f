import Foundation
import ImageDecoding
import LoopbackOrigin

/// Images the decoding suites make themselves, so they run on a clone without `../shared`.
enum GeneratedImages {
    /// A PNG whose every pixel is `color(x, y)`.
    static func png(width: Int, height: Int, color: (Int, Int) -> (UInt8, UInt8, UInt8)) -> Data {
        PNGEncoder.encode(width: width, height: height, pixel: color)
    }

    /// Four coloured quadrants (red, green / blue, white): upright only one way, and far enough
    /// apart that JPEG's loss cannot mistake one for another.
    static func quadrant(x: Int, y: Int, width: Int, height: Int) -> (UInt8, UInt8, UInt8) {
        switch (x < width / 2, y < height / 2) {
        case (true, true): (255, 0, 0)
        case (false, true): (0, 255, 0)
        case (true, false): (0, 0, 255)
        case (false, false): (255, 255, 255)
        }
    }

    /// A JPEG whose stored pixels, shown with EXIF `orientation`, are the upright `width` × `height`
    /// quadrant image: stored as the inverse of the orientation's transform, tagged with it.
    static func orientedJPEG(orientation: Int, width: Int, height: Int) throws -> Data {
        let swaps = orientation >= 5
        let (storedWidth, storedHeight) = swaps ? (height, width) : (width, height)
        var pixels = Data(count: storedWidth * storedHeight * 4)
        pixels.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            for storedY in 0..<storedHeight {
                for storedX in 0..<storedWidth {
                    let (x, y) = upright(storedX, storedY, orientation: orientation, storedWidth, storedHeight)
                    let (r, g, b) = quadrant(x: x, y: y, width: width, height: height)
                    let offset = (storedY * storedWidth + storedX) * 4
                    (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]) = (r, g, b, 255)
                }
            }
        }
        let stored = DecodedImage(
            pixelWidth: storedWidth, pixelHeight: storedHeight, pixelFormat: .rgba8, bytesPerRow: storedWidth * 4,
            pixels: pixels)
        let jpeg = try PlatformImageEncoder().encode(stored, as: .jpeg, quality: 95)
        return withOrientation(jpeg, orientation)
    }

    /// Where stored pixel (`x`, `y`) lands when the image is shown with EXIF `orientation` (TIFF 6.0
    /// tag 274): 1 as stored, 2 mirrored, 3 turned half way, 4 flipped, 5 transposed, 6 turned a
    /// quarter clockwise, 7 transversed, 8 turned a quarter anticlockwise.
    static func upright(_ x: Int, _ y: Int, orientation: Int, _ width: Int, _ height: Int) -> (Int, Int) {
        switch orientation {
        case 2: (width - 1 - x, y)
        case 3: (width - 1 - x, height - 1 - y)
        case 4: (x, height - 1 - y)
        case 5: (y, x)
        case 6: (height - 1 - y, x)
        case 7: (height - 1 - y, width - 1 - x)
        case 8: (y, width - 1 - x)
        default: (x, y)
        }
    }

    /// `jpeg` with an APP1 EXIF segment holding only the orientation, right after its SOI marker.
    static func withOrientation(_ jpeg: Data, _ orientation: Int) -> Data {
        // "Exif\0\0", a little-endian TIFF header, one IFD entry: tag 0x0112, SHORT, count 1, value.
        let tiff: [UInt8] =
            [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00]
            + [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, UInt8(orientation), 0x00, 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return jpeg.prefix(2) + Data(segment) + jpeg.dropFirst(2)
    }
}
