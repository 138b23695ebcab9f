import Foundation
import ImageFormats

/// A BMP file's or an icon entry's pixels, decoded here from the layout the validator read: every
/// coding a DIB has (1- to 8-bit palettes, 16- and 32-bit channel masks, 24-bit, RLE8 and RLE4),
/// rows in either order, an icon's transparency mask. Written in Swift because libvips has no
/// loader of its own for either format, and the one it would fall back to (ImageMagick) is not
/// run on bytes from the network.
enum BitmapDecoder {
    /// The pixels of the bitmap `layout` describes within `bytes`, as RGBA with straight alpha,
    /// rows top to bottom.
    ///
    /// Alpha comes from a 16- or 32-bit bitmap's alpha channel unless that channel is zero
    /// everywhere (most 32-bit files leave it unused, and a picture no one could see is not what
    /// they mean), else from an icon's transparency mask, else the image is opaque.
    static func decode(_ bytes: [UInt8], _ layout: BitmapLayout, frameCount: Int = 1) throws(ImageDecodingError) -> DecodedImage {
        var pixels = Data(count: layout.width * layout.height * 4)
        let result = pixels.withUnsafeMutableBytes { buffer in
            Result { () throws(ImageDecodingError) in
                let output = RGBARows(buffer.bindMemory(to: UInt8.self), width: layout.width, height: layout.height)
                let hasAlpha: Bool
                switch layout.coding {
                case let .indexed(bitsPerPixel):
                    decodeIndexed(bytes, layout, bitsPerPixel: bitsPerPixel, into: output)
                    hasAlpha = false
                case let .packed(bitsPerPixel, masks):
                    hasAlpha = decodePacked(bytes, layout, bitsPerPixel: bitsPerPixel, masks: masks, into: output)
                case .runLength:
                    // Pixels the runs skip stay transparent, as browsers show them.
                    try RunLengthDecoder(bytes: bytes, layout: layout).decode(into: output)
                    hasAlpha = true
                }
                if !hasAlpha, let mask = layout.transparencyMask {
                    applyTransparencyMask(bytes[mask], layout, to: output)
                }
            }
        }
        try result.get()
        return DecodedImage(
            pixelWidth: layout.width, pixelHeight: layout.height, pixelFormat: .rgba8, bytesPerRow: layout.width * 4,
            pixels: pixels, frameCount: frameCount)
    }

    /// The output row stored row `row` (0 first in the file) fills.
    private static func outputRow(_ row: Int, _ layout: BitmapLayout, _ output: RGBARows) -> UnsafeMutableBufferPointer<UInt8> {
        output.row(layout.isTopDown ? row : layout.height - 1 - row)
    }

    /// 1-, 2-, 4- or 8-bit indices into the palette, the leftmost pixel in a byte's highest bits.
    /// An index past the palette's end shows black.
    private static func decodeIndexed(_ bytes: [UInt8], _ layout: BitmapLayout, bitsPerPixel: Int, into output: RGBARows) {
        let pixelsPerByte = 8 / bitsPerPixel
        let indexMask = (1 << bitsPerPixel) - 1
        let palette = layout.palette
        for row in 0..<layout.height {
            var source = layout.pixels.lowerBound + row * layout.rowByteCount
            let target = outputRow(row, layout, output)
            var x = 0
            while x < layout.width {
                let byte = Int(bytes[source])
                for slot in 0..<min(pixelsPerByte, layout.width - x) {
                    let index = byte >> (8 - bitsPerPixel * (slot + 1)) & indexMask
                    let pixel = (x + slot) * 4
                    if index < palette.count {
                        let colour = palette[index]
                        (target[pixel], target[pixel + 1], target[pixel + 2]) = (colour.red, colour.green, colour.blue)
                    }
                    target[pixel + 3] = 255
                }
                x += pixelsPerByte
                source += 1
            }
        }
    }

    /// 16-, 24- or 32-bit little-endian pixels whose channels lie under `masks`. Returns whether
    /// the alpha channel says anything (some pixel's alpha is not zero); when it does not, every
    /// pixel is made opaque.
    private static func decodePacked(
        _ bytes: [UInt8], _ layout: BitmapLayout, bitsPerPixel: Int, masks: BitmapLayout.Masks, into output: RGBARows
    ) -> Bool {
        let bytesPerPixel = bitsPerPixel / 8
        let hasAlphaChannel = masks.alpha != 0
        var alphaSeen = false
        if let red = byteIndex(masks.red, bytesPerPixel), let green = byteIndex(masks.green, bytesPerPixel),
            let blue = byteIndex(masks.blue, bytesPerPixel), !hasAlphaChannel || byteIndex(masks.alpha, bytesPerPixel) != nil
        {
            // The usual case (24-bit, and 32-bit with a byte per channel): bytes copied, not scaled.
            let alpha = byteIndex(masks.alpha, bytesPerPixel) ?? 0
            for row in 0..<layout.height {
                var source = layout.pixels.lowerBound + row * layout.rowByteCount
                let target = outputRow(row, layout, output)
                for pixel in stride(from: 0, to: layout.width * 4, by: 4) {
                    let opacity = hasAlphaChannel ? bytes[source + alpha] : 255
                    alphaSeen = alphaSeen || opacity != 0
                    (target[pixel], target[pixel + 1], target[pixel + 2], target[pixel + 3]) =
                        (bytes[source + red], bytes[source + green], bytes[source + blue], opacity)
                    source += bytesPerPixel
                }
            }
        } else {
            let (red, green, blue, alpha) = (ChannelMask(masks.red), ChannelMask(masks.green), ChannelMask(masks.blue), ChannelMask(masks.alpha))
            for row in 0..<layout.height {
                var source = layout.pixels.lowerBound + row * layout.rowByteCount
                let target = outputRow(row, layout, output)
                for pixel in stride(from: 0, to: layout.width * 4, by: 4) {
                    var value: UInt32 = 0
                    for byte in 0..<bytesPerPixel { value |= UInt32(bytes[source + byte]) << (8 * byte) }
                    let opacity = hasAlphaChannel ? alpha.value(in: value) : 255
                    alphaSeen = alphaSeen || opacity != 0
                    (target[pixel], target[pixel + 1], target[pixel + 2], target[pixel + 3]) =
                        (red.value(in: value), green.value(in: value), blue.value(in: value), opacity)
                    source += bytesPerPixel
                }
            }
        }
        guard hasAlphaChannel else { return false }
        guard !alphaSeen else { return true }
        output.setOpaque()
        return false
    }

    /// Which byte of a pixel `mask` covers, when it covers exactly one whole byte of it.
    private static func byteIndex(_ mask: UInt32, _ bytesPerPixel: Int) -> Int? {
        let shift = mask.trailingZeroBitCount
        guard mask != 0, shift % 8 == 0, mask >> shift == 0xFF, shift / 8 < bytesPerPixel else { return nil }
        return shift / 8
    }

    /// An icon's AND mask: a set bit makes its pixel transparent.
    private static func applyTransparencyMask(_ mask: ArraySlice<UInt8>, _ layout: BitmapLayout, to output: RGBARows) {
        for row in 0..<layout.height {
            let rowStart = mask.startIndex + row * layout.maskRowByteCount
            let target = outputRow(row, layout, output)
            for x in 0..<layout.width where mask[rowStart + x / 8] & (0x80 >> (x % 8)) != 0 {
                target[x * 4 + 3] = 0
            }
        }
    }
}
