/// Rows printed as aligned columns: text to the left, numbers to the right, two spaces between.
struct TextTable {
    enum Alignment {
        case left
        case right
    }

    private let headers: [String]
    private let alignments: [Alignment]
    private var rows: [[String]] = []

    /// A table with these column headers; `alignments` defaults to left for every column.
    init(_ headers: [String], alignments: [Alignment]? = nil) {
        self.headers = headers
        self.alignments = alignments ?? headers.map { _ in .left }
    }

    mutating func append(_ row: [String]) {
        rows.append(row)
    }

    /// The table as lines; an empty header row hides the header.
    func render() -> String {
        let all = (headers.allSatisfy(\.isEmpty) ? [] : [headers]) + rows
        var widths = headers.map { _ in 0 }
        for row in all {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return all.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                return alignments[column] == .right ? padding + cell : cell + padding
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
        .joined(separator: "\n")
    }

    /// Key-value lines (`entries   155`), the shape of `stats` and `show`.
    static func pairs(_ pairs: [(String, String)]) -> String {
        var table = TextTable(["", ""])
        for (name, value) in pairs { table.append([name, value]) }
        return table.render()
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
