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
        try resample(image, processing: processing, knownOpacity: nil)
    }

    /// `base`'s image processed as `processing` asks, with the opacity the base read once.
    package static func resample(_ base: DecodedBase, processing: ImageProcessing) throws(ImageDecodingError) -> DecodedImage {
        try resample(base.image, processing: processing, knownOpacity: base.isOpaque)
    }

    /// The resample; the image's opacity is read, when not known, only once it is to change.
    private static func resample(
        _ image: DecodedImage, processing: ImageProcessing, knownOpacity: Bool?
    ) throws(ImageDecodingError) -> DecodedImage {
        try processing.checkPossible()
        guard image.bytesPerRow == image.pixelWidth * 4, image.pixels.count == image.bytesPerRow * image.pixelHeight,
            image.pixelWidth > 0, image.pixelHeight > 0
        else { throw .invalidProcessing("only tightly packed pixels are resampled") }
        let plan = ResamplePlan(width: image.pixelWidth, height: image.pixelHeight, processing: processing)
        guard plan.changesImage else { return image }
        let opaque = knownOpacity ?? image.isOpaque
        let premultiplies = image.pixelFormat == .rgba8 && !opaque
        let shrinkX = SourceRows.shrink(for: plan.scaleX)
        let shrinkY = SourceRows.shrink(for: plan.scaleY)
        let pixels = image.pixels.withUnsafeBytes { source in
            let rows = SourceRows(
                source, width: image.pixelWidth, height: image.pixelHeight,
                premultiplies: premultiplies, shrinkX: shrinkX, shrinkY: shrinkY)
            let horizontal = ResamplingAxis(
                sourceCount: rows.width, outputCount: plan.outputWidth, scale: plan.scaleX * Double(shrinkX),
                offset: plan.offsetX / Double(shrinkX))
            let vertical = ResamplingAxis(
                sourceCount: rows.height, outputCount: plan.outputHeight, scale: plan.scaleY * Double(shrinkY),
                offset: plan.offsetY / Double(shrinkY))
            return run(rows, horizontal: horizontal, vertical: vertical, unpremultiplies: premultiplies, opaque: opaque)
        }
        return DecodedImage(
            pixelWidth: plan.outputWidth, pixelHeight: plan.outputHeight, pixelFormat: image.pixelFormat,
            bytesPerRow: plan.outputWidth * 4, pixels: pixels, frameCount: image.frameCount)
    }

    /// The two passes, a row at a time: each source row the vertical pass reads is resampled
    /// across once, into a ring of as many rows as the vertical kernel has taps (the rows an output
    /// row reads are consecutive, and move only down); each output row is then summed down from
    /// the ring and stored as bytes. Nothing the size of the image is allocated beside the output.
    private static func run(
        _ rows: SourceRows, horizontal: ResamplingAxis, vertical: ResamplingAxis, unpremultiplies: Bool, opaque: Bool
    ) -> Data {
        let outputWidth = horizontal.starts.count
        let outputHeight = vertical.starts.count
        let ringRows = vertical.taps
        // Each buffer is written before it is read: a ring row by `across`, the line by `load`,
        // the sums by the first group of `down`, the block sums by `load`.
        let ring = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: outputWidth * ringRows)
        let line = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: rows.width)
        let blockSums = UnsafeMutableBufferPointer<SIMD4<Int32>>.allocate(capacity: rows.width)
        let sums = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: outputWidth)
        defer {
            ring.deallocate()
            line.deallocate()
            blockSums.deallocate()
            sums.deallocate()
        }
        var heldRows = [Int](repeating: -1, count: ringRows)
        var taps = [Int](repeating: 0, count: ringRows)
        let spread = horizontal.weights.map { SIMD4<Float>(repeating: $0) }
        var output = Data(count: outputWidth * outputHeight * 4)
        output.withUnsafeMutableBytes { output in
            spread.withUnsafeBufferPointer { spread in
                for y in 0..<outputHeight {
                    let start = vertical.starts[y]
                    for row in start..<(start + ringRows) {
                        let slot = row % ringRows
                        taps[row - start] = slot * outputWidth
                        guard heldRows[slot] != row else { continue }
                        rows.load(row, into: line, sums: blockSums)
                        across(line, into: ring.baseAddress! + slot * outputWidth, horizontal, spread: spread)
                        heldRows[slot] = row
                    }
                    down(ring.baseAddress!, rows: taps, weights: vertical.weights, first: y * ringRows, into: sums)
                    store(sums, into: output.baseAddress! + y * outputWidth * 4, unpremultiplies: unpremultiplies, opaque: opaque)
                }
            }
        }
        return output
    }
}
