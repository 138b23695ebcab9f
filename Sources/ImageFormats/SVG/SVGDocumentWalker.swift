/// Walks an SVG document from its root element to the end, checking it is well-formed enough to
/// render: tags balance, the root closes, nothing but comments follows it, and it stays within
/// element and nesting limits. It is not a full XML parser; it rejects what would break one.
struct SVGDocumentWalker {
    /// The most elements a document may hold: far above real icons and illustrations, far below
    /// the counts that make renderers stall.
    static let maxElementCount = 250_000
    /// The deepest nesting accepted.
    static let maxDepth = 512

    private let bytes: [UInt8]
    private var openElements: [ArraySlice<UInt8>] = []
    private var elementCount = 0
    /// What rendering would cost, when the walk checks it.
    private var renderChecks: SVGRenderChecks?

    /// A walker over a whole (decompressed) document; `renderChecks`, when given, are told of each
    /// element and each run of text, and refuse what would cost too much to render.
    init(document: [UInt8], renderChecks: SVGRenderChecks? = nil) {
        bytes = document
        self.renderChecks = renderChecks
    }

    /// The pixels of the embedded `data:` images the render checks found, together.
    var embeddedPixelCount: Int { renderChecks?.embeddedPixelCount ?? 0 }

    /// Walks from the root element's `<` at `rootStart` to the end of the document.
    mutating func walk(fromRoot rootStart: Int) throws(ParseFailure) {
        var index = rootStart
        var rootClosed = false
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                let textEnd = bytes[index...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
                if rootClosed, !bytes[index..<textEnd].allSatisfy(XMLProlog.isXMLSpace) {
                    throw .malformed("text follows the closing </svg>")
                }
                try renderChecks?.characters(bytes[index..<textEnd])
                index = textEnd
                continue
            }
            if hasPrefix("<!--", at: index) {
                index = try skip(past: "-->", from: index + 4, inside: "a comment")
            } else if hasPrefix("<![CDATA[", at: index) {
                guard !openElements.isEmpty else { throw .malformed("a CDATA section outside the root element") }
                let contentStart = index + 9
                index = try skip(past: "]]>", from: contentStart, inside: "a CDATA section")
                try renderChecks?.characters(bytes[contentStart..<(index - 3)])
            } else if hasPrefix("<?", at: index) {
                index = try skip(past: "?>", from: index + 2, inside: "a processing instruction")
            } else if hasPrefix("<!ENTITY", at: index) {
                throw .refused(.refusedContent(format: .svg, reason: "it declares XML entities, which can expand exponentially (billion laughs)"))
            } else if hasPrefix("<!", at: index) {
                throw .malformed("a declaration inside the document at offset \(index)")
            } else if hasPrefix("</", at: index) {
                index = try closeElement(at: index)
                rootClosed = openElements.isEmpty
            } else {
                guard !rootClosed else { throw .malformed("a second root element follows </svg>") }
                index = try openElement(at: index)
                rootClosed = openElements.isEmpty
            }
        }
        guard rootClosed else {
            let innermost = openElements.last.map { XMLStartTag.text($0) } ?? "svg"
            throw .refused(.truncated(format: .svg, reason: "the document ends inside <\(innermost)>, before </svg>"))
        }
        try renderChecks?.finish()
    }

    private mutating func openElement(at index: Int) throws(ParseFailure) -> Int {
        let counting = renderChecks != nil
        let tag = try truncatedIfShort { () throws(ParseFailure) in try XMLStartTag.scan(bytes, at: index, collectAttributes: counting) }
        elementCount += 1
        guard elementCount <= Self.maxElementCount else {
            throw .refused(.refusedContent(format: .svg, reason: "it holds more than \(Self.maxElementCount) elements"))
        }
        try renderChecks?.open(tag.name, attributes: tag.attributes, isSelfClosing: tag.isSelfClosing)
        if !tag.isSelfClosing {
            openElements.append(tag.name)
            guard openElements.count <= Self.maxDepth else {
                throw .refused(.refusedContent(format: .svg, reason: "its elements nest more than \(Self.maxDepth) deep"))
            }
        }
        return tag.end
    }

    private mutating func closeElement(at index: Int) throws(ParseFailure) -> Int {
        var end = index + 2
        while end < bytes.count, XMLProlog.isNameByte(bytes[end]) { end += 1 }
        let name = bytes[(index + 2)..<end]
        while end < bytes.count, XMLProlog.isXMLSpace(bytes[end]) { end += 1 }
        guard end < bytes.count else { throw .refused(.truncated(format: .svg, reason: "the document ends inside the end tag </\(XMLStartTag.text(name))>")) }
        guard bytes[end] == UInt8(ascii: ">") else { throw .malformed("the end tag </\(XMLStartTag.text(name))> is not closed by '>'") }
        guard let open = openElements.popLast(), open.elementsEqual(name) else {
            throw .malformed("the end tag </\(XMLStartTag.text(name))> does not match the open element")
        }
        renderChecks?.close()
        return end + 1
    }

    /// Runs a scan, reporting "ran out of bytes" as a truncated document.
    private func truncatedIfShort<T>(_ scan: () throws(ParseFailure) -> T) throws(ParseFailure) -> T {
        do {
            return try scan()
        } catch .needMoreBytes {
            throw .refused(.truncated(format: .svg, reason: "the document ends inside a tag"))
        }
    }

    private func hasPrefix(_ prefix: String, at index: Int) -> Bool {
        XMLProlog.hasPrefix(Array(prefix.utf8), bytes, at: index, end: bytes.count)
    }

    /// The index just past the next `terminator`, or a truncation naming what was left open.
    private func skip(past terminator: String, from index: Int, inside what: String) throws(ParseFailure) -> Int {
        let needle = Array(terminator.utf8)
        guard let found = XMLProlog.find(needle, in: bytes, from: index, end: bytes.count) else {
            throw .refused(.truncated(format: .svg, reason: "the document ends inside \(what)"))
        }
        return found + needle.count
    }
}
