/// A box of the ISO base media file format (ISO/IEC 14496-12), the container of HEIC and AVIF.
struct ISOBox {
    /// The four-character type, such as `ftyp`, `meta` or `ispe`.
    var type: String
    /// The box's content after its header.
    var payload: ByteReader

    /// Reads a box header: a 32-bit size, the type, and a 64-bit size when the first is 1;
    /// a size of 0 means "to the end of the enclosing box (or file)".
    static func readHeader(_ reader: inout ByteReader) throws(ParseFailure) -> (type: String, payloadSize: Int) {
        let size32 = try reader.readInt(byteCount: 4, .bigEndian)
        let type = try reader.readFourCC()
        switch size32 {
        case 0:
            return (type, reader.remaining)
        case 1:
            let size = try reader.readInt(byteCount: 8, .bigEndian)
            guard size >= 16 else { throw .malformed("box '\(type)' declares \(size) bytes, less than its header") }
            return (type, size - 16)
        default:
            guard size32 >= 8 else { throw .malformed("box '\(type)' declares \(size32) bytes, less than its header") }
            return (type, size32 - 8)
        }
    }

    /// Reads a whole box from inside a parent box; a size beyond the parent is malformed.
    static func read(_ reader: inout ByteReader) throws(ParseFailure) -> ISOBox {
        let header = try readHeader(&reader)
        guard header.payloadSize <= reader.remaining || reader.endIsDataEnd else {
            throw .malformed("box '\(header.type)' of \(header.payloadSize) bytes runs past the end of the box that holds it")
        }
        return ISOBox(type: header.type, payload: try reader.readWindow(header.payloadSize))
    }

    /// The boxes directly inside `reader`, in order.
    static func children(_ reader: ByteReader) throws(ParseFailure) -> [ISOBox] {
        var reader = reader
        var boxes: [ISOBox] = []
        while !reader.isAtEnd {
            boxes.append(try read(&reader))
        }
        return boxes
    }
}
