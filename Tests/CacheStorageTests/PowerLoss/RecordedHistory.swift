import CacheStorage
import Foundation
import TestSupport

/// What each key may hold after a power loss, from the marks of recorded `storage-worker serve`
/// processes (`begin NAME N LINE` before an operation, `done NAME N OUTCOME` once it returned).
///
/// Under `.eachCommit` and `.full` an operation that returned is on disk; one that had begun and
/// not returned may be there or not. So a key may hold what the returned operations left it
/// (several values after an eviction, which may or may not have taken it), or what an operation in
/// flight would leave it; nothing else.
struct RecordedHistory {
    /// What a key holds: a generation of its bytes, the tag of its last update, and for a derived
    /// entry the checksum of the source bytes it was derived from. Nil is no entry.
    struct Value: Hashable, CustomStringConvertible {
        var generation: UInt32
        var length: Int
        var tag: UInt32?
        var source: EntrySource?

        var description: String {
            "g\(generation)/\(length)" + (tag.map { " tag \($0)" } ?? "") + (source.map { " from \($0.key)" } ?? "")
        }
    }

    private var settled: [String: Set<Value?>] = [:]
    /// Per operation in flight (NAME N): what it may leave each key it touches.
    private var inFlight: [String: [String: Set<Value?>]] = [:]
    private var operations: [String: SimulatedOperation] = [:]
    /// When each operation in flight began, in marks read.
    private var began: [String: Int] = [:]
    /// Operations that returned while others were in flight: who ran each, when it returned, and
    /// what it left the keys it touched (nothing, for one that may remove any key).
    private var returned: [(process: String, at: Int, left: [String: Set<Value?>])] = []
    private var marksRead = 0
    let keys: [String]

    /// `keys`: every key any recorded process uses.
    init(keys: [String]) {
        self.keys = keys
        for key in keys { settled[key] = [nil] }
    }

    /// The values `key` may hold now.
    func allowed(_ key: String) -> Set<Value?> {
        inFlight.values.reduce(settled[key] ?? [nil]) { $0.union($1[key] ?? []) }
    }

    /// Reads the marks in order; false for a mark that is not one of the two.
    mutating func read(_ mark: String) -> Bool {
        let mark = mark.trimmingCharacters(in: .newlines)
        let words = mark.split(separator: " ", maxSplits: 3).map(String.init)
        guard words.count == 4 else { return !mark.hasPrefix("begin ") && !mark.hasPrefix("done ") }
        let name = words[1] + " " + words[2]
        marksRead += 1
        switch words[0] {
        case "begin":
            guard let operation = SimulatedOperation(line: words[3]) else { return false }
            operations[name] = operation
            began[name] = marksRead
            inFlight[name] = effects(of: operation, outcome: nil)
        case "done":
            guard let operation = operations.removeValue(forKey: name), let start = began.removeValue(forKey: name) else {
                return false
            }
            inFlight[name] = nil
            let outcome = SimulatedOutcome(line: words[3])
            // Marks of two processes give each operation's interval, not the order of their
            // commits: what another process's operation left, if it returned while this one ran,
            // may have come after this one.
            let own = effects(of: operation, outcome: outcome)
            var left = own
            for other in returned where other.process != words[1] && other.at > start {
                for (key, values) in other.left where left[key] != nil { left[key]!.formUnion(values) }
            }
            for (key, values) in left { settled[key] = values }
            let mine = operation.sweeps ? Dictionary(uniqueKeysWithValues: keys.map { ($0, Set<Value?>([nil])) }) : own
            returned.append((words[1], marksRead, mine))
            let oldest = began.values.min() ?? marksRead
            returned.removeAll { $0.at < oldest }
        default:
            return true
        }
        return true
    }

    /// What `operation` leaves each key it may touch: for an operation that returned `outcome`, the
    /// values it surely left; for one in flight (`outcome` nil), the values it may have left.
    private func effects(of operation: SimulatedOperation, outcome: SimulatedOutcome?) -> [String: Set<Value?>] {
        var result: [String: Set<Value?>] = [:]
        let current = { (key: String) in outcome == nil ? allowed(key) : (settled[key] ?? [nil]) }
        func put(_ put: SimulatedPut, source: EntrySource?) {
            let value = Value(generation: put.generation, length: put.length, tag: nil, source: source)
            result[put.key] = [value]
            // What was derived from other bytes of this key goes with them.
            let checksum = SimulatedPayload.source(key: put.key, generation: put.generation, length: put.length).checksum
            cascade(from: put.key) { $0.checksum != checksum }
        }
        func remove(_ key: String) {
            result[key] = [nil]
            cascade(from: key) { _ in true }
        }
        func cascade(from key: String, _ goes: (EntrySource) -> Bool) {
            for derived in keys where derived != key {
                let values = result[derived] ?? current(derived)
                guard values.contains(where: { $0?.source?.key == key }) else { continue }
                result[derived] = Set(values.map { value in value?.source.map(goes) == true ? nil : value })
            }
        }
        func anyMayGo() {
            for key in keys { result[key] = current(key).union([nil]) }
        }
        switch operation {
        case let .put(entry):
            put(entry, source: nil)
        case let .putBatch(entries):
            for entry in entries { put(entry, source: nil) }
        case let .putDerived(entry, sourceKey, generation, length):
            guard outcome == nil || outcome == .done else { break }
            put(entry, source: SimulatedPayload.source(key: sourceKey, generation: generation, length: length))
        case let .update(key, tag):
            switch outcome {
            case .found(false)?: result[key] = [nil]
            default:
                let updated = Set(current(key).compactMap { $0 }.map { value -> Value? in
                    var value = value
                    value.tag = tag
                    return value
                })
                result[key] = outcome == nil ? updated : updated.union(current(key).contains(nil) && updated.isEmpty ? [nil] : [])
            }
        case let .remove(key):
            remove(key)
        case let .removeMany(keys):
            for key in keys { remove(key) }
        case .removeAll:
            for key in keys { result[key] = [nil] }
        case .evictToBytes, .evictToEntries:
            anyMayGo()
        case .read, .flush, .compact, .reopen, .restartRemote, .remote:
            break
        }
        if outcome == nil {
            // In flight: the key may also still hold what it held.
            for (key, values) in result { result[key] = values.union(current(key)) }
        }
        return result
    }
}

extension SimulatedOperation {
    /// Whether the operation may remove any key, not only those it names.
    fileprivate var sweeps: Bool {
        switch self {
        case .removeAll, .evictToBytes, .evictToEntries: true
        default: false
        }
    }
}
