/// The parts of a HEIF `meta` box that give the image size and locate the item data.
struct HEIFMetadata {
    /// The handler type of `hdlr`: `pict` for images.
    var handler: String?
    /// The item `pitm` names as the image to show.
    var primaryItemID: Int?
    /// The property boxes of `ipco`, in order (associations number them from 1).
    var properties: [ISOBox] = []
    /// Property numbers associated with each item (from `ipma`).
    var associations: [Int: [Int]] = [:]
    /// The item location box, if any.
    var itemLocations: ByteReader?
    /// The item data box, if any (construction method 1 points into it).
    var itemData: ByteReader?
    /// The item information box, which gives each item's type (`iinf`), if any.
    var itemInfo: ByteReader?
    /// The item reference box (`iref`), which names the inputs of a derived image, if any.
    var itemReferences: ByteReader?

    /// Parses the children of a `meta` box's payload.
    init(metaPayload: ByteReader) throws(ParseFailure) {
        var payload = metaPayload
        try payload.skip(4)  // FullBox version and flags.
        for box in try ISOBox.children(payload) {
            var content = box.payload
            switch box.type {
            case "hdlr":
                try content.skip(8)  // Version, flags, pre_defined.
                handler = try content.readFourCC()
            case "pitm":
                let version = try content.readUInt8()
                try content.skip(3)
                primaryItemID = try content.readInt(byteCount: version == 0 ? 2 : 4, .bigEndian)
            case "iprp":
                for child in try ISOBox.children(content) {
                    switch child.type {
                    case "ipco": properties = try ISOBox.children(child.payload)
                    case "ipma": try readAssociations(child.payload)
                    default: break
                    }
                }
            case "iloc": itemLocations = content
            case "idat": itemData = content
            case "iinf": itemInfo = content
            case "iref": itemReferences = content
            default: break
            }
        }
    }

    /// Reads an `ipma` box: for each item, the numbers of its properties.
    private mutating func readAssociations(_ payload: ByteReader) throws(ParseFailure) {
        var reader = payload
        let version = try reader.readUInt8()
        let flags = try reader.readUInt24(.bigEndian)
        let entryCount = try reader.readInt(byteCount: 4, .bigEndian)
        // Each entry takes at least 3 bytes, so a count the box cannot hold is refused before looping.
        guard entryCount <= reader.remaining / 3 else { throw .malformed("ipma declares \(entryCount) entries in \(reader.remaining) bytes") }
        for _ in 0..<entryCount {
            let itemID = try reader.readInt(byteCount: version < 1 ? 2 : 4, .bigEndian)
            let count = Int(try reader.readUInt8())
            var numbers: [Int] = []
            for _ in 0..<count {
                // The top bit marks the property "essential"; the rest is its number.
                numbers.append(flags & 1 == 1 ? Int(try reader.readUInt16(.bigEndian) & 0x7FFF) : Int(try reader.readUInt8() & 0x7F))
            }
            associations[itemID, default: []] += numbers
        }
    }

    /// The size of the primary item (its `ispe` property), after checking every `ispe` against the
    /// pixel limit: a grid's tiles and auxiliary images are decoded too.
    func imageSize(_ format: ImageFormat, limits: ValidationLimits) throws(ParseFailure) -> (width: Int, height: Int) {
        var sizes: [Int: (width: Int, height: Int)] = [:]
        for (index, property) in properties.enumerated() where property.type == "ispe" {
            var reader = property.payload
            try reader.skip(4)
            let width = try reader.readInt(byteCount: 4, .bigEndian)
            let height = try reader.readInt(byteCount: 4, .bigEndian)
            guard width > 0, height > 0 else { throw .malformed("an image spatial extent (ispe) of \(width)x\(height)") }
            try limits.checkPixels(format, width: width, height: height)
            sizes[index + 1] = (width, height)
        }
        let primaryNumbers = primaryItemID.flatMap { associations[$0] } ?? []
        if let number = primaryNumbers.first(where: { sizes[$0] != nil }), let size = sizes[number] { return size }
        guard let first = sizes.keys.min(), let size = sizes[first] else { throw .malformed("no image spatial extent (ispe) property") }
        return size
    }

