import Foundation
import ImageCache

/// The demo's table: one line per run and policy.
enum DemoTable {
    static let columns: [(title: String, width: Int)] = [
        ("run", 3), ("policy", 17), ("loads", 5), ("origin requests", 15), ("bytes from origin", 17),
        ("memory", 6), ("disk", 4), ("revalidated", 11), ("network", 7), ("stale", 5), ("median ms", 9), ("p90 ms", 7),
    ]

    static var header: String {
        let titles = columns.map { $0.title.leftPadded(to: $0.width) }.joined(separator: "  ")
        return titles + "\n" + String(repeating: "-", count: titles.count)
    }

    static func line(run: Int, row: DemoRun.Row) -> String {
        let sorted = row.latenciesMilliseconds.sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        let p90 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
        let values = [
            "\(run)", row.policy, "\(row.loads)", "\(row.originRequests)", row.originBytes == 0 ? "0" : ByteCountFormatter.string(fromByteCount: Int64(row.originBytes), countStyle: .file),
            "\(row.sources[.memory, default: 0])", "\(row.sources[.disk, default: 0])", "\(row.sources[.revalidated, default: 0])",
            "\(row.sources[.network, default: 0])", "\(row.sources[.stale, default: 0])", String(format: "%.2f", median), String(format: "%.2f", p90),
        ]
        return zip(values, columns).map { $0.leftPadded(to: $1.width) }.joined(separator: "  ")
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
