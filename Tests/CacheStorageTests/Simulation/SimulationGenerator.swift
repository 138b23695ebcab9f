import Foundation
import TestSupport

/// A seeded source of operation sequences for the simulation, drawn from the model's state so that
/// derived puts usually name their source's bytes and evictions aim below what the store holds.
struct SimulationGenerator {
    /// The keys of plain entries and of derived ones: few, so operations keep meeting each other.
    static let allKeys = keys(prefix: "").plain + keys(prefix: "").derived

    /// Plain keys are `PREFIXb0`…, derived ones `PREFIXd0`….
    static func keys(prefix: String) -> (plain: [String], derived: [String]) {
        ((0..<24).map { "\(prefix)b\($0)" }, (0..<12).map { "\(prefix)d\($0)" })
    }

    private var random: SeededRandom
    private var generation: UInt32
    private let plainKeys: [String]
    private let derivedKeys: [String]
    private var allKeys: [String] { plainKeys + derivedKeys }

    /// `prefix` keeps the keys of two generators apart; generations start past `firstGeneration`.
    init(seed: UInt64, prefix: String = "", firstGeneration: UInt32 = 0) {
        random = SeededRandom(seed: seed)
        generation = firstGeneration
        (plainKeys, derivedKeys) = Self.keys(prefix: prefix)
    }

    mutating func next(model: SimulationModel) -> SimulatedOperation {
        let roll = below(1000)
        if roll < 290 { return .remote(storeOperation(model: model, roll: below(1000 - 40))) }
        if roll < 293 { return .compact }
        if roll < 298 { return .reopen }
        if roll < 303 { return .restartRemote }
        return storeOperation(model: model, roll: below(1000 - 40))
    }

    /// An operation for a process that runs alone from a script: a store operation, or now and
    /// then a compaction.
    mutating func nextInScript(model: SimulationModel) -> SimulatedOperation {
        below(100) == 0 ? .compact : storeOperation(model: model, roll: below(1000 - 40))
    }

    /// An operation either process can do; `roll` is below 960.
    private mutating func storeOperation(model: SimulationModel, roll: Int) -> SimulatedOperation {
        switch roll {
        case ..<330: return .put(put(model: model))
        case ..<370:
            var keys: [String] = []
            for _ in 0..<(2 + below(4)) {
                let key = pick(plainKeys)
                if !keys.contains(key) { keys.append(key) }
            }
            return .putBatch(keys.map { newPut($0) })
        case ..<490:
            let source = pick(plainKeys)
            let derived = newPut(pick(derivedKeys))
            if let current = model.entries[source], below(100) < 85 {
                return .putDerived(derived, source: source, sourceGeneration: current.generation, sourceLength: current.length)
            }
            return .putDerived(derived, source: source, sourceGeneration: UInt32(below(Int(generation) + 1)), sourceLength: length())
        case ..<560: return .update(key: pick(allKeys), tag: UInt32(below(1000)))
        case ..<630: return .remove(key: pick(allKeys))
        case ..<655: return .removeMany((0..<(1 + below(5))).map { _ in pick(allKeys) })
        case ..<658: return .removeAll
        case ..<672: return .evictToBytes(below(model.bytes + 1))
        case ..<686: return .evictToEntries(below(model.entries.count + 1))
        case ..<940: return .read(key: pick(allKeys))
        default: return .flush
        }
    }

    /// A put of a plain key: new bytes, or now and then the very bytes it holds (which keeps what
    /// was derived from it).
    private mutating func put(model: SimulationModel) -> SimulatedPut {
        let key = pick(plainKeys)
        if let current = model.entries[key], below(100) < 8 {
            return SimulatedPut(key: key, generation: current.generation, length: current.length)
        }
        return newPut(key)
    }

    private mutating func newPut(_ key: String) -> SimulatedPut {
        generation += 1
        return SimulatedPut(key: key, generation: generation, length: length())
    }

    /// Mostly small entries, some spanning several pages, a few large enough to bring the byte
    /// limit into play, and now and then an empty one.
    private mutating func length() -> Int {
        switch below(100) {
        case 0: return 0
        case ..<80: return 1 + below(4096)
        case ..<95: return 4097 + below(36_000)
        default: return 60_000 + below(240_000)
        }
    }

    private mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(random.next() % UInt64(bound)) }
    private mutating func pick(_ keys: [String]) -> String { keys[below(keys.count)] }
}
