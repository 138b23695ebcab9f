/// HEIC and AVIF: HEIF images in ISO base media boxes. `ftyp` names the brands, `meta` describes the
/// items (`pitm` the primary one, `iprp` their properties such as the size `ispe`, `iloc` where their
/// coded data lies), and `mdat` usually holds that data.
enum HEIFParser: ImageFormatParser {
    static func readHeader(_ reader: ByteReader, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        let format = try readFileType(&reader)
        // The meta box usually follows ftyp; other boxes before it are skipped by their sizes.
        while true {
            let box = try ISOBox.readHeader(&reader)
            guard box.type == "meta" else {
                try reader.skip(box.payloadSize)
                continue
            }
            let metadata = try HEIFMetadata(metaPayload: try reader.readWindow(box.payloadSize))
            let size = try metadata.imageSize(format, limits: limits)
            return ImageInfo(format: format, pixelWidth: size.width, pixelHeight: size.height)
        }
    }

    static func walkStructure(_ reader: ByteReader, header: ImageInfo, limits: ValidationLimits) throws(ParseFailure) -> ImageInfo {
        var reader = reader
        let format = try readFileType(&reader)
        var metaPayload: ByteReader?
        while !reader.isAtEnd {
            let box = try ISOBox.readHeader(&reader)
            guard box.payloadSize <= reader.remaining else {
                throw .refused(.truncated(format: format, reason: "box '\(box.type)' of \(box.payloadSize) bytes runs past the end of the file"))
            }
            let payload = try reader.readWindow(box.payloadSize)
            if box.type == "meta" {
                guard metaPayload == nil else { throw .malformed("a second meta box") }
                metaPayload = payload
            }
        }
        guard let metaPayload else { throw .malformed("no meta box") }
        let metadata = try HEIFMetadata(metaPayload: metaPayload)
        guard metadata.handler == "pict" else { throw .malformed("the meta handler is '\(metadata.handler ?? "missing")', not 'pict'") }
        guard metadata.primaryItemID != nil else { throw .malformed("no primary item (pitm box)") }
        let propertyCount = metadata.properties.count
        guard metadata.associations.values.allSatisfy({ $0.allSatisfy { $0 <= propertyCount } }) else {
            throw .malformed("an item is associated with a property beyond the \(propertyCount) in ipco")
        }
        let size = try metadata.imageSize(format, limits: limits)
        let locations = try metadata.checkItemLocations(format, fileSize: reader.end)
        try HEIFDerivedImages(metadata: metadata, locations: locations, file: reader.bytes).check(format, limits: limits)
        return ImageInfo(format: format, pixelWidth: size.width, pixelHeight: size.height, isAnimated: false, frameCount: 1)
    }

    /// Reads the `ftyp` box, which must come first, and returns the format its brands name.
    private static func readFileType(_ reader: inout ByteReader) throws(ParseFailure) -> ImageFormat {
        let box = try ISOBox.readHeader(&reader)
        guard box.type == "ftyp" else { throw .malformed("the first box is '\(box.type)', not ftyp") }
        guard box.payloadSize >= 8, box.payloadSize % 4 == 0 else { throw .malformed("the ftyp box is \(box.payloadSize + 8) bytes long") }
        try reader.skip(box.payloadSize)
        guard case let .image(format) = HEIFBrands.classify(ftypPrefix: reader.bytes) else {
            throw .malformed("the ftyp brands name no HEIF image format")
        }
        return format
    }
}
