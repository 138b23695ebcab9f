import Foundation
import ImageCache
import LoopbackOrigin

/// The simulated feed: generated images served with the header styles real CDNs send.
enum DemoFeed {
    /// How an image's response says it may be cached.
    enum Style: String, CaseIterable {
        /// `Cache-Control: public, max-age=86400` (a versioned asset).
        case longMaxAge = "max-age=1d"
        /// `max-age=1` with an `ETag`: revalidated once stale.
        case shortMaxAgeETag = "max-age=1s+etag"
        /// Only `Last-Modified` (a few seconds ago): heuristic freshness, then If-Modified-Since.
        case lastModifiedOnly = "last-modified"
        /// `Cache-Control: no-store`: never kept on disk.
        case noStore = "no-store"
    }

    static let imagesPerStyle = 8

    /// Every image path in feed order, for one policy's prefix.
    static func paths(prefix: String) -> [String] {
        Style.allCases.flatMap { style in
            (0..<imagesPerStyle).map { "/\(prefix)/\(style.rawValue)/\($0).png" }
        }
    }

    /// The same bytes and validators in every process, so a second run can revalidate.
    static func image(number: Int, style: Style) -> Data {
        let side = 48 + (number * 37 + style.rawValue.count * 11) % 160
        return PNGEncoder.encode(width: side, height: side) { x, y in
            (UInt8(truncatingIfNeeded: x * 3 + number * 40), UInt8(truncatingIfNeeded: y * 2), UInt8(truncatingIfNeeded: (x ^ y) + style.rawValue.count * 30))
        }
    }

    /// Photos for the thumbnail feed: 1200 × 800 JPEGs, served with a day's `max-age`.
    static let photoCount = 12

    static func photoPaths() -> [String] {
        (0..<photoCount).map { "/photos/\($0).jpg" }
    }

    /// The same bytes in every process (the encoder is deterministic), so a second run finds them.
    static let photos: [Data] = (0..<photoCount).map { number in
        let (width, height) = (1200, 800)
        var pixels = Data(count: width * height * 4)
        pixels.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            for y in 0..<height {
                for x in 0..<width {
                    let offset = (y * width + x) * 4
                    bytes[offset] = UInt8(truncatingIfNeeded: x / 5 + number * 20)
                    bytes[offset + 1] = UInt8(truncatingIfNeeded: y / 4 + (x * y) % 7)
                    bytes[offset + 2] = UInt8(truncatingIfNeeded: 160 - number * 9 + (x ^ y) % 13)
                    bytes[offset + 3] = 255
                }
            }
        }
        let image = DecodedImage(pixelWidth: width, pixelHeight: height, pixelFormat: .rgba8, bytesPerRow: width * 4, pixels: pixels)
        return (try? PlatformImageEncoder().encode(image, as: .jpeg, quality: 85)) ?? Data()
    }

    /// The origin's answer for `request`, following the image's style. `epoch` is shared by every
    /// run of the demo, so `Last-Modified` (and so `If-Modified-Since`) agrees across processes.
    static func respond(to request: OriginRequest, epoch: Date) -> OriginResponse {
        let parts = request.path.split(separator: "/")
        if parts.count == 2, parts[0] == "photos", let number = Int(parts[1].dropLast(4)), photos.indices.contains(number) {
            return OriginResponse(
                headers: [HeaderLine("Date", OriginResponse.httpDate(Date())), HeaderLine("Content-Type", "image/jpeg"),
                          HeaderLine("Cache-Control", "public, max-age=86400")],
                body: photos[number])
        }
        guard parts.count == 3, let style = Style(rawValue: String(parts[1])),
            let number = Int(parts[2].dropLast(4))
        else { return OriginResponse(status: 404, headers: [HeaderLine("Content-Type", "text/plain")], body: Data("not found".utf8)) }
        let body = image(number: number, style: style)
        let etag = "\"\(style.rawValue)-\(number)-v1\""
        // Five seconds before the demo started: heuristic freshness (10 % of its age) of about half a second.
        let lastModified = OriginResponse.httpDate(epoch.addingTimeInterval(-5))
        var headers = [HeaderLine("Date", OriginResponse.httpDate(Date())), HeaderLine("Content-Type", "image/png")]
        switch style {
        case .longMaxAge:
            headers.append(HeaderLine("Cache-Control", "public, max-age=86400"))
        case .shortMaxAgeETag:
            headers += [HeaderLine("Cache-Control", "max-age=1"), HeaderLine("ETag", etag)]
            if request.header("If-None-Match") == etag { return OriginResponse(status: 304, headers: headers) }
        case .lastModifiedOnly:
            headers.append(HeaderLine("Last-Modified", lastModified))
            if request.header("If-Modified-Since") == lastModified { return OriginResponse(status: 304, headers: headers) }
        case .noStore:
            headers.append(HeaderLine("Cache-Control", "no-store"))
        }
        return OriginResponse(headers: headers, body: body)
    }
}
