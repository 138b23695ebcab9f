import Foundation

/// The Lanczos-3 weights of one axis of a resample: for each output pixel, the first source pixel
/// it reads and one weight per tap, every pixel the same number of taps (zeros past the edge), so
/// that the passes run without branches.
struct ResamplingAxis {
    /// Source pixels each output pixel reads.
    let taps: Int
    /// The first source pixel each output pixel reads.
    let starts: [Int]
    /// `taps` weights per output pixel, summing to one.
    let weights: [Float]

    /// The weights that take `sourceCount` pixels to `outputCount` at `scale` output pixels per
    /// source pixel, the output starting `offset` source pixels in (a crop's margin).
    init(sourceCount: Int, outputCount: Int, scale: Double, offset: Double) {
        // Shrinking, the kernel widens by the shrink factor so that every source pixel counts.
        let stretch = max(1, 1 / scale)
        let support = 3 * stretch
        let taps = min(sourceCount, Int((2 * support).rounded(.up)) + 1)
        var starts = [Int](repeating: 0, count: outputCount)
        var weights = [Float](repeating: 0, count: outputCount * taps)
        var row = [Double](repeating: 0, count: taps)
        for output in 0..<outputCount {
            let centre = (Double(output) + 0.5) / scale + offset
            let start = min(max(0, Int((centre - support).rounded(.down))), sourceCount - taps)
            starts[output] = start
            var sum = 0.0
            for tap in 0..<taps {
                row[tap] = Self.lanczos3((Double(start + tap) + 0.5 - centre) / stretch)
                sum += row[tap]
            }
            for tap in 0..<taps { weights[output * taps + tap] = Float(sum != 0 ? row[tap] / sum : tap == 0 ? 1 : 0) }
        }
        self.taps = taps
        self.starts = starts
        self.weights = weights
    }

    /// The Lanczos kernel with three lobes, 3 sin(πx) sin(πx/3) / (πx)², with sin(πx) taken from
    /// sin(πx/3) (sin 3θ = 3 sin θ − 4 sin³ θ) so that each weight costs one sine.
    private static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let pi = Double.pi * x
        let third = sin(pi / 3)
        return 3 * third * third * (3 - 4 * third * third) / (pi * pi)
    }
}
