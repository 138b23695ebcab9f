import Foundation
import ImageCache
import Testing

/// SVG sizes, well-formedness and the refusals that protect renderers.
@Suite("SVG validation")
struct SVGValidationTests {
    let validator = ImageValidator()

    private func size(_ svg: String) throws -> (Int, Int) {
        let info = try validator.validate(SyntheticImages.text(svg))
        return (info.pixelWidth, info.pixelHeight)
    }

    @Test("width and height in absolute units, else the viewBox, else 300x150")
    func intrinsicSize() throws {
        #expect(try size(#"<svg width="64" height="32px"/>"#) == (64, 32))
        #expect(try size(#"<svg width="1in" height="2.54cm" viewBox="0 0 1 1"></svg>"#) == (96, 96))
        #expect(try size(#"<svg viewBox="0,0,120.4,80"></svg>"#) == (120, 80))
        #expect(try size(#"<svg width="100%" height="100%" viewBox="0 0 40 20"></svg>"#) == (40, 20))
        #expect(try size(#"<svg width="80" viewBox="0 0 40 20"></svg>"#) == (80, 40))
        #expect(try size("<svg></svg>") == (300, 150))
        #expect(try size("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x.dtd\">\n<svg width='5' height='6'/>\n") == (5, 6))
    }

    @Test("a root length is read as its longest number prefix, once: a run of dots is an unknown unit, a long number is its value")
    func longRootLengths() throws {
        let dots = "1" + String(repeating: ".", count: 300_000)
        do {
            let info = try validator.validate(SyntheticImages.text(#"<svg width="\#(dots)" height="10"/>"#))
            Issue.record("a width of 1 and 300,000 dots was accepted as \(info)")
        } catch {
            guard case let .invalidHeader(.svg, reason) = error else {
                Issue.record("a width of 1 and 300,000 dots must be a header error, not \(error)")
                return
            }
            #expect(reason.contains("unknown unit"), "\(reason)")
        }
        let zeros = String(repeating: "0", count: 300_000)
        #expect(try size(#"<svg width="\#(zeros)64" height="+\#(zeros).5e2px"/>"#) == (64, 50))
        #expect(try size(#"<svg width="5." height="1.e1"/>"#) == (5, 10))
        #expect(try size(#"<svg width="5em" height="2" viewBox="0 0 4 1"></svg>"#) == (8, 2), "em is relative: the viewBox gives the width")
        #expect(throws: ImageValidationError.self) { try size(#"<svg width="1e" height="1"/>"#) }
        #expect(throws: ImageValidationError.self) { try size(#"<svg width="1.5.5" height="1"/>"#) }
        #expect(throws: ImageValidationError.self) { try size(#"<svg width="-.e" height="1"/>"#) }
    }

    @Test("entity declarations are refused before anything expands")
    func billionLaughs() {
        let svg = """
            <?xml version="1.0"?>
            <!DOCTYPE svg [ <!ENTITY a "lol"> <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;"> ]>
            <svg width="10" height="10"><text>&b;</text></svg>
            """
        guard case let .refused(error) = validator.inspectPrefix(SyntheticImages.text(svg)), case .refusedContent(.svg, _) = error else {
            Issue.record("a DOCTYPE declaring entities must be refused from the prefix")
            return
        }
        #expect(error.stage == .policy)
    }

    @Test("a huge declared size is refused by the pixel limit, not trapped on")
    func hugeSize() {
        #expect(throws: ImageValidationError.self) { try validator.validate(SyntheticImages.text(#"<svg width="1e300" height="1e9"/>"#)) }
        #expect(throws: ImageValidationError.tooManyPixels(format: .svg, width: 20000, height: 20000, limit: 100_000_000)) {
            try validator.validate(SyntheticImages.text(#"<svg width="20000" height="20000"/>"#))
        }
    }

    @Test("unbalanced tags, text after the root and a missing </svg> are refused", arguments: [
        (#"<svg width="1" height="1"><g></svg>"#, ValidationStage.structure),
        (#"<svg width="1" height="1"></svg>junk"#, .structure),
        (#"<svg width="1" height="1"><g>"#, .structure),
        (#"<svg width="1" height="1"><rect x=1/></svg>"#, .structure),
        (#"<svg width="-4" height="1"/>"#, .header),
        ("<html><body>not found</body></html>", .sniff),
    ])
    func malformedDocuments(svg: String, stage: ValidationStage) {
        do {
            let info = try validator.validate(SyntheticImages.text(svg))
            Issue.record("\(svg) was accepted as \(info)")
        } catch {
            #expect(error.stage == stage, "\(svg): \(error)")
        }
    }

    @Test("SVGZ is sniffed and measured through gzip; its expansion and element count are limited")
    func compressedSVG() throws {
        let svgz = try #require(Data(base64Encoded: Self.smallSVGZ))
        #expect(validator.sniff(svgz) == .svg)
        #expect(try validator.validate(svgz) == ImageInfo(format: .svg, pixelWidth: 64, pixelHeight: 32, isAnimated: false, frameCount: 1))
        #expect(throws: ImageValidationError.self) { try validator.validate(svgz.dropLast(4)) }

        let many = try #require(Data(base64Encoded: Self.manyElementsSVGZ))
        #expect(throws: ImageValidationError.self) { try ImageValidator(svgByteLimit: 100_000).validate(many) }
        do {
            _ = try validator.validate(many)
            Issue.record("300,000 elements must be refused")
        } catch {
            guard case .refusedContent = error else {
                Issue.record("300,000 elements must be refused as refused content, not \(error)")
                return
            }
        }
    }

    /// `<svg ... width="64" height="32"><rect .../></svg>` gzip-compressed.
    static let smallSVGZ = "H4sIAAAAAAAC/7MpLktXqMjNySu2VcooKSmw0tcvLy/XKzfWyy9K1zcyMDDQB6pQUijPTCnJsFUyM1FSyEjNTM8osVUyNlKysylKTS7BIalvZwPSa8cFAEHZuUNkAAAA"

    /// A 10x10 SVG with 300,000 empty `<g/>` elements (1.2 MB), gzip-compressed to 1.3 KB.
    static let manyElementsSVGZ = [
        "H4sIAAAAAAAC/+3K2wnCMABA0VVKBmii/knbaZSk4AsTGsdXnKADnI8D9+NOdcvD53571DmU1l7nGHvvYz+Nz3eOx5RS/B1h6Oul",
        "lTkcUhjKdc2l/XuZcgQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA9op1y8sX//sxCsVPEgA=",
    ].joined()
}
