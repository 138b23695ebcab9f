/// Where a bitmap's pixels are and how they are coded: what the DIB header, its masks and its
/// colour table say, checked against the bytes that hold them. The validator's walks of BMP files
/// and icon entries read it; a decoder takes it from ``BMPParser/layout(of:)`` or
/// ``ICOParser/largestImage(in:)`` rather than reading the header again.
package struct BitmapLayout: Sendable, Equatable {
    /// Which bits of a 16-, 24- or 32-bit pixel (read little-endian) hold each channel; a zero
    /// mask means the channel is absent.
    package struct Masks: Sendable, Equatable {
        package var red: UInt32
        package var green: UInt32
        package var blue: UInt32
        package var alpha: UInt32
    }

    /// How the pixel array codes each pixel.
    package enum Coding: Sendable, Equatable {
        /// 1, 2, 4 or 8 bits per pixel, the leftmost pixel in the highest bits: an index into ``palette``.
        case indexed(bitsPerPixel: Int)
        /// Runs of indices into ``palette``, 8 (RLE8) or 4 (RLE4) bits each, rows bottom-up.
        case runLength(bitsPerPixel: Int)
        /// 16, 24 or 32 bits per pixel, channels under `masks`.
        case packed(bitsPerPixel: Int, masks: Masks)
    }

    /// One colour table entry.
    package struct Colour: Sendable, Equatable {
        package var red: UInt8
        package var green: UInt8
        package var blue: UInt8
    }

    /// Width in pixels.
    package let width: Int
    /// Height in pixels (an icon entry's colour rows only).
    package let height: Int
    /// Whether the first stored row is the top one; bitmaps are stored bottom row first otherwise.
    package let isTopDown: Bool
    package let coding: Coding
    /// The colour table, for indexed and run-length codings: the entries the file holds, at most
    /// 2^bitsPerPixel. An index past its end is a file's mistake.
    package let palette: [Colour]
    /// The pixel array's bytes in the data the layout was read from: whole padded rows, or the
    /// run-length data.
    package let pixels: Range<Int>
    /// An icon's transparency (AND) mask after its pixels, 1 bit per pixel (1: transparent), rows
    /// padded to 32-bit words and stored in the pixels' row order; nil for a BMP file, and for an
    /// icon whose entry ends before its mask does.
    package let transparencyMask: Range<Int>?

    /// Bits per pixel: per index for the indexed and run-length codings.
    package var bitsPerPixel: Int {
        switch coding {
        case let .indexed(bits), let .runLength(bits), let .packed(bits, _): bits
        }
    }

    /// Bytes from one uncompressed row of pixels to the next.
    package let rowByteCount: Int
    /// Bytes from one transparency mask row to the next.
    package let maskRowByteCount: Int

    /// Bytes from the start of one row of `width` pixels at `bitsPerPixel` to the next: a DIB pads
    /// its rows to 32-bit words.
    static func rowByteCount(width: Int, bitsPerPixel: Int) throws(ParseFailure) -> Int {
        try Checked.add(try Checked.multiply(width, bitsPerPixel), 31) / 32 * 4
    }

    private static let fileHeaderSize = 14

    /// The layout of a BMP file: the DIB header after the 14-byte file header, the colour table or
    /// masks after it, the pixel array at the offset the file header gives.
    static func ofFile(_ reader: ByteReader) throws(ParseFailure) -> BitmapLayout {
        var reader = reader
        try reader.skip(10)  // "BM", the file size (often wrong, so unused), two reserved fields.
        let pixelOffset = try reader.readInt(byteCount: 4, .littleEndian)
        let header = try DIBHeader.read(&reader)
        guard pixelOffset >= fileHeaderSize + header.byteCount else {
            throw .malformed("the pixel data offset \(pixelOffset) points into the headers")
        }
        guard pixelOffset <= reader.end else {
            throw .refused(.truncated(format: .bmp, reason: "the pixel data offset \(pixelOffset) lies beyond the end of the \(reader.end)-byte file"))
        }
        let coding = try coding(of: header, &reader)
        guard reader.relativeOffset <= pixelOffset else {
            throw .malformed("the bit masks after the DIB header run into the pixel data at offset \(pixelOffset)")
        }
        // Files often declare more colours than the space before the pixels holds: the table is
        // what fits.
        let fitting = (pixelOffset - reader.relativeOffset) / header.colourEntryByteCount
        let palette = try readPalette(of: header, count: min(header.colourCount, fitting), &reader)
        let available = reader.end - pixelOffset
        let rowByteCount = try Self.rowByteCount(width: header.width, bitsPerPixel: header.bitsPerPixel)
        let pixelByteCount: Int
        switch header.compression {
        case .none, .bitFields, .alphaBitFields:
            pixelByteCount = try Checked.multiply(rowByteCount, header.height)
        case .runLength8, .runLength4:
            // Run-length data declares its own size, 0 when unknown: then it runs to the end.
            pixelByteCount = header.imageByteCount == 0 ? available : header.imageByteCount
        }
        guard pixelByteCount <= available else {
            throw .refused(.truncated(format: .bmp, reason: "the pixel array needs \(pixelByteCount) bytes but the file has \(available) after its offset"))
        }
        let start = reader.start + pixelOffset
        return BitmapLayout(
            width: header.width, height: header.height, isTopDown: header.isTopDown, coding: coding, palette: palette,
            pixels: start..<(start + pixelByteCount), transparencyMask: nil, rowByteCount: rowByteCount,
            maskRowByteCount: try Self.rowByteCount(width: header.width, bitsPerPixel: 1))
    }

    /// The layout of an icon's bitmap entry (`reader` is the entry's window): a DIB header of at
    /// least 40 bytes whose height counts the mask rows too, the masks or colour table, the pixels
    /// right after them, then the transparency mask. `name` names the entry in messages.
    static func ofIconEntry(_ reader: ByteReader, name: String) throws(ParseFailure) -> BitmapLayout {
        var reader = reader
        let header: DIBHeader
        do {
            header = try DIBHeader.read(&reader)
        } catch {
            switch error {
            case .needMoreBytes: throw .malformed("\(name) is shorter than its header")
            case let .malformed(reason): throw .malformed("\(name) is broken: \(reason)")
            case let .refused(refusal): throw .malformed("\(name) is broken: \(refusal.detail)")
            }
        }
        guard header.byteCount >= 40 else { throw .malformed("\(name) has a DIB header of \(header.byteCount) bytes") }
        // Icons are stored bottom-up and uncompressed; their mask follows the pixels, which
        // run-length data of unknown length would hide.
        guard !header.isTopDown, [.none, .bitFields, .alphaBitFields].contains(header.compression) else {
            throw .malformed("\(name) is stored \(header.isTopDown ? "top-down" : "run-length compressed"), which icons never are")
        }
        let height = header.height / 2
        guard height > 0 else { throw .malformed("\(name) is \(header.width)x\(height) pixels") }
        let coding: Coding
        do {
            coding = try Self.coding(of: header, &reader)
        } catch {
            throw .malformed("\(name) ends inside its bit masks")
        }
        guard try Checked.multiply(header.colourCount, header.colourEntryByteCount) <= reader.remaining else {
            throw .malformed("\(name) declares \(header.colourCount) colours, more than its entry holds")
        }
        let palette = try readPalette(of: header, count: header.colourCount, &reader)
        let rowByteCount = try Self.rowByteCount(width: header.width, bitsPerPixel: header.bitsPerPixel)
        let maskRowByteCount = try Self.rowByteCount(width: header.width, bitsPerPixel: 1)
        let pixelByteCount = try Checked.multiply(rowByteCount, height)
        guard pixelByteCount <= reader.remaining else {
            throw .refused(.truncated(format: .ico, reason: "\(name) needs more bytes than its entry holds"))
        }
        let pixels = reader.offset..<(reader.offset + pixelByteCount)
        let maskByteCount = try Checked.multiply(maskRowByteCount, height)
        let mask = maskByteCount <= reader.remaining - pixelByteCount ? pixels.upperBound..<(pixels.upperBound + maskByteCount) : nil
        return BitmapLayout(
            width: header.width, height: height, isTopDown: false, coding: coding, palette: palette, pixels: pixels,
            transparencyMask: mask, rowByteCount: rowByteCount, maskRowByteCount: maskRowByteCount)
    }

    /// The coding `header` says, reading masks that follow it.
    private static func coding(of header: DIBHeader, _ reader: inout ByteReader) throws(ParseFailure) -> Coding {
        switch header.compression {
        case .runLength8, .runLength4: .runLength(bitsPerPixel: header.bitsPerPixel)
        case .none where header.bitsPerPixel <= 8: .indexed(bitsPerPixel: header.bitsPerPixel)
        default: .packed(bitsPerPixel: header.bitsPerPixel, masks: try header.masks(&reader))
        }
    }

    /// The colour table at the cursor: `count` entries, of which at most 2^bitsPerPixel are kept
    /// (the rest could never be named); none at more than 8 bits per pixel, where a table is only
    /// a hint for displays with fewer colours. Leaves the cursor after all `count`.
    private static func readPalette(of header: DIBHeader, count: Int, _ reader: inout ByteReader) throws(ParseFailure) -> [Colour] {
        let table = try reader.readBytes(try Checked.multiply(count, header.colourEntryByteCount))
        guard header.bitsPerPixel <= 8 else { return [] }
        let kept = min(count, 1 << header.bitsPerPixel)
        return (0..<kept).map { index in
            let entry = table.startIndex + index * header.colourEntryByteCount
            return Colour(red: table[entry + 2], green: table[entry + 1], blue: table[entry])
        }
    }
}
