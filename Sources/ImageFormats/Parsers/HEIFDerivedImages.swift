/// HEIF's derived images: a `grid` item is its tiles put side by side, an `iovl` item its inputs
/// drawn on a canvas. Decoders build them at the output size their own data gives, whatever the
/// item's `ispe` says, and decode every input (`dimg` reference) first, so a file of a few
/// kilobytes that declares 100×100 can build 16000×16000 pixels out of one tile referenced again
/// and again.
///
/// Each derived item's output is held to its `ispe` and to the pixel limit, and its inputs to
/// ``ValidationLimits/maxDerivedImageInputs`` in number and to the pixel limit together.
struct HEIFDerivedImages {
    let metadata: HEIFMetadata
    let locations: [Int: HEIFItemLocation]
    let file: [UInt8]

    /// Checks every `grid` and `iovl` item.
    func check(_ format: ImageFormat, limits: ValidationLimits) throws(ParseFailure) {
        let types = try itemTypes()
        let derived = types.filter { $0.value == "grid" || $0.value == "iovl" }
        guard !derived.isEmpty else { return }
        let inputs = try derivedImageInputs()
        for (itemID, type) in derived.sorted(by: { $0.key < $1.key }) {
            let data = locations[itemID]?.prefix(18, file: file, itemData: metadata.itemData) ?? []
            let output = try outputSize(type, data: data, itemID: itemID)
            try limits.checkPixels(format, width: output.width, height: output.height)
            if let declared = try metadata.spatialExtent(ofItem: itemID), output.width > declared.width || output.height > declared.height {
                throw .refused(.refusedContent(
                    format: format,
                    reason: "its \(type) item \(itemID) builds \(output.width)x\(output.height) pixels, more than the \(declared.width)x\(declared.height) its ispe declares"))
            }
            let itemInputs = inputs[itemID] ?? []
            let inputCount = max(itemInputs.count, output.tiles)
            guard inputCount <= ValidationLimits.maxDerivedImageInputs else {
                throw .refused(.refusedContent(
                    format: format,
                    reason: "its \(type) item \(itemID) combines \(inputCount) images, over the limit of \(ValidationLimits.maxDerivedImageInputs)"))
            }
            var inputPixels = 0
            for input in itemInputs {
                guard let size = try metadata.spatialExtent(ofItem: input) else { continue }
                let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
                let (sum, sumOverflow) = inputPixels.addingReportingOverflow(pixels)
                inputPixels = overflow || sumOverflow ? .max : sum
            }
            guard inputPixels <= limits.maxPixelCount else {
                throw .refused(.refusedContent(
                    format: format,
                    reason: "the images its \(type) item \(itemID) combines hold \(inputPixels) pixels together, over the limit of \(limits.maxPixelCount)"))
            }
        }
    }

    /// The output size a derived item's data gives (ISO/IEC 23008-12 6.6.2.3 and 6.6.2.2), and for
    /// a grid its tile count.
    private func outputSize(_ type: String, data: [UInt8], itemID: Int) throws(ParseFailure) -> (width: Int, height: Int, tiles: Int) {
        var reader = ByteReader(data)
        do throws(ParseFailure) {
            let version = try reader.readUInt8()
            guard version == 0 else { throw ParseFailure.malformed("the \(type) item \(itemID) has version \(version)") }
            let fieldSize = try reader.readUInt8() & 1 == 1 ? 4 : 2
            var tiles = 1
            if type == "grid" {
                tiles = (Int(try reader.readUInt8()) + 1) * (Int(try reader.readUInt8()) + 1)
            } else {
                try reader.skip(8)  // The canvas fill colour.
            }
            let width = try reader.readInt(byteCount: fieldSize, .bigEndian)
            let height = try reader.readInt(byteCount: fieldSize, .bigEndian)
            guard width > 0, height > 0 else { throw ParseFailure.malformed("the \(type) item \(itemID) builds \(width)x\(height) pixels") }
            return (width, height, tiles)
        } catch .needMoreBytes {
            throw .malformed("the data of the \(type) item \(itemID) is too short for its description")
        }
    }

    /// Each item's type, from the `infe` entries of `iinf` (versions 2 and 3 name it).
    private func itemTypes() throws(ParseFailure) -> [Int: String] {
        guard var reader = metadata.itemInfo else { return [:] }
        let version = try reader.readUInt8()
        try reader.skip(3 + (version == 0 ? 2 : 4))
        var types: [Int: String] = [:]
        for entry in try ISOBox.children(reader) where entry.type == "infe" {
            var content = entry.payload
            let entryVersion = try content.readUInt8()
            guard entryVersion >= 2 else { continue }
            try content.skip(3)
            let itemID = try content.readInt(byteCount: entryVersion == 2 ? 2 : 4, .bigEndian)
            try content.skip(2)  // Protection index.
            types[itemID] = try content.readFourCC()
        }
        return types
    }

    /// The inputs each derived item names (`dimg` references of `iref`), in order.
    private func derivedImageInputs() throws(ParseFailure) -> [Int: [Int]] {
        guard var reader = metadata.itemReferences else { return [:] }
        let version = try reader.readUInt8()
        try reader.skip(3)
        let idSize = version == 0 ? 2 : 4
        var inputs: [Int: [Int]] = [:]
        for reference in try ISOBox.children(reader) where reference.type == "dimg" {
            var content = reference.payload
            let from = try content.readInt(byteCount: idSize, .bigEndian)
            let count = Int(try content.readUInt16(.bigEndian))
            guard count <= content.remaining / idSize else { throw .malformed("a dimg reference declares \(count) items in \(content.remaining) bytes") }
            for _ in 0..<count { inputs[from, default: []].append(try content.readInt(byteCount: idSize, .bigEndian)) }
        }
        return inputs
    }
}
