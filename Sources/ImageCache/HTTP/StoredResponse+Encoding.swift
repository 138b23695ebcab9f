import Foundation

extension StoredResponse {
    /// The first bytes of every encoding: "SR" and the format version.
    private static let encodingHeader: [UInt8] = [0x53, 0x52, 1]
    /// Version 2: version 1 followed by a ``StoredFreshness`` (the disk tier's form).
    private static let annotatedHeader: [UInt8] = [0x53, 0x52, 2]

    /// A compact, stable binary form of the whole stored response (everything but the body), for the
    /// storage layer to keep as one opaque blob beside the body.
    ///
    /// The format is "SR", a version byte (1), the status as a LEB128 varint, the request and response
    /// times as the bit patterns of their `timeIntervalSinceReferenceDate` (exact round trip), then
    /// ``headers`` and ``varyingRequestHeaders`` as length-prefixed ``HeaderFields/encoded()`` blobs.
    public func encoded() -> Data {
        Data(encodedBytes(header: Self.encodingHeader))
    }

    /// The version 2 form: ``encoded()``'s fields, then `freshness`. ``init(encoded:)`` reads both
    /// versions and ignores the summary.
    func encoded(freshness: StoredFreshness) -> Data {
        var bytes = encodedBytes(header: Self.annotatedHeader)
        freshness.append(to: &bytes)
        return Data(bytes)
    }

    private func encodedBytes(header: [UInt8]) -> [UInt8] {
        var bytes = header
        HTTPBlobCoding.appendVarint(UInt64(clamping: max(status, 0)), to: &bytes)
        for time in [requestTime, responseTime] {
            HTTPBlobCoding.appendVarint(time.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        }
        for fields in [headers, varyingRequestHeaders] {
            let blob = fields.encoded()
            HTTPBlobCoding.appendVarint(UInt64(blob.count), to: &bytes)
            bytes.append(contentsOf: blob)
        }
        return bytes
    }

    /// Decodes a response written by ``encoded()``; nil when `data` is damaged or from an unknown version.
    public init?(encoded data: Data) {
        guard let decoded = Self.decodeAnnotated(data) else { return nil }
        self = decoded.response
    }

    /// Decodes either version; the freshness summary is nil for version 1.
    static func decodeAnnotated(_ data: Data) -> (response: StoredResponse, freshness: StoredFreshness?)? {
        data.withUnsafeBytes { decode($0) }
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) -> (response: StoredResponse, freshness: StoredFreshness?)? {
        var reader = HTTPBlobCoding.Reader(bytes)
        guard let header = reader.read(count: encodingHeader.count) else { return nil }
        let annotated = header.elementsEqual(annotatedHeader)
        guard annotated || header.elementsEqual(encodingHeader), let status = reader.readVarint(), status <= 999,
            let requestBits = reader.readVarint(), let responseBits = reader.readVarint()
        else { return nil }
        guard let headers = readFieldList(&reader), let varying = readFieldList(&reader) else { return nil }
        var freshness: StoredFreshness?
        if annotated {
            guard let summary = StoredFreshness(reading: &reader) else { return nil }
            freshness = summary
        }
        let requestTime = Double(bitPattern: requestBits)
        let responseTime = Double(bitPattern: responseBits)
        guard reader.remaining == 0, requestTime.isFinite, responseTime.isFinite else { return nil }
        let response = StoredResponse(
            status: Int(status), headers: headers,
            requestTime: Date(timeIntervalSinceReferenceDate: requestTime),
            responseTime: Date(timeIntervalSinceReferenceDate: responseTime), varyingRequestHeaders: varying)
        return (response, freshness)
    }

    /// A length-prefixed ``HeaderFields`` encoding, read in place through a reader over just its bytes.
    private static func readFieldList(_ reader: inout HTTPBlobCoding.Reader) -> HeaderFields? {
        guard let length = reader.readVarint(), length <= UInt64(reader.remaining),
            var nested = reader.nested(count: Int(length))
        else { return nil }
        return HeaderFields(reading: &nested)
    }
}
