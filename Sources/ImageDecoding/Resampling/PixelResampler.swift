import Foundation

/// Decoded pixels made smaller, in Swift: a separable Lanczos-3 resample over premultiplied alpha
/// (straight alpha is premultiplied for it and back), what libvips' thumbnail does after its
/// loader has shrunk the image. Either ``PixelFormat`` comes out as it went in.
///
/// It resamples a ``DecodedBase`` to each size asked of the image. Nothing is parsed, and the size
/// is the image's own, so it runs in the caller's process; libvips' per-operation setup costs more
/// than the arithmetic on images of this size.
package enum PixelResampler {
    /// `image` processed as `processing` asks: fitted into its box, or for
    /// ``ImageProcessing/ContentMode/fill`` scaled to cover it and cropped to its centre; never
    /// enlarged, and returned as it is when nothing changes.
    package static func resample(_ image: DecodedImage, processing: ImageProcessing) throws(ImageDecodingError) -> DecodedImage {
        try processing.checkPossible()
        guard image.bytesPerRow == image.pixelWidth * 4, image.pixels.count == image.bytesPerRow * image.pixelHeight,
            image.pixelWidth > 0, image.pixelHeight > 0
        else { throw .invalidProcessing("only tightly packed pixels are resampled") }
        let plan = ResamplePlan(width: image.pixelWidth, height: image.pixelHeight, processing: processing)
        guard plan.changesImage else { return image }
        let opaque = image.isOpaque
        let premultiplies = image.pixelFormat == .rgba8 && !opaque
        // A shrink of two or more is first a box average by its whole part, as libvips' resize
        // does: the kernel then spans a few pixels of a smaller image instead of many of this one.
        let shrinkX = max(1, Int((1 / plan.scaleX).rounded(.down)))
        let shrinkY = max(1, Int((1 / plan.scaleY).rounded(.down)))
        let plane = image.pixels.withUnsafeBytes { source in
            FloatPlane(
                source.bindMemory(to: UInt8.self), width: image.pixelWidth, height: image.pixelHeight,
                premultiplies: premultiplies, shrinkX: shrinkX, shrinkY: shrinkY)
        }
        let horizontal = ResamplingAxis(
            sourceCount: plane.width, outputCount: plan.outputWidth, scale: plan.scaleX * Double(shrinkX),
            offset: plan.offsetX / Double(shrinkX))
        let vertical = ResamplingAxis(
            sourceCount: plane.height, outputCount: plan.outputHeight, scale: plan.scaleY * Double(shrinkY),
            offset: plan.offsetY / Double(shrinkY))
        let pixels = run(plane, horizontal: horizontal, vertical: vertical, unpremultiplies: premultiplies, opaque: opaque)
        return DecodedImage(
            pixelWidth: plan.outputWidth, pixelHeight: plan.outputHeight, pixelFormat: image.pixelFormat,
            bytesPerRow: plan.outputWidth * 4, pixels: pixels, frameCount: image.frameCount)
    }

    /// The two passes: each row of `plane` the vertical pass reads, resampled across into a row of
    /// floats; then each output row summed down from those, and stored as bytes: alpha divided out
    /// again when it was premultiplied here, and left at 255 for an opaque image.
    private static func run(
        _ plane: FloatPlane, horizontal: ResamplingAxis, vertical: ResamplingAxis, unpremultiplies: Bool, opaque: Bool
    ) -> Data {
        let outputWidth = horizontal.starts.count
        let outputHeight = vertical.starts.count
        let firstRow = vertical.starts.first ?? 0
        let rowCount = (vertical.starts.last ?? 0) + vertical.taps - firstRow
        var across = [SIMD4<Float>](repeating: .zero, count: outputWidth * rowCount)
        across.withUnsafeMutableBufferPointer { across in
            plane.pixels.withUnsafeBufferPointer { pixels in
                horizontal.weights.withUnsafeBufferPointer { weights in
                    horizontal.starts.withUnsafeBufferPointer { starts in
                        let taps = horizontal.taps
                        for index in 0..<rowCount {
                            let row = (firstRow + index) * plane.width
                            let out = index * outputWidth
                            for x in 0..<outputWidth {
                                let start = row + starts[x]
                                let first = x * taps
                                // Two sums, so that each add need not wait for the one before.
                                var even = SIMD4<Float>.zero
                                var odd = SIMD4<Float>.zero
                                var tap = 0
                                while tap + 1 < taps {
                                    even += weights[first + tap] * pixels[start + tap]
                                    odd += weights[first + tap + 1] * pixels[start + tap + 1]
                                    tap += 2
                                }
                                if tap < taps { even += weights[first + tap] * pixels[start + tap] }
                                across[out + x] = even + odd
                            }
                        }
                    }
                }
            }
        }
        var output = Data(count: outputWidth * outputHeight * 4)
        var sums = [SIMD4<Float>](repeating: .zero, count: outputWidth)
        output.withUnsafeMutableBytes { raw in
            let output = raw.bindMemory(to: UInt8.self)
            across.withUnsafeBufferPointer { across in
                sums.withUnsafeMutableBufferPointer { sums in
                    for y in 0..<outputHeight {
                        for x in 0..<outputWidth { sums[x] = .zero }
                        let start = vertical.starts[y] - firstRow
                        for tap in 0..<vertical.taps {
                            let weight = vertical.weights[y * vertical.taps + tap]
                            guard weight != 0 else { continue }
                            let line = (start + tap) * outputWidth
                            for x in 0..<outputWidth { sums[x] += weight * across[line + x] }
                        }
                        let line = y * outputWidth * 4
                        for x in 0..<outputWidth {
                            var pixel = sums[x].clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
                            if unpremultiplies {
                                let scale: Float = pixel.w > 0 ? 255 / pixel.w : 0
                                pixel = SIMD4(pixel.x * scale, pixel.y * scale, pixel.z * scale, pixel.w)
                                    .clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
                            } else if opaque {
                                pixel.w = 255
                            }
                            // Clamped to 0...255 above: each channel converts without a check.
                            pixel += 0.5
                            let at = line + x * 4
                            output[at] = UInt8(truncatingIfNeeded: Int32(pixel.x))
                            output[at + 1] = UInt8(truncatingIfNeeded: Int32(pixel.y))
                            output[at + 2] = UInt8(truncatingIfNeeded: Int32(pixel.z))
                            output[at + 3] = UInt8(truncatingIfNeeded: Int32(pixel.w))
                        }
                    }
                }
            }
        }
        return output
    }
}