    /// The size the `ispe` property of item `itemID` declares, if it has one.
    func spatialExtent(ofItem itemID: Int) throws(ParseFailure) -> (width: Int, height: Int)? {
        for number in associations[itemID] ?? [] where number >= 1 && number <= properties.count && properties[number - 1].type == "ispe" {
            var reader = properties[number - 1].payload
            try reader.skip(4)
            return (try reader.readInt(byteCount: 4, .bigEndian), try reader.readInt(byteCount: 4, .bigEndian))
        }
        return nil
    }

    /// Checks every item's data extents lie within the file (or within `idat`), and returns where
    /// each item's data lies.
    ///
    /// The counts come from the file, so each loop is bounded by the bytes its records take: a
    /// count the box cannot hold is refused before looping, and an extent whose record takes no
    /// bytes at all (every field size 0) may appear only once per item, since copies of it would
    /// say nothing new. So the work is linear in the size of `iloc`, whatever it declares.
    @discardableResult
    func checkItemLocations(_ format: ImageFormat, fileSize: Int) throws(ParseFailure) -> [Int: HEIFItemLocation] {
        var locations: [Int: HEIFItemLocation] = [:]
        guard var reader = itemLocations else { return locations }
        let version = try reader.readUInt8()
        try reader.skip(3)
        let sizes = try reader.readUInt8(), moreSizes = try reader.readUInt8()
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0x0F), baseOffsetSize = Int(moreSizes >> 4)
        let indexSize = version == 1 || version == 2 ? Int(moreSizes & 0x0F) : 0
        guard [offsetSize, lengthSize, baseOffsetSize, indexSize].allSatisfy({ [0, 4, 8].contains($0) }) else {
            throw .malformed("iloc uses field sizes other than 0, 4 or 8 bytes")
        }
        let idSize = version < 2 ? 2 : 4
        let itemCount = try reader.readInt(byteCount: idSize, .bigEndian)
        // Item ID, construction method (versions 1 and 2), data reference index, base offset, extent count.
        let itemRecordBytes = idSize + (version == 1 || version == 2 ? 2 : 0) + 2 + baseOffsetSize + 2
        let extentRecordBytes = indexSize + offsetSize + lengthSize
        guard itemCount <= reader.remaining / itemRecordBytes else {
            throw .malformed("iloc declares \(itemCount) items in \(reader.remaining) bytes")
        }
        for _ in 0..<itemCount {
            let itemID = try reader.readInt(byteCount: idSize, .bigEndian)
            let constructionMethod = version == 1 || version == 2 ? try reader.readUInt16(.bigEndian) & 0x0F : 0
            try reader.skip(2)  // Data reference index.
            let baseOffset = try reader.readUnsigned(byteCount: baseOffsetSize, .bigEndian)
            let extentCount = Int(try reader.readUInt16(.bigEndian))
            // ISO/IEC 14496-12 8.11.3.3: "extent_count … shall have the value 1 or greater".
            guard extentCount >= 1 else { throw .malformed("item \(itemID) has no extents in iloc") }
            if extentRecordBytes == 0 {
                guard extentCount == 1 else {
                    throw .malformed("item \(itemID) declares \(extentCount) extents whose records take no bytes")
                }
            } else {
                guard extentCount <= reader.remaining / extentRecordBytes else {
                    throw .malformed("item \(itemID) declares \(extentCount) extents in \(reader.remaining) bytes of iloc")
                }
            }
            var location = HEIFItemLocation(constructionMethod: Int(constructionMethod))
            for _ in 0..<extentCount {
                try reader.skip(indexSize)
                let offset = try reader.readUnsigned(byteCount: offsetSize, .bigEndian)
                let length = try reader.readUnsigned(byteCount: lengthSize, .bigEndian)
                let (start, overflow1) = baseOffset.addingReportingOverflow(offset)
                let (end, overflow2) = start.addingReportingOverflow(length)
                switch constructionMethod {
                case 0:
                    guard !overflow1, !overflow2, end <= UInt64(fileSize) else {
                        throw .refused(.truncated(format: format, reason: "the data of item \(itemID) lies beyond the end of the file"))
                    }
                case 1:
                    guard !overflow1, !overflow2, end <= UInt64(itemData?.remaining ?? 0) else {
                        throw .malformed("the data of item \(itemID) lies beyond its idat box")
                    }
                default:
                    break  // Data made from other items is checked through those items.
                }
                location.extents.append((start, length))
            }
            locations[itemID] = locations[itemID] ?? location
        }
        return locations
    }
}
