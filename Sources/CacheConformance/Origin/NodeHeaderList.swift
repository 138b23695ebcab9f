import Foundation
import LoopbackOrigin

/// Response headers the way Node's `setHeader` keeps them: one slot per name, in the order names
/// first appear; a repeated name adds a value to its slot, written as separate lines there.
struct NodeHeaderList {
    private var slots: [(name: String, values: [String])] = []

    mutating func set(_ name: String, _ value: String) {
        if let index = slot(name) { slots[index].values = [value] } else { slots.append((name, [value])) }
    }

    mutating func append(_ name: String, _ value: String) {
        if let index = slot(name) { slots[index].values.append(value) } else { slots.append((name, [value])) }
    }

    func values(for name: String) -> [String] {
        slot(name).map { slots[$0].values } ?? []
    }

    var lines: [HeaderLine] {
        slots.flatMap { slot in slot.values.map { HeaderLine(slot.name, $0) } }
    }

    private func slot(_ name: String) -> Int? {
        slots.firstIndex { $0.name.lowercased() == name.lowercased() }
    }
}
