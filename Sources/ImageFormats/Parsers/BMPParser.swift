/// Windows bitmap: a 14-byte file header, a DIB header (12 to 124 bytes), an optional colour table
/// or bit masks, then the pixel array at the offset the file header gives.
package enum BMPParser: ImageFormatParser {
    private static let fileHeaderSize = 14

    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        try reader.skip(fileHeaderSize)
        let header = try DIBHeader.read(&reader)
        try limits.checkPixels(.bmp, width: header.width, height: header.height)
        return ImageInfo(format: .bmp, pixelWidth: header.width, pixelHeight: header.height)
    }

    static func walkStructure(_ reader: ByteReader, header info: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        let layout = try BitmapLayout.ofFile(reader)
        return ImageInfo(format: .bmp, pixelWidth: layout.width, pixelHeight: layout.height, isAnimated: false, frameCount: 1)
    }

    /// Where the pixels of the BMP file `data` are and how they are coded, for a decoder.
    ///
    /// - Throws: ``ImageValidationError`` when `data` is no BMP the validator accepts.
    package static func layout(of data: [UInt8]) throws(ImageValidationError) -> BitmapLayout {
        do {
            return try BitmapLayout.ofFile(ByteReader(data))
        } catch {
            throw error.structureError(format: .bmp, byteCount: data.count)
        }
    }
}
