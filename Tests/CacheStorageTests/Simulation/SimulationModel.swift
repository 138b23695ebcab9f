import CacheStorage
import Foundation
import TestSupport

/// What every key of the simulated store must read: the simulation's oracle.
///
/// It knows the rules a caller relies on and nothing of how the store keeps them: a put replaces,
/// a derived entry lives exactly as long as its source holds the bytes it was derived from, an
/// update changes attributes only, a removal takes the entry and what was derived from it. Which
/// entries an eviction takes is the store's choice; the model learns it from the store and checks
/// that the choice kept the rules (see ``forgetEvicted(keeping:)``).
struct SimulationModel {
    struct Entry: Equatable {
        var generation: UInt32
        var length: Int
        var checksum: UInt64
        /// The tag of the last update, if any (the entry's content type names it).
        var tag: UInt32?
        /// The source's key and the checksum of the bytes this entry was derived from.
        var source: EntrySource?

        var attributes: EntryAttributes { SimulatedPayload.attributes(generation: generation, tag: tag) }
    }

    private(set) var entries: [String: Entry] = [:]

    var bytes: Int { entries.values.reduce(0) { $0 + $1.length } }

    /// What `operation` must answer, applying it; nil when only the store can say (an eviction's counts).
    mutating func apply(_ operation: SimulatedOperation) -> SimulatedOutcome? {
        switch operation {
        case let .put(put):
            store(put, source: nil)
            return .done
        case let .putBatch(puts):
            for put in puts { store(put, source: nil) }
            return .done
        case let .putDerived(put, sourceKey, generation, length):
            let source = SimulatedPayload.source(key: sourceKey, generation: generation, length: length)
            guard entries[sourceKey]?.checksum == source.checksum else { return .sourceChanged }
            store(put, source: source)
            return .done
        case let .update(key, tag):
            guard entries[key] != nil else { return .found(false) }
            entries[key]?.tag = tag
            return .found(true)
        case let .remove(key):
            let found = entries[key] != nil
            remove(key)
            return .found(found)
        case let .removeMany(keys):
            let before = entries
            for key in keys { remove(key) }
            let gone = before.filter { entries[$0.key] == nil }
            return .removed(entries: gone.count, bytes: gone.values.reduce(0) { $0 + $1.length })
        case .removeAll:
            entries = [:]
            return .done
        case .evictToBytes, .evictToEntries:
            return nil
        case let .read(key):
            guard let entry = entries[key] else { return .read(checksum: nil, etag: nil) }
            return .read(checksum: entry.checksum, etag: "g\(entry.generation)")
        case .flush, .reopen, .restartRemote:
            return .done
        case .compact:
            return nil
        case let .remote(operation):
            return apply(operation)
        }
    }

    private mutating func store(_ put: SimulatedPut, source: EntrySource?) {
        let data = SimulatedPayload.bytes(key: put.key, generation: put.generation, length: put.length)
        let checksum = EntrySource(key: put.key, bytes: data).checksum
        entries[put.key] = Entry(generation: put.generation, length: put.length, checksum: checksum, tag: nil, source: source)
        dropOrphans()
    }

    private mutating func remove(_ key: String) {
        entries[key] = nil
        dropOrphans()
    }

    /// Removes every derived entry whose source no longer holds the bytes it was derived from.
    private mutating func dropOrphans() {
        while let orphan = entries.first(where: { _, entry in
            guard let source = entry.source else { return false }
            return entries[source.key]?.checksum != source.checksum
        }) {
            entries[orphan.key] = nil
        }
    }

    /// Forgets the entries an eviction took: those not in `present`. Returns the keys forgotten,
    /// including what was derived from them (which the store must have removed with them).
    @discardableResult
    mutating func forgetEvicted(keeping present: Set<String>) -> [String] {
        let before = Set(entries.keys)
        for key in before where !present.contains(key) { entries[key] = nil }
        dropOrphans()
        return before.subtracting(entries.keys).sorted()
    }
}
