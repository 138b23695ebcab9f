import Foundation

extension StoredResponse {
    /// The first bytes of every encoding: "SR" and the format version.
    private static let magic: [UInt8] = [0x53, 0x52]
    /// Version 1: the request fields `Vary` names kept in clear. Read, never written.
    private static let clearVersion: UInt8 = 1
    /// Version 2: version 1 followed by a ``StoredFreshness`` (the disk tier's form). Read, never written.
    private static let clearAnnotatedVersion: UInt8 = 2
    /// Version 3: version 1 followed by ``varyingRequestFingerprints``.
    private static let plainVersion: UInt8 = 3
    /// Version 4: version 3 followed by a ``StoredFreshness``.
    private static let annotatedVersion: UInt8 = 4

    /// A compact, stable binary form of the whole stored response (everything but the body), for the
    /// storage layer to keep as one opaque blob beside the body.
    ///
    /// The format is "SR", a version byte (3), the status as a LEB128 varint, the request and response
    /// times as the bit patterns of their `timeIntervalSinceReferenceDate` (exact round trip), then
    /// ``headers``, ``varyingRequestHeaders`` and ``varyingRequestFingerprints`` as length-prefixed
    /// ``HeaderFields/encoded()`` blobs. Versions 1 and 2, written by earlier versions with the
    /// `Vary`-selected values in clear and no fingerprints, are still read.
    public func encoded() -> Data {
        Data(encodedBytes(version: Self.plainVersion))
    }

    /// The version 4 form: ``encoded()``'s fields, then `freshness`. ``init(encoded:)`` reads every
    /// version and ignores the summary.
    package func encoded(freshness: StoredFreshness) -> Data {
        var bytes = encodedBytes(version: Self.annotatedVersion)
        freshness.append(to: &bytes)
        return Data(bytes)
    }

    private func encodedBytes(version: UInt8) -> [UInt8] {
        var bytes = Self.magic + [version]
        HTTPBlobCoding.appendVarint(UInt64(clamping: max(status, 0)), to: &bytes)
        for time in [requestTime, responseTime] {
            HTTPBlobCoding.appendVarint(time.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        }
        for fields in [headers, varyingRequestHeaders, varyingRequestFingerprints] {
            let blob = fields.encoded()
            HTTPBlobCoding.appendVarint(UInt64(blob.count), to: &bytes)
            bytes.append(contentsOf: blob)
        }
        return bytes
    }

    /// `data` as it may leave the machine (an export, a copy): unchanged when written by this version,
    /// which keeps no credentials; re-encoded when written by an earlier one, without its
    /// credential-bearing response fields and the `Vary`-selected credentials it kept in clear
    /// (``withoutCredentials``). Nil when `data` is not a stored response.
    public static func withoutCredentials(encoded data: Data) -> Data? {
        guard let stored = StoredResponse(encoded: data) else { return nil }
        guard data.count > magic.count, data[data.startIndex + magic.count] < plainVersion else { return data }
        return stored.withoutCredentials.encoded()
    }

    /// Decodes a response written by ``encoded()``; nil when `data` is damaged or from an unknown version.
    public init?(encoded data: Data) {
        guard let decoded = Self.decodeAnnotated(data) else { return nil }
        self = decoded.response
    }

    /// Decodes either version; the freshness summary is nil for version 1.
    package static func decodeAnnotated(_ data: Data) -> (response: StoredResponse, freshness: StoredFreshness?)? {
        data.withUnsafeBytes { decode($0) }
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) -> (response: StoredResponse, freshness: StoredFreshness?)? {
        var reader = HTTPBlobCoding.Reader(bytes)
        guard reader.skip(magic), let version = reader.read(count: 1)?.first,
            (clearVersion...annotatedVersion).contains(version)
        else { return nil }
        let annotated = version == clearAnnotatedVersion || version == annotatedVersion
        let legacy = version < plainVersion
        guard let status = reader.readVarint(), status <= 999,
            let requestBits = reader.readVarint(), let responseBits = reader.readVarint()
        else { return nil }
        guard var headers = readFieldList(&reader), let varying = readFieldList(&reader) else { return nil }
        var fingerprints = HeaderFields()
        if legacy {
            // Kept by an earlier version: a Set-Cookie stored then is not replayed now.
            headers.removeAll { CredentialFields.response.contains(HTTPSyntax.lowercased($0.name)) }
        } else {
            guard let stored = readFieldList(&reader) else { return nil }
            fingerprints = stored
        }
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
            responseTime: Date(timeIntervalSinceReferenceDate: responseTime), varyingRequestHeaders: varying,
            varyingRequestFingerprints: fingerprints)
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
