/// A decoded bitmap's pixels as they are written, a row at a time: each row is checked to lie
/// inside the buffer before it is handed out, and a writer stays within the width it is given, so
/// no coding, however damaged its data, writes outside the image.
struct RGBARows {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    let width: Int
    let height: Int

    /// Rows over `buffer`, which holds `width` × `height` RGBA pixels.
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int) {
        precondition(width >= 0 && height >= 0 && width * height * 4 <= buffer.count, "a \(width)x\(height) image in \(buffer.count) bytes")
        self.buffer = buffer
        self.width = width
        self.height = height
    }

    /// Output row `y` (0 at the top): `width` × 4 bytes.
    func row(_ y: Int) -> UnsafeMutableBufferPointer<UInt8> {
        precondition(y >= 0 && y < height, "row \(y) outside a \(height)-row image")
        let start = y * width * 4
        return UnsafeMutableBufferPointer(rebasing: buffer[start..<(start + width * 4)])
    }

    /// Makes every pixel opaque.
    func setOpaque() {
        for alpha in stride(from: 3, to: width * height * 4, by: 4) { buffer[alpha] = 255 }
    }
}
