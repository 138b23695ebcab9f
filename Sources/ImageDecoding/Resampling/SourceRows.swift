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
        precondition(source.count >= width * height * 4 && shrinkX >= 1 && shrinkY >= 1)
        self.source = source
        sourceWidth = width
        sourceHeight = height
        self.shrinkX = shrinkX
        self.shrinkY = shrinkY
        self.premultiplies = premultiplies
        self.width = (width + shrinkX - 1) / shrinkX
        self.height = (height + shrinkY - 1) / shrinkY
    }

    /// Writes row `row` into `output`, which holds `width` pixels.
    func load(_ row: Int, into output: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        let firstLine = row * shrinkY
        let lines = min(shrinkY, sourceHeight - firstLine)
        // A premultiplied channel is its byte times alpha's: 255 times too large until scaled here.
        let unit: Float = premultiplies ? 1 / 255 : 1
        if shrinkX == 1 && lines == 1 {
            let line = source.baseAddress! + firstLine * sourceWidth * 4
            for x in 0..<width { output[x] = SIMD4<Float>(widened(line, x &* 4)) * unit }
            return
        }
        for x in 0..<width { output[x] = .zero }
        for line in firstLine..<(firstLine + lines) {
            let bytes = source.baseAddress! + line * sourceWidth * 4
            var at = 0
            for block in 0..<width {
                // A block's row is summed in integers, a run of at most `integerRun` pixels at a time.
                var left = min(shrinkX, sourceWidth - block * shrinkX)
                while left > 0 {
                    let run = min(left, Self.integerRun)
                    var sum = SIMD4<UInt32>.zero
                    for _ in 0..<run {
                        sum &+= widened(bytes, at)
                        at &+= 4
                    }
                    output[block] += SIMD4<Float>(sum)
                    left -= run
                }
            }
        }
        for x in 0..<width {
            let columns = min(shrinkX, sourceWidth - x * shrinkX)
            output[x] *= unit / Float(lines * columns)
        }
    }

    /// The most pixels summed in one integer sum: a premultiplied channel is at most 255 × 255.
    private static let integerRun = Int(UInt32.max) / (255 * 255)

    /// The four bytes of the pixel at `offset` from `bytes`, as integers, premultiplied (each
    /// colour times alpha, and alpha times 255) when asked.
    @inline(__always)
    private func widened(_ bytes: UnsafeRawPointer, _ offset: Int) -> SIMD4<UInt32> {
        let pixel = SIMD4<UInt32>(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
        guard premultiplies else { return pixel }
        return pixel &* SIMD4(pixel.w, pixel.w, pixel.w, 255)
    }
}
