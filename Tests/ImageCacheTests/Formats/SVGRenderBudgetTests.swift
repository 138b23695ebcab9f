import Foundation
import LoopbackOrigin
import Testing

@testable import ImageFormats

/// SVGs whose cost to render their declared size does not show: embedded `data:` images decoded
/// at their own size, filter parameters, long text, markers drawn at every vertex; and scans that
/// stay linear on unterminated input. Each is made here and refused for decoding with a typed error.
@Suite("SVG render budgets")
struct SVGRenderBudgetTests {
    let validator = ImageValidator()

    static func svg(_ body: String, size: Int = 100) -> Data {
        Data(##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\##(size)" height="\##(size)">\##(body)</svg>"##.utf8)
    }

    /// `svg` refused for decoding with a policy-stage reason containing `text`, and accepted by `validate`.
    func expectRefusedForDecoding(_ svg: Data, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((try? validator.validate(svg)) != nil, "validate only checks structure", sourceLocation: sourceLocation)
        #expect(sourceLocation: sourceLocation) {
            try validator.validateForDecoding(svg)
        } throws: { error in
            guard case let .refusedContent(format, reason) = error as? ImageValidationError, format == .svg, reason.contains(text) else {
                Issue.record("unexpected: \(error)", sourceLocation: sourceLocation)
                return false
            }
            return true
        }
    }

    static func base64(_ data: Data) -> String { "data:image/png;base64," + data.base64EncodedString() }

