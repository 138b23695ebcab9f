import Foundation
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

    /// The origin's answer for `request`, following the image's style. `epoch` is shared by every
    /// run of the demo, so `Last-Modified` (and so `If-Modified-Since`) agrees across processes.
    static func respond(to request: OriginRequest, epoch: Date) -> OriginResponse {
        let parts = request.path.split(separator: "/")
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
