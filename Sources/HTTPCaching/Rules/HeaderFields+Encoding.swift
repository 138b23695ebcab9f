import Foundation

extension HeaderFields {
    /// The first bytes of every encoding: "HF" and the format version.
    private static let encodingHeader: [UInt8] = [0x48, 0x46, 1]

    /// A compact, stable binary form of the list, for the storage layer to keep as an opaque blob.
    ///
    /// The format is "HF", a version byte (1), the field count, then for each field its name and
    /// value, each as a length and UTF-8 bytes; counts and lengths are LEB128 varints.
    /// It never changes for version 1, so blobs written today decode in every later release.
    public func encoded() -> Data {
        var bytes = Self.encodingHeader
        HTTPBlobCoding.appendVarint(UInt64(fields.count), to: &bytes)
        for field in fields {
            HTTPBlobCoding.appendString(field.name, to: &bytes)
            HTTPBlobCoding.appendString(field.value, to: &bytes)
        }
        return Data(bytes)
    }

    /// Decodes a list written by ``encoded()``; nil when `data` is truncated, has trailing bytes,
    /// holds invalid UTF-8 or comes from an unknown format version.
    public init?(encoded data: Data) {
        guard
            let fields = data.withUnsafeBytes({ bytes -> HeaderFields? in
                var reader = HTTPBlobCoding.Reader(bytes)
                return HeaderFields(reading: &reader)
            })
        else { return nil }
        self = fields
    }

    /// Decodes a list that fills the rest of `reader` (see ``init(encoded:)``).
    init?(reading reader: inout HTTPBlobCoding.Reader) {
        guard reader.skip(Self.encodingHeader), let count = reader.readVarint() else { return nil }
        var fields: [Field] = []
        // Each field needs at least two bytes, which bounds `count` before anything is reserved.
        guard count <= UInt64(reader.remaining / 2) else { return nil }
        fields.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let name = reader.readString(), !name.isEmpty, let value = reader.readString() else { return nil }
            fields.append(Field(name, value))
        }
        guard reader.remaining == 0 else { return nil }
        self.init(fields)
    }
}
