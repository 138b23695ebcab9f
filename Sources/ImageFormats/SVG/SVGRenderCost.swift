/// What rendering an SVG would draw, counted before anything is drawn: each element once for
/// itself, plus everything it references (`<use href="#id">`, `fill="url(#id)"`) as many times as it
/// is referenced, expanded, and each marker as many times as the shapes that use it have vertices.
/// A few kilobytes of nested `<use>`, patterns or markers can ask a renderer to draw billions of
/// elements ("billion laughs" without entities); the count finds that in one pass.
struct SVGRenderCost {
    /// The most elements rendering may draw, references expanded: the document walker's own element
    /// cap, since drawing an element costs the same whether it is written out or referenced.
    static let maxRenderedElements = SVGDocumentWalker.maxElementCount

    /// The shapes a marker is drawn on, at each vertex.
    private static let markedShapes: Set<String> = ["path", "line", "polyline", "polygon"]

    private var children: [[Int]] = []
    /// Each element's references: an id and how many times it is drawn for this element.
    private var references: [[(id: String, times: Int)]] = []
    /// The markers each element asks for at its start, middle and end vertices, its own or
    /// inherited (marker properties inherit); each property names one marker at most.
    private var markers: [[String?]] = []
    /// Markers a style sheet may set on any shape: selectors are not matched here, so every shape
    /// is counted as drawing all of them at each of its vertices, in each of the three positions.
    private var styleSheetMarkers: Set<String> = []
    /// Each shape's vertices, where its markers are drawn; nil for an element that is not a shape.
    private var vertexCounts: [Int?] = []
    private var indexByID: [String: Int] = [:]

    /// Records an element named `name` under `parent` (nil for the root) with its attributes;
    /// returns its index.
    mutating func add(name: String, attributes: [(name: String, value: String)], parent: Int?) -> Int {
        let index = children.count
        children.append([])
        if let parent { children[parent].append(index) }
        var referenced: [(id: String, times: Int)] = []
        var ownMarkers: [String?] = [nil, nil, nil]
        var vertexCount = 0
        for (attribute, value) in attributes {
            if attribute == "id" { indexByID[value] = indexByID[value] ?? index }
            if attribute == "href" || attribute.hasSuffix(":href"), value.hasPrefix("#") {
                referenced.append((String(value.dropFirst()), 1))
            }
            if let slots = Self.markerSlots[attribute] {
                for slot in slots { ownMarkers[slot] = Self.urlReferences(in: value).first }
            } else if attribute == "style" {
                for (property, ids) in Self.declarations(in: value) {
                    if let slots = Self.markerSlots[property] {
                        for slot in slots { ownMarkers[slot] = ids.first }
                    } else {
                        referenced += ids.map { ($0, 1) }
                    }
                }
            } else {
                referenced += Self.urlReferences(in: value).map { ($0, 1) }
            }
            if Self.markedShapes.contains(name) {
                vertexCount = max(vertexCount, SVGVertexCount.of(shape: name, attribute: attribute, value: value))
            }
        }
        let inherited = parent.map { markers[$0] } ?? [nil, nil, nil]
        markers.append((0..<3).map { ownMarkers[$0] ?? inherited[$0] })
        references.append(referenced)
        vertexCounts.append(Self.markedShapes.contains(name) ? (name == "line" ? 2 : vertexCount) : nil)
        return index
    }

    /// Records a style sheet's text: the markers it names may be drawn on any shape.
    mutating func addStyleSheet(_ text: String) {
        for (property, ids) in Self.declarations(in: text) where Self.markerSlots[property] != nil {
            styleSheetMarkers.formUnion(ids)
        }
    }

    /// The marker properties, and the positions (start, middle, end) each sets.
    private static let markerSlots: [String: [Int]] = ["marker-start": [0], "marker-mid": [1], "marker-end": [2], "marker": [0, 1, 2]]

