import ImageFormats

/// RLE8 and RLE4 bitmap data expanded to RGBA: pairs of (count, index) runs, and escapes (a zero
/// count) for the end of a row, the end of the bitmap, a jump ahead, or a stretch of indices
/// stored as they are. Rows are stored bottom-up.
///
/// Every run is checked against the image: pixels past a row's end are dropped (browsers do the
/// same, for the encoders that write over-long runs); a jump out of the image, or data that ends
/// before the last row does, is damage. Pixels no run draws stay transparent.
struct RunLengthDecoder {
    let bytes: [UInt8]
    let layout: BitmapLayout

    /// Expands the runs into `output` (zeroed).
    func decode(into output: RGBARows) throws(ImageDecodingError) {
        let isRLE4 = layout.bitsPerPixel == 4
        var cursor = layout.pixels.lowerBound
        let end = layout.pixels.upperBound
        var (x, row) = (0, 0)
        while row < layout.height {
            guard end - cursor >= 2 else {
                throw .corrupt("the run-length data ends at row \(row) of \(layout.height), before its end-of-bitmap code")
            }
            let (count, value) = (Int(bytes[cursor]), bytes[cursor + 1])
            cursor += 2
            if count > 0 {
                // A run: one index (RLE8), or two alternating ones (RLE4).
                for step in 0..<min(count, layout.width - x) {
                    let index = isRLE4 ? (step % 2 == 0 ? value >> 4 : value & 0x0F) : value
                    draw(index, x: x + step, row: row, into: output)
                }
                x = min(layout.width, x + count)
                continue
            }
            switch value {
            case 0:  // End of the row.
                (x, row) = (0, row + 1)
            case 1:  // End of the bitmap.
                return
            case 2:  // A jump right and up (rows are bottom-up).
                guard end - cursor >= 2 else { throw .corrupt("the run-length data ends inside a jump") }
                let (right, up) = (Int(bytes[cursor]), Int(bytes[cursor + 1]))
                cursor += 2
                guard x + right <= layout.width, row + up <= layout.height else {
                    throw .corrupt("a run-length jump from (\(x), row \(row)) by (\(right), \(up)) leaves the \(layout.width)x\(layout.height) image")
                }
                (x, row) = (x + right, row + up)
            default:  // `value` indices stored as they are, padded to a 16-bit boundary.
                let byteCount = isRLE4 ? (Int(value) + 1) / 2 : Int(value)
                guard end - cursor >= byteCount else { throw .corrupt("the run-length data ends inside a stretch of \(value) pixels") }
                for step in 0..<min(Int(value), layout.width - x) {
                    let byte = bytes[cursor + (isRLE4 ? step / 2 : step)]
                    draw(isRLE4 ? (step % 2 == 0 ? byte >> 4 : byte & 0x0F) : byte, x: x + step, row: row, into: output)
                }
                x = min(layout.width, x + Int(value))
                cursor = min(end, cursor + (byteCount + 1) / 2 * 2)
            }
        }
    }

    /// Paints palette colour `index` at (`x`, stored row `row`), opaque; an index past the
    /// palette's end paints black.
    private func draw(_ index: UInt8, x: Int, row: Int, into output: RGBARows) {
        precondition(x >= 0 && x < layout.width, "column \(x) outside a \(layout.width)-pixel row")
        let target = output.row(layout.height - 1 - row)
        let pixel = x * 4
        if Int(index) < layout.palette.count {
            let colour = layout.palette[Int(index)]
            (target[pixel], target[pixel + 1], target[pixel + 2]) = (colour.red, colour.green, colour.blue)
        }
        target[pixel + 3] = 255
    }
}
