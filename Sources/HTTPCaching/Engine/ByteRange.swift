import Foundation

/// The one byte range a request asks for (`Range: bytes=…`, RFC 9110 §14.1.2), resolved against a
/// stored body's length, so the cache can answer a range request from a complete stored response.
///
/// Anything else (several ranges, another unit, an unsatisfiable range) yields nil, and the cache
/// serves the whole response instead, as a server may ignore `Range` (§14.2).
struct ByteRange: Hashable {
    /// The first and last byte offsets, inclusive.
    let first: Int
    let last: Int
    let completeLength: Int

    init?(header: String, completeLength: Int) {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard completeLength > 0, value.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = value.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let start = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let end = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        switch (Self.offset(start), Self.offset(end)) {
        case let (first?, last?) where first <= last && first < completeLength:
            (self.first, self.last) = (first, min(last, completeLength - 1))
        case (let first?, nil) where end.isEmpty && first < completeLength:
            (self.first, self.last) = (first, completeLength - 1)
        case (nil, let suffix?) where start.isEmpty && suffix > 0:
            (self.first, self.last) = (max(0, completeLength - suffix), completeLength - 1)
        default:
            return nil
        }
        self.completeLength = completeLength
    }

    /// `Content-Range` for this range: `bytes 0-1/11`.
    var contentRange: String { "bytes \(first)-\(last)/\(completeLength)" }

    /// The bytes of `body` this range covers.
    func slice(_ body: Data) -> Data {
        body.subdata(in: (body.startIndex + first)..<(body.startIndex + last + 1))
    }

    private static func offset(_ text: String) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
