import Foundation

extension StoredResponse {
    /// The first bytes of every encoding: "SR" and the format version.
    private static let encodingHeader: [UInt8] = [0x53, 0x52, 1]

    /// A compact, stable binary form of the whole stored response (everything but the body), for the
    /// storage layer to keep as one opaque blob beside the body.
    ///
    /// The format is "SR", a version byte (1), the status as a LEB128 varint, the request and response
    /// times as the bit patterns of their `timeIntervalSinceReferenceDate` (exact round trip), then
    /// ``headers`` and ``varyingRequestHeaders`` as length-prefixed ``HeaderFields/encoded()`` blobs.
    public func encoded() -> Data {
        var bytes = Self.encodingHeader
        HTTPBlobCoding.appendVarint(UInt64(clamping: max(status, 0)), to: &bytes)
        for time in [requestTime, responseTime] {
            HTTPBlobCoding.appendVarint(time.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        }
        for fields in [headers, varyingRequestHeaders] {
            let blob = fields.encoded()
            HTTPBlobCoding.appendVarint(UInt64(blob.count), to: &bytes)
            bytes.append(contentsOf: blob)
        }
        return Data(bytes)
    }

    /// Decodes a response written by ``encoded()``; nil when `data` is damaged or from an unknown version.
    public init?(encoded data: Data) {
        var reader = HTTPBlobCoding.Reader(bytes: Array(data))
        guard reader.read(count: Self.encodingHeader.count) == Self.encodingHeader[...],
            let status = reader.readVarint(), status <= 999,
            let requestBits = reader.readVarint(), let responseBits = reader.readVarint()
        else { return nil }
        var fieldLists: [HeaderFields] = []
        for _ in 0..<2 {
            guard let length = reader.readVarint(), length <= UInt64(reader.remaining),
                let blob = reader.read(count: Int(length)), let fields = HeaderFields(encoded: Data(blob))
            else { return nil }
            fieldLists.append(fields)
        }
        let requestTime = Double(bitPattern: requestBits)
        let responseTime = Double(bitPattern: responseBits)
        guard reader.remaining == 0, requestTime.isFinite, responseTime.isFinite else { return nil }
        self.init(
            status: Int(status), headers: fieldLists[0],
            requestTime: Date(timeIntervalSinceReferenceDate: requestTime),
            responseTime: Date(timeIntervalSinceReferenceDate: responseTime), varyingRequestHeaders: fieldLists[1])
    }
}
