import ImageDecoding
import ImageFormats

/// Which encoding a processed image is answered in, decided before it is loaded, so that the
/// pipeline keeps the thumbnail in that format (`ImageRequest.processedFormat`) and the answer
/// is the stored bytes, encoded once from the original's pixels.
enum OutputFormat {
    /// The URL's explicit format if any. Else nil, the pipeline's own choice (JPEG, or PNG where
    /// there is transparency), when `Accept` allows both; else the first of WebP, JPEG, PNG that it
    /// allows; else nil (a client that accepts no image format gets what there is, as most servers
    /// answer).
    static func requested(explicit: EncodedFormat?, accept: String?) -> EncodedFormat? {
        if let explicit { return explicit }
        guard let accept, !accept.isEmpty else { return nil }
        let ranges = accept.split(separator: ",").compactMap { range -> (type: Substring, quality: Double)? in
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let type = parts.first, !type.isEmpty else { return nil }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (Substring(type.lowercased()), quality)
        }
        func accepts(_ format: EncodedFormat) -> Bool {
            let type = "image/\(format.rawValue)"
            if let exact = ranges.first(where: { $0.type == type }) { return exact.quality > 0 }
            if let family = ranges.first(where: { $0.type == "image/*" }) { return family.quality > 0 }
            if let any = ranges.first(where: { $0.type == "*/*" }) { return any.quality > 0 }
            return false
        }
        if accepts(.jpeg) && accepts(.png) { return nil }
        return [.webp, .jpeg, .png].first(where: accepts)
    }

    /// The stored encoding `format` is, when it is one an encoder writes.
    static func encoded(_ format: ImageFormat) -> EncodedFormat? {
        switch format {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        default: nil
        }
    }
}