    @Test("a data: image is validated like a download and its pixels counted; an SVG inside is refused")
    func embeddedImages() throws {
        let small = PNGEncoder.encode(width: 4, height: 3) { _, _ in (1, 2, 3) }
        let accepted = try validator.validateForDecoding(Self.svg(#"<image width="4" height="3" href="\#(Self.base64(small))"/>"#))
        #expect(accepted.embeddedPixelCount == 12)
        // Percent-encoded, and named by xlink:href.
        let percent = "data:image/png," + [UInt8](small).map { String(format: "%%%02X", $0) }.joined()
        #expect(try validator.validateForDecoding(Self.svg(#"<image xlink:href="\#(percent)"/>"#)).embeddedPixelCount == 12)

        // As found: a 100x100 document drawing a 20000x20000 image.
        let huge = Data(SyntheticImages.png(width: 20_000, height: 20_000))
        expectRefusedForDecoding(Self.svg(#"<image width="100" height="100" href="\#(Self.base64(huge))"/>"#), "20000x20000 pixels")
        // Each under the limit, over it together.
        let large = Self.base64(Data(SyntheticImages.png(width: 9000, height: 9000)))
        expectRefusedForDecoding(
            Self.svg(#"<image href="\#(large)"/><image href="\#(large)"/>"#), "with the images before it is over the limit")
        let inner = "data:image/svg+xml;base64," + Self.svg("<rect width='1' height='1'/>").base64EncodedString()
        expectRefusedForDecoding(Self.svg(#"<image href="\#(inner)"/>"#), "an SVG image as a data: URI")
        expectRefusedForDecoding(Self.svg(#"<image href="data:image/png;base64,!!!"/>"#), "not valid base64")
        var broken = [UInt8](small)
        broken[broken.count - 20] ^= 0xFF
        expectRefusedForDecoding(Self.svg(#"<image href="\#(Self.base64(Data(broken)))"/>"#), "data: URI image that is refused")
        // A metadata bomb inside is found by the embedded image's own walk.
        let bomb = DecodingBombTests.png(with: [DecodingBombTests.compressedText(zeroCount: 4 << 20)])
        expectRefusedForDecoding(Self.svg(#"<image href="\#(Self.base64(bomb))"/>"#), "inflate to more than 1048576 bytes together")
    }

    @Test(
        "filter parameters whose cost grows at every pixel are bounded; ordinary values pass",
        arguments: [
            (#"<feTurbulence baseFrequency="0.05" numOctaves="5000"/>"#, "numOctaves is 5000"),
            (#"<feConvolveMatrix order="3 50" kernelMatrix="1"/>"#, "order is 50"),
            (#"<feMorphology operator="dilate" radius="1000"/>"#, "radius is 1000"),
            (#"<feGaussianBlur stdDeviation="5 100000"/>"#, "stdDeviation is 100000"),
            (#"<feDropShadow stdDeviation="1e9"/>"#, "stdDeviation is 1e9"),
        ])
    func filterBounds(primitive: String, reason: String) throws {
        expectRefusedForDecoding(Self.svg(#"<filter id="f">\#(primitive)</filter><rect filter="url(#f)" width="10" height="10"/>"#), reason)
    }

    @Test("filters as real drawings use them are accepted")
    func ordinaryFilters() throws {
        let filters = #"""
            <filter id="f"><feTurbulence baseFrequency="0.05" numOctaves="4"/><feConvolveMatrix order="3" kernelMatrix="0 1 0 1 1 1 0 1 0"/>
            <feMorphology radius="2 3"/><feGaussianBlur stdDeviation="50"/><feDropShadow stdDeviation="3"/></filter><rect filter="url(#f)" width="10" height="10"/>
            """#
        #expect(try validator.validateForDecoding(Self.svg(filters)).pixelWidth == 100)
        // A blur is bounded by the larger of the declared size and the viewBox.
        let viewBox = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 10000 10000"><filter id="f"><feGaussianBlur stdDeviation="5000"/></filter></svg>"#.utf8)
        #expect(try validator.validateForDecoding(viewBox).pixelWidth == 100)
    }

    @Test("text is bounded per <text> element and in total; labels pass")
    func textLength() throws {
        let label = String(repeating: "label ", count: 100)
        #expect(try validator.validateForDecoding(Self.svg(String(repeating: "<text x='1' y='1'>\(label)</text>", count: 20))).pixelWidth == 100)
        // As found: one long text of 32 KB.
        expectRefusedForDecoding(Self.svg("<text>" + String(repeating: "W", count: 32 << 10) + "</text>"), "a <text> element holds more than 2048 bytes")
        expectRefusedForDecoding(
            Self.svg("<text><tspan>" + String(repeating: "W", count: 1500) + "</tspan><tspan><![CDATA[" + String(repeating: "W", count: 1500) + "]]></tspan></text>"),
            "a <text> element holds more than 2048 bytes")
        expectRefusedForDecoding(Self.svg(String(repeating: "<text>\(label)\(label)\(label)</text>", count: 20)), "hold more than 16384 bytes of text together")
    }

    /// A path of `vertices` vertices, with a marker of `markerElements` elements at each set as `how`.
    static func markedPath(vertices: Int, markerElements: Int, how: String) -> Data {
        let marker = #"<marker id="m">"# + String(repeating: #"<circle r="1"/>"#, count: markerElements) + "</marker>"
        let points = (0..<vertices).map { "L\($0 % 100) \($0 / 100)" }.joined(separator: " ")
        switch how {
        case "attribute": return svg(marker + #"<path marker-mid="url(#m)" d="M0 0 \#(points)"/>"#)
        case "inherited": return svg(marker + #"<g style="marker: url(#m)"><path d="M0 0 \#(points)"/></g>"#)
        default: return svg("<style><![CDATA[ path { marker-mid: url(#m) } ]]></style>" + marker + #"<path d="M0 0 \#(points)"/>"#)
        }
    }

    @Test("markers are counted at every vertex of the shapes that use them", arguments: ["attribute", "inherited", "style sheet"])
    func markers(how: String) throws {
        #expect(try validator.validateForDecoding(Self.markedPath(vertices: 200, markerElements: 5, how: how)).pixelWidth == 100)
        // 10,000 vertices × 100 circles: a million elements drawn from 100 KB.
        expectRefusedForDecoding(Self.markedPath(vertices: 10_000, markerElements: 100, how: how), "markers drawn at every vertex")
    }

    @Test("each marker drawn costs a renderer more than an element: many vertices with a small marker are refused", arguments: ["attribute", "inherited", "style sheet"])
    func markerInstances(how: String) throws {
        // 20,000 vertices × a 2-element marker: 60,000 elements by count alone, far under the
        // element limit, but 20,000 viewports set up and drawn into.
        expectRefusedForDecoding(Self.markedPath(vertices: 20_000, markerElements: 2, how: how), "markers drawn at every vertex")
        // A chart's worth of markers is drawn.
        #expect(try validator.validateForDecoding(Self.markedPath(vertices: 500, markerElements: 2, how: how)).pixelWidth == 100)
    }

    @Test("a shape's vertices are counted from its numbers")
    func vertexCount() {
        #expect(SVGVertexCount.numberCount("M0 0 L10.5-3e2 .5.5 1e-5") == 7)
        #expect(SVGVertexCount.of(shape: "polyline", attribute: "points", value: "0,0 10,10 20,0") == 3)
        #expect(SVGVertexCount.of(shape: "path", attribute: "fill", value: "1 2 3") == 0)
    }

    @Test(
        "a megabyte of unterminated references, numbers or declarations validates in one pass",
        arguments: ["url(", "url(#", "url( '#a", "url(#a)", "marker-mid:url(#", ";", "1.", "data:,", "data:;base64,"])
    func linearScans(unit: String) throws {
        let run = String(repeating: unit, count: (1 << 20) / unit.utf8.count)
        let escaped = run.replacingOccurrences(of: "'", with: "&apos;")
        for attribute in ["style", "d", "href"] {
            let svg = Data(##"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><path \##(attribute)='\##(escaped)'/></svg>"##.utf8)
            do {
                _ = try validator.validateForDecoding(svg)
            } catch {
                // A refusal is as good as an acceptance here, as long as it is a typed one and comes at once.
                #expect(error.stage != .sniff, "\(unit) in \(attribute): \(error)")
            }
        }
    }
}
