/// An image's pixels as floats, alpha premultiplied when it is not opaque, each output pixel the
/// average of a block of `shrinkX` × `shrinkY` source pixels (fewer at the right and bottom edges).
struct FloatPlane {
    let width: Int
    let height: Int
    /// Row after row, `width` pixels each.
    let pixels: [SIMD4<Float>]

    init(_ source: UnsafeBufferPointer<UInt8>, width: Int, height: Int, premultiplies: Bool, shrinkX: Int, shrinkY: Int) {
        let planeWidth = (width + shrinkX - 1) / shrinkX
        let planeHeight = (height + shrinkY - 1) / shrinkY
        var pixels = [SIMD4<Float>](repeating: .zero, count: planeWidth * planeHeight)
        pixels.withUnsafeMutableBufferPointer { plane in
            for y in 0..<height {
                let line = (y / shrinkY) * planeWidth
                var at = y * width * 4
                for block in 0..<planeWidth {
                    var sum = SIMD4<Float>.zero
                    for _ in 0..<min(shrinkX, width - block * shrinkX) {
                        var pixel = SIMD4<Float>(Float(source[at]), Float(source[at + 1]), Float(source[at + 2]), Float(source[at + 3]))
                        if premultiplies {
                            let alpha = pixel.w / 255
                            pixel = SIMD4(pixel.x * alpha, pixel.y * alpha, pixel.z * alpha, pixel.w)
                        }
                        sum += pixel
                        at += 4
                    }
                    plane[line + block] += sum
                }
            }
            guard shrinkX > 1 || shrinkY > 1 else { return }
            for y in 0..<planeHeight {
                let rows = Float(min(shrinkY, height - y * shrinkY))
                for x in 0..<planeWidth {
                    let columns = Float(min(shrinkX, width - x * shrinkX))
                    plane[y * planeWidth + x] /= rows * columns
                }
            }
        }
        self.width = planeWidth
        self.height = planeHeight
        self.pixels = pixels
    }
}
