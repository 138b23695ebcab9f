import CacheArchive
import Foundation
import HTTPCaching
import ImageFormats

/// `index.html` of an export: the images with their key, size, format, pixels and freshness.
///
/// One self-contained file that works from `file://`: inline CSS and a few lines of inline script
/// (a filter box, a note where the browser cannot show a format), nothing fetched from the
/// network. Light for thousands of entries: images load lazily and decode off the main thread,
/// and `content-visibility: auto` skips laying out cards that are off screen.
///
/// Keys, paths and formats are input from whoever filled the cache, so the page is built to hold
/// them as data only: every value is escaped per Unicode scalar (a `"` followed by a combining
/// mark is one Character but still ends an attribute), a Content-Security-Policy allows only the
/// page's own style and script (by their SHA-256) and images from files, and SVG files, which
/// can carry script, are shown through `<img>` only and never linked as documents.
struct GalleryPage {
    let entries: [ManifestEntry]
    /// Each file's preview, by file name (see `ExportWriter.preview(of:)`); a file without one is shown itself.
    let previews: [String: String]
    /// The cache folder the entries came from.
    let source: String
    let exportedAt: Date

    func render() -> String {
        let totalBytes = entries.reduce(0) { $0 + $1.bytes }
        let title = "Cache export: \(entries.count) \(entries.count == 1 ? "image" : "images")"
        var html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="\(escape(Self.contentSecurityPolicy))">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <style>\(Self.style)</style>
            <script>\(Self.script)</script>
            </head>
            <body>
            <header>
            <h1>\(escape(title))</h1>
            <p>\(ByteSize.format(totalBytes)) from <code>\(escape(source))</code>, exported \
            \(escape(exportedAt.formatted(.iso8601))). Freshness as of the export.</p>
            <input id="filter" type="search" placeholder="Filter by key, format or freshness" autocomplete="off">
            </header>
            <main>

            """
        html.reserveCapacity(html.utf8.count + entries.count * 700)
        for entry in entries { html += card(entry) }
        html += """
            </main>
            </body>
            </html>

            """
        return html
    }

    private func card(_ entry: ManifestEntry) -> String {
        let format = entry.format?.uppercased() ?? "unknown format"
        var pixels = "size unknown"
        var attributes = ""
        if let width = entry.width, let height = entry.height {
            pixels = "\(width)×\(height)"
            attributes = " width=\"\(width)\" height=\"\(height)\""
            // Icons and 1-pixel GIFs would be specks: shown enlarged, with hard pixel edges.
            if width <= 48 && height <= 48 { attributes += " class=\"tiny\"" }
        }
        let freshnessName = entry.freshness?.rawValue ?? "unknown"
        let freshness = escape(freshnessName)
        let expiry = entry.expires.map { " · expires \(Self.expiryFormat.format($0))" } ?? ""
        let search = "\(entry.key) \(entry.format ?? "") \(freshnessName)".lowercased()
        let file = escape(entry.file)
        let shown = escape(previews[entry.file] ?? entry.file)
        // Opening a raster image as a document runs nothing; an SVG (or bytes of unknown kind)
        // opened from the same folder could run script, so those are not links.
        let thumb = Self.isSafeToOpen(entry.format) ? "a class=\"thumb\" href=\"\(file)\"" : "div class=\"thumb\""
        let thumbEnd = Self.isSafeToOpen(entry.format) ? "a" : "div"
        return """
            <figure data-search="\(escape(search))"><\(thumb) \
            data-label="\(escape(format)): no preview in this browser">\
            <img src="\(shown)" loading="lazy" decoding="async"\(attributes) alt="\(escape(format)) image"></\(thumbEnd)>\
            <figcaption><div class="key" title="\(escape(entry.key))">\(escape(entry.key))</div>\
            <div>\(escape(format)) · \(escape(pixels)) · \(ByteSize.format(entry.bytes))</div>\
            <div class="\(freshness)">\(freshness)\(escape(expiry))</div></figcaption></figure>

            """
    }

    /// Whether a file of `format` can be opened as a document without running anything: the
    /// raster formats, not SVG and not bytes of unknown kind.
    private static func isSafeToOpen(_ format: String?) -> Bool {
        guard let format = format.flatMap(ImageFormat.init(rawValue:)) else { return false }
        return format != .svg
    }

    /// `2026-11-29 03:47 UTC`: short enough for a card, unambiguous.
    private static let expiryFormat = Date.VerbatimFormatStyle(
        format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits) UTC",
        timeZone: .gmt, calendar: Calendar(identifier: .gregorian))

    /// Text safe inside an element or a quoted attribute.
    ///
    /// Walks Unicode scalars, not Characters: HTML ends an attribute at a `"` scalar even when a
    /// combining mark follows it, and Swift would hand that pair over as one Character.
    private func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\0": escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Nothing loads but images from files (or the same origin when served) and the page's own
    /// style and script, allowed by hash so no injected element can run.
    private static let contentSecurityPolicy = [
        "default-src 'none'", "img-src 'self' file:", "style-src \(SHA256.contentSecurityPolicySource(style))",
        "script-src \(SHA256.contentSecurityPolicySource(script))", "base-uri 'none'", "form-action 'none'",
    ].joined(separator: "; ")

    private static let style = """
        body{margin:0;font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f4f5;color:#1f2328}
        header{position:sticky;top:0;z-index:1;background:#fff;border-bottom:1px solid #d0d7de;padding:12px 20px}
        h1{font-size:18px;margin:0 0 4px}
        header p{margin:0 0 8px;color:#57606a}
        #filter{width:min(420px,100%);padding:5px 8px;border:1px solid #d0d7de;border-radius:6px;font:inherit}
        main{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px;padding:16px 20px}
        figure{margin:0;background:#fff;border:1px solid #d0d7de;border-radius:8px;overflow:hidden;content-visibility:auto;contain-intrinsic-size:auto 260px}
        figure[hidden]{display:none}
        .thumb{text-decoration:none;display:flex;align-items:center;justify-content:center;height:170px;background:#eaeef2 repeating-conic-gradient(#dfe3e8 0 25%,#f3f5f7 0 50%) 0 0/16px 16px}
        img{max-width:100%;max-height:170px;width:auto;height:auto;object-fit:contain}
        img.tiny{width:64px;height:64px;image-rendering:pixelated}
        figcaption{padding:6px 8px 8px;font-size:12px;color:#57606a}
        .key{color:#1f2328;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:11px;word-break:break-all;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
        .thumb.broken img{display:none}
        .thumb.broken::after{content:attr(data-label);color:#57606a;font-size:12px;padding:0 12px;text-align:center}
        .fresh{color:#1a7f37}.stale{color:#9a6700}.expired{color:#cf222e}
        """

    /// In the head, so it is listening before the first image fails: formats the browser cannot
    /// show (TIFF and HEIC in most) get a note instead of a broken-image icon. The filter box is
    /// wired once the cards exist. One script, so the policy names one hash.
    private static let script = """
        document.addEventListener('error', event => {
          if (event.target.tagName === 'IMG') event.target.parentElement.classList.add('broken');
        }, true);
        document.addEventListener('DOMContentLoaded', () => {
          const filter = document.getElementById('filter');
          const cards = Array.from(document.querySelectorAll('figure'));
          filter.addEventListener('input', () => {
            const words = filter.value.toLowerCase().split(/\\s+/).filter(Boolean);
            for (const card of cards) card.hidden = !words.every(word => card.dataset.search.includes(word));
          });
        });
        """
}
