/// The resampler's inner loops, on buffers the caller owns.
extension PixelResampler {
    /// `line` resampled across into the `horizontal.starts.count` pixels from `out`; `spread` holds
    /// `horizontal`'s weights each repeated in four lanes, so that no tap spends a shuffle on it.
    @inline(__always)
    static func across(
        _ line: UnsafeMutableBufferPointer<SIMD4<Float>>, into out: UnsafeMutablePointer<SIMD4<Float>>,
        _ horizontal: ResamplingAxis, spread: UnsafeBufferPointer<SIMD4<Float>>
    ) {
        let taps = horizontal.taps
        let pixels = line.baseAddress!
        horizontal.starts.withUnsafeBufferPointer { starts in
            var weight = spread.baseAddress!
            for x in 0..<starts.count {
                var pixel = pixels + starts[x]
                // Four sums, so that each add need not wait for the one before.
                var a = SIMD4<Float>.zero
                var b = SIMD4<Float>.zero
                var c = SIMD4<Float>.zero
                var d = SIMD4<Float>.zero
                var left = taps
                while left >= 4 {
                    a += weight[0] * pixel[0]
                    b += weight[1] * pixel[1]
                    c += weight[2] * pixel[2]
                    d += weight[3] * pixel[3]
                    weight += 4
                    pixel += 4
                    left &-= 4
                }
                while left > 0 {
                    a += weight[0] * pixel[0]
                    weight += 1
                    pixel += 1
                    left &-= 1
                }
                out[x] = (a + b) + (c + d)
            }
        }
    }

    /// One output row summed down into `sums`: `weights[first...]` times the rows that start at
    /// `rows` (offsets from `ring`), four rows at a time, so each pass over the row does four
    /// taps' work.
    @inline(__always)
    static func down(
        _ ring: UnsafeMutablePointer<SIMD4<Float>>, rows: borrowing [Int], weights: borrowing [Float], first: Int,
        into sums: UnsafeMutableBufferPointer<SIMD4<Float>>
    ) {
        let out = sums.baseAddress!
        let width = sums.count
        var tap = 0
        while tap < rows.count {
            // A group of fewer than four repeats its last row with a weight of zero.
            let last = rows.count - 1
            let w0 = weights[first + tap]
            let w1 = tap + 1 <= last ? weights[first + tap + 1] : 0
            let w2 = tap + 2 <= last ? weights[first + tap + 2] : 0
            let w3 = tap + 3 <= last ? weights[first + tap + 3] : 0
            let r0 = ring + rows[tap]
            let r1 = ring + rows[min(tap + 1, last)]
            let r2 = ring + rows[min(tap + 2, last)]
            let r3 = ring + rows[min(tap + 3, last)]
            if tap == 0 {
                for x in 0..<width { out[x] = (w0 * r0[x] + w1 * r1[x]) + (w2 * r2[x] + w3 * r3[x]) }
            } else {
                for x in 0..<width { out[x] += (w0 * r0[x] + w1 * r1[x]) + (w2 * r2[x] + w3 * r3[x]) }
            }
            tap += 4
        }
    }

    /// One output row of sums stored as bytes from `output`: alpha divided out again when it was
    /// premultiplied, and set to 255 for an opaque image. Each case is a loop of its own.
    @inline(__always)
    static func store(
        _ sums: UnsafeMutableBufferPointer<SIMD4<Float>>, into output: UnsafeMutableRawPointer, unpremultiplies: Bool,
        opaque: Bool
    ) {
        if unpremultiplies {
            storeRow(sums, into: output, alpha: 0) { pixel in
                let scale: Float = pixel.w > 0 ? 255 / pixel.w : 0
                return SIMD4(pixel.x * scale, pixel.y * scale, pixel.z * scale, pixel.w).clampedToByte
            }
        } else if opaque {
            storeRow(sums, into: output, alpha: 255) { $0 }
        } else {
            storeRow(sums, into: output, alpha: 0) { $0 }
        }
    }

    /// `sums` clamped, passed through `finish`, rounded and stored four bytes at a time, with
    /// alpha's byte ORed with `alpha`.
    @inline(__always)
    private static func storeRow(
        _ sums: UnsafeMutableBufferPointer<SIMD4<Float>>, into output: UnsafeMutableRawPointer, alpha: UInt32,
        _ finish: (SIMD4<Float>) -> SIMD4<Float>
    ) {
        // The fourth byte in memory, wherever the platform's byte order puts it in a word.
        let alphaBits = (alpha << 24).littleEndian
        for x in 0..<sums.count {
            let pixel = finish(sums[x].clampedToByte)
            // Clamped to 0...255: adding 1.5 × 2^23 leaves the value rounded to a whole number in
            // the float's low mantissa bits, whose lowest byte is the channel.
            let rounded = unsafeBitCast(pixel + 12_582_912, to: SIMD4<UInt32>.self)
            let word = unsafeBitCast(SIMD4<UInt8>(truncatingIfNeeded: rounded), to: UInt32.self)
            output.storeBytes(of: word | alphaBits, toByteOffset: x &* 4, as: UInt32.self)
        }
    }
}

extension SIMD4 where Scalar == Float {
    /// Each lane held to 0...255, in two vector compares (`clamped(lowerBound:upperBound:)` is
    /// not inlined into the store's loop).
    @inline(__always)
    fileprivate var clampedToByte: SIMD4<Float> {
        var lanes = self
        lanes.replace(with: 0, where: lanes .< 0)
        lanes.replace(with: 255, where: lanes .> 255)
        return lanes
    }
}
