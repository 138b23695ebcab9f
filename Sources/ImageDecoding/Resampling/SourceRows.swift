/// The rows of an image's pixels as the resampler's passes read them: floats, alpha premultiplied
/// when it is not opaque, each pixel the average of a block of `shrinkX` × `shrinkY` source
/// pixels (fewer at the right and bottom edges). A row is made when it is asked for, so no copy
/// of the whole image is held.
struct SourceRows {
    /// Pixels per row and rows, after the box average.
    let width: Int
    let height: Int
    private let source: UnsafeRawBufferPointer
    private let sourceWidth: Int
    private let sourceHeight: Int
    private let shrinkX: Int
    private let shrinkY: Int
    private let premultiplies: Bool

    /// The rows of `source`, `width` × `height` pixels of four bytes each.
    init(_ source: UnsafeRawBufferPointer, width: Int, height: Int, premultiplies: Bool, shrinkX: Int, shrinkY: Int) {
        precondition(source.count >= width * height * 4)
        precondition((1...Self.largestBlock).contains(shrinkX) && shrinkY >= 1)
        self.source = source
        sourceWidth = width
        sourceHeight = height
        self.shrinkX = shrinkX
        self.shrinkY = shrinkY
        self.premultiplies = premultiplies
        self.width = (width + shrinkX - 1) / shrinkX
        self.height = (height + shrinkY - 1) / shrinkY
    }

    /// Writes row `row` into `output`, which holds `width` pixels; `sums` is as long, for the
    /// blocks' integer sums.
    func load(
        _ row: Int, into output: UnsafeMutableBufferPointer<SIMD4<Float>>, sums: UnsafeMutableBufferPointer<SIMD4<Int32>>
    ) {
        let firstLine = row * shrinkY
        let lines = min(shrinkY, sourceHeight - firstLine)
        let bytes = source.baseAddress! + firstLine * sourceWidth * 4
        if shrinkX == 1 && lines == 1 && !premultiplies {
            for x in 0..<width { output[x] = SIMD4<Float>(Self.widened(bytes, x &* 4, premultiplies: false)) }
            return
        }
        // Lines are summed in integers as many at a time as fit, then added up as floats.
        let linesPerSum = max(1, Self.largestBlock / shrinkX)
        var first = firstLine
        while first < firstLine + lines {
            let end = min(firstLine + lines, first + linesPerSum)
            if premultiplies {
                sum(first..<end, into: sums, premultiplies: true)
            } else {
                sum(first..<end, into: sums, premultiplies: false)
            }
            if first == firstLine {
                for x in 0..<width { output[x] = SIMD4<Float>(sums[x]) }
            } else {
                for x in 0..<width { output[x] += SIMD4<Float>(sums[x]) }
            }
            first = end
        }
        // A premultiplied channel is its byte times alpha's: 255 times too large until scaled here.
        let unit: Float = premultiplies ? 1 / 255 : 1
        let fullBlocks = sourceWidth / shrinkX
        let scale = unit / Float(lines * shrinkX)
        for x in 0..<fullBlocks { output[x] *= scale }
        if fullBlocks < width { output[fullBlocks] *= unit / Float(lines * (sourceWidth - fullBlocks * shrinkX)) }
    }

    /// The blocks of `lines` summed into `sums`, each channel premultiplied when asked (see
    /// `widened`). Inlined with `premultiplies` a constant, so that each case is its own loop.
    @inline(__always)
    private func sum(_ lines: Range<Int>, into sums: UnsafeMutableBufferPointer<SIMD4<Int32>>, premultiplies: Bool) {
        let fullBlocks = sourceWidth / shrinkX
        let bytes = source.baseAddress!
        for x in 0..<width { sums[x] = .zero }
        for line in lines {
            var at = line * sourceWidth * 4
            for block in 0..<fullBlocks {
                var total = sums[block]
                for _ in 0..<shrinkX {
                    total &+= Self.widened(bytes, at, premultiplies: premultiplies)
                    at &+= 4
                }
                sums[block] = total
            }
            var total = SIMD4<Int32>.zero
            for _ in (fullBlocks * shrinkX)..<sourceWidth {
                total &+= Self.widened(bytes, at, premultiplies: premultiplies)
                at &+= 4
            }
            if fullBlocks < width { sums[fullBlocks] &+= total }
        }
    }

    /// The shrink factor that box-averages blocks for a resample to `scale` output pixels per
    /// source pixel: its whole part, as libvips' resize does (the kernel then spans a few pixels
    /// of a smaller image instead of many of this one), at most `largestBlock`.
    static func shrink(for scale: Double) -> Int {
        min(largestBlock, max(1, Int((1 / scale).rounded(.down))))
    }

    /// The most pixels one integer sum holds: each channel is at most 255 × 255 premultiplied,
    /// and the sum fits a 32-bit signed integer, which converts to a float at once.
    static let largestBlock = Int(Int32.max) / (255 * 255)

    /// The four bytes of the pixel at `offset` from `bytes`, as integers, premultiplied (each
    /// colour times alpha, and alpha times 255) when asked.
    @inline(__always)
    private static func widened(_ bytes: UnsafeRawPointer, _ offset: Int, premultiplies: Bool) -> SIMD4<Int32> {
        let pixel = SIMD4<Int32>(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
        guard premultiplies else { return pixel }
        return pixel &* SIMD4(pixel.w, pixel.w, pixel.w, 255)
    }
}
