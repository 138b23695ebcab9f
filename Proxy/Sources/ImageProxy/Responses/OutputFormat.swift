import ImageDecoding
import ImageFormats

/// Which encoding a processed image is answered in.
enum OutputFormat {
    /// The URL's explicit format if any; else `stored` (what the thumbnail is kept as) when the
    /// request's `Accept` allows it; else the first of WebP, JPEG, PNG that it allows; else `stored`
    /// (a client that accepts no image format gets what there is, as most servers answer).
    static func negotiate(explicit: EncodedFormat?, stored: EncodedFormat, accept: String?) -> EncodedFormat {
        if let explicit { return explicit }
        guard let accept, !accept.isEmpty else { return stored }
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
        if accepts(stored) { return stored }
        return [.webp, .jpeg, .png].first(where: accepts) ?? stored
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
