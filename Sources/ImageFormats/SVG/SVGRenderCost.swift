/// What rendering an SVG would draw, counted before anything is drawn: each element once for
/// itself, plus everything it references (`<use href="#id">`, `fill="url(#id)"`) as many times as it
/// is referenced, expanded. A few kilobytes of nested `<use>` or patterns can ask a renderer to draw
/// billions of elements ("billion laughs" without entities); the count finds that in one pass.
struct SVGRenderCost {
    /// The most elements rendering may draw, references expanded: the document walker's own element
    /// cap, since drawing an element costs the same whether it is written out or referenced.
    static let maxRenderedElements = SVGDocumentWalker.maxElementCount

    private var children: [[Int]] = []
    private var references: [[String]] = []
    private var indexByID: [String: Int] = [:]

    /// Records an element under `parent` (nil for the root) with its attributes; returns its index.
    mutating func add(attributes: [(name: String, value: String)], parent: Int?) -> Int {
        let index = children.count
        children.append([])
        if let parent { children[parent].append(index) }
        var referenced: [String] = []
        for (name, value) in attributes {
            if name == "id" { indexByID[value] = indexByID[value] ?? index }
            if name == "href" || name.hasSuffix(":href"), value.hasPrefix("#") { referenced.append(String(value.dropFirst())) }
            referenced += Self.urlReferences(in: value)
        }
        references.append(referenced)
        return index
    }

    /// The ids in every `url(#id)` of `value`, quoted or not.
    private static func urlReferences(in value: String) -> [String] {
        var ids: [String] = []
        var rest = value[...]
        while let start = rest.range(of: "url(") {
            rest = rest[start.upperBound...].drop { $0 == " " || $0 == "'" || $0 == "\"" }
            guard rest.first == "#", let close = rest.firstIndex(of: ")") else { continue }
            let id = rest[rest.index(after: rest.startIndex)..<close].trimmingCharacters(in: " '\"")
            if !id.isEmpty { ids.append(id) }
            rest = rest[close...]
        }
        return ids
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
            let edges = children[node] + references[node].compactMap { indexByID[$0] }
            if expanded {
                var total = 1
                for edge in edges { total = min(total + cost[edge], limit + 1) }
                cost[node] = total
                continue
            }
            guard cost[node] == -1 else { continue }
            cost[node] = -2
            stack.append((node, true))
            for edge in edges {
                switch cost[edge] {
                case -2: throw .refused(.refusedContent(format: .svg, reason: "its references form a cycle"))
                case -1: stack.append((edge, false))
                default: break
                }
            }
        }
        guard cost[0] <= limit else {
            throw .refused(.refusedContent(
                format: .svg, reason: "rendering it would draw more than \(limit) elements once its references are expanded"))
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in characters: String) -> String {
        String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
    }
}
