/// A PNG's compressed metadata: `zTXt` text, compressed `iTXt` text and the `iCCP` profile, each a
/// zlib stream. Decoders inflate them when they read the header, before any pixel, so a file of a
/// few kilobytes can ask for gigabytes there; what they inflate to, all together, is held to
/// ``ValidationLimits/inflatedMetadataByteLimit``.
///
/// Only the size is held here: a damaged stream is one decoders warn about and skip, so it is
/// counted as far as it inflates and not refused.
struct PNGCompressedMetadata {
    private let limit: Int
    /// The bytes the chunks seen so far inflate to, together.
    private(set) var inflatedByteCount = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts what the chunk `type` with `body` inflates to, refusing the file past the limit.
    mutating func add(_ type: String, body: ByteReader) throws(ParseFailure) {
        guard let streamStart = Self.compressedStreamStart(type, body) else { return }
        // The zlib header's two bytes come before the DEFLATE stream.
        guard body.end - streamStart > 2 else { return }
        var inflater = Inflater(input: body.bytes, start: streamStart + 2, end: body.end, outputLimit: limit - inflatedByteCount)
        do {
            try inflater.run()
        } catch .outputLimitReached {
            throw .refused(.refusedContent(
                format: .png,
                reason: "its compressed text and ICC profile chunks inflate to more than \(limit) bytes together, which decoders inflate before any pixel"))
        } catch {
            // Damage is the decoder's to skip; what it inflated is counted below.
        }
        inflatedByteCount += inflater.output.count
    }

    /// Where the zlib stream of a compressed metadata chunk starts, or nil when `type` holds none.
    private static func compressedStreamStart(_ type: String, _ body: ByteReader) -> Int? {
        let bytes = body.bytes[body.offset..<body.end]
        // keyword NUL, compression method, stream
        guard let keywordEnd = bytes.firstIndex(of: 0) else { return nil }
        switch type {
        case "zTXt", "iCCP":
            return keywordEnd + 2
        case "iTXt":
            // keyword NUL, compression flag, method, language NUL, translated keyword NUL, text
            guard keywordEnd + 2 < bytes.endIndex, bytes[keywordEnd + 1] == 1 else { return nil }
            guard let languageEnd = bytes[(keywordEnd + 3)...].firstIndex(of: 0),
                let translatedEnd = bytes[(languageEnd + 1)...].firstIndex(of: 0)
            else { return nil }
            return translatedEnd + 1
        default:
            return nil
        }
    }
}
