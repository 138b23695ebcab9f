/// What an SVG would cost to render, checked as the document walker meets each element and each
/// run of text: references and markers expanded (``SVGRenderCost``), filter parameters
/// (``SVGFilterBounds``), embedded `data:` images (``SVGEmbeddedImages``) and the length of text.
struct SVGRenderChecks {
    /// The most bytes of character data one `<text>` element may hold, its `<tspan>`s included:
    /// 2 KiB. Laying out a text element costs more than linear time in its length.
    static let maxTextElementBytes = 2 << 10
    /// The most bytes of character data all `<text>` elements may hold together: 16 KiB.
    static let maxTextBytes = 16 << 10

    private enum Kind {
        case text, style, other
    }

    private var cost = SVGRenderCost()
    private var embeddedImages: SVGEmbeddedImages
    /// The document's larger side in user units, which bounds a blur.
    private let userSpaceExtent: Double
    /// The open elements, innermost last: their index in ``cost`` and their kind.
    private var open: [(index: Int, kind: Kind)] = []
    private var textDepth = 0
    private var elementTextBytes = 0
    private var totalTextBytes = 0
    private var styleSheet: [UInt8] = []

    /// Checks for a document whose larger side is `userSpaceExtent` user units, under `limits`.
    init(limits: ValidationLimits, userSpaceExtent: Double) {
        embeddedImages = SVGEmbeddedImages(limits: limits)
        self.userSpaceExtent = userSpaceExtent
    }

    /// The pixels of the embedded `data:` images, together.
    var embeddedPixelCount: Int { embeddedImages.pixelCount }

    /// An element opens (and, when `isSelfClosing`, closes at once).
    mutating func open(_ name: ArraySlice<UInt8>, attributes: [(name: String, value: String)], isSelfClosing: Bool) throws(ParseFailure) {
        let written = XMLStartTag.text(name)
        let localName = written.split(separator: ":").last.map(String.init) ?? written
        try SVGFilterBounds.check(localName, attributes: attributes, extent: userSpaceExtent)
        for (attribute, value) in attributes where (attribute == "href" || attribute.hasSuffix(":href")) && SVGEmbeddedImages.isDataURI(value) {
            try embeddedImages.check(value)
        }
        let index = cost.add(name: localName, attributes: attributes, parent: open.last?.index)
        guard !isSelfClosing else { return }
        let kind: Kind = localName == "text" ? .text : localName == "style" ? .style : .other
        if kind == .text {
            if textDepth == 0 { elementTextBytes = 0 }
            textDepth += 1
        }
        open.append((index, kind))
    }

    /// The innermost open element closes.
    mutating func close() {
        guard let (_, kind) = open.popLast() else { return }
        switch kind {
        case .text: textDepth -= 1
        case .style:
            cost.addStyleSheet(String(decoding: styleSheet, as: UTF8.self))
            styleSheet = []
        case .other: break
        }
    }

    /// Character data (text or a CDATA section) inside the innermost open element.
    mutating func characters(_ bytes: ArraySlice<UInt8>) throws(ParseFailure) {
        if open.last?.kind == .style { styleSheet += bytes }
        guard textDepth > 0 else { return }
        elementTextBytes += bytes.count
        totalTextBytes += bytes.count
        guard elementTextBytes <= Self.maxTextElementBytes else {
            throw .refused(.refusedContent(
                format: .svg, reason: "a <text> element holds more than \(Self.maxTextElementBytes) bytes of text, which renderers lay out slowly"))
        }
        guard totalTextBytes <= Self.maxTextBytes else {
            throw .refused(.refusedContent(
                format: .svg, reason: "its <text> elements hold more than \(Self.maxTextBytes) bytes of text together, which renderers lay out slowly"))
        }
    }

    /// Refuses the document when rendering it would draw too much (see ``SVGRenderCost/check()``).
    func finish() throws(ParseFailure) {
        try cost.check()
    }
}