    /// The ids in every `url(#id)` of `value`, quoted or not.
    ///
    /// One pass: the `)` that closes a reference is looked for once and reused until the scan passes
    /// it, and when there is none, no later reference can close either; so a value of unterminated
    /// `url(` costs one scan of it, not one per `url(`.
    static func urlReferences(in value: String) -> [String] {
        let bytes = Array(value.utf8)
        let opening = Array("url(".utf8)
        var ids: [String] = []
        var index = 0
        var nextClose = -1
        while let start = XMLProlog.find(opening, in: bytes, from: index, end: bytes.count) {
            var cursor = start + opening.count
            while cursor < bytes.count, Self.isSpaceOrQuote(bytes[cursor]) { cursor += 1 }
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "#") else {
                index = cursor
                continue
            }
            if nextClose < cursor { nextClose = bytes[cursor...].firstIndex(of: UInt8(ascii: ")")) ?? bytes.count }
            guard nextClose < bytes.count else { break }
            var idStart = cursor + 1, idEnd = nextClose
            while idStart < idEnd, Self.isSpaceOrQuote(bytes[idStart]) { idStart += 1 }
            while idEnd > idStart, Self.isSpaceOrQuote(bytes[idEnd - 1]) { idEnd -= 1 }
            if idEnd > idStart { ids.append(String(decoding: bytes[idStart..<idEnd], as: UTF8.self)) }
            index = nextClose + 1
        }
        return ids
    }

    /// The CSS declarations of `text` (a `style` attribute, or a style sheet) that reference
    /// something: each property's name and the ids its value references.
    private static func declarations(in text: String) -> [(property: String, ids: [String])] {
        text.split(whereSeparator: { $0 == ";" || $0 == "{" || $0 == "}" }).compactMap { declaration in
            let ids = urlReferences(in: String(declaration))
            guard !ids.isEmpty else { return nil }
            return (declaration.prefix { $0 != ":" }.trimmingWhiteSpace(), ids)
        }
    }

    private static func isSpaceOrQuote(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"")
    }

    /// Refuses the document when rendering it would draw more than ``maxRenderedElements``, or when
    /// references form a cycle (which renderers refuse, some only after much work).
    func check() throws(ParseFailure) {
        guard !children.isEmpty else { return }
        let limit = Self.maxRenderedElements
        // -1: not yet counted; -2: being counted (meeting it again is a cycle).
        var cost = Array(repeating: -1, count: children.count)
        var stack: [(node: Int, expanded: Bool)] = [(0, false)]
        while let (node, expanded) = stack.popLast() {
            let edges = self.edges(of: node)
            if expanded {
                var total = 1
                for (edge, times) in edges {
                    let (drawn, overflow) = cost[edge].multipliedReportingOverflow(by: times)
                    total = overflow ? limit + 1 : min(total + drawn, limit + 1)
                }
                cost[node] = total
                continue
            }
            guard cost[node] == -1 else { continue }
            cost[node] = -2
            stack.append((node, true))
            for (edge, _) in edges {
                switch cost[edge] {
                case -2: throw .refused(.refusedContent(format: .svg, reason: "its references form a cycle"))
                case -1: stack.append((edge, false))
                default: break
                }
            }
        }
        guard cost[0] <= limit else {
            throw .refused(.refusedContent(
                format: .svg,
                reason: "rendering it would draw more than \(limit) elements once its references are expanded and its markers drawn at every vertex"))
        }
    }

    /// What drawing one marker instance costs, in elements: a renderer sets up a viewport, a clip
    /// and a transform for each vertex it draws a marker at, many times the work of drawing the
    /// marker's content once, so a polyline of many vertices with a small marker costs far more
    /// than its element count says.
    static let markerInstanceWeight = 16

    /// The elements `node` draws, and how many times each: its children once, what it references,
    /// and, for a shape, its markers at each vertex.
    private func edges(of node: Int) -> [(node: Int, times: Int)] {
        var edges = children[node].map { ($0, 1) }
        for (id, times) in references[node] {
            if let target = indexByID[id] { edges.append((target, times)) }
        }
        if let vertices = vertexCounts[node] {
            let (instances, overflow) = vertices.multipliedReportingOverflow(by: Self.markerInstanceWeight)
            let drawn = overflow ? Int.max / 4 : instances
            for case let id? in markers[node] {
                if let target = indexByID[id] { edges.append((target, drawn)) }
            }
            for id in styleSheetMarkers {
                if let target = indexByID[id] { edges.append((target, drawn * 3)) }
            }
        }
        return edges
    }
}
