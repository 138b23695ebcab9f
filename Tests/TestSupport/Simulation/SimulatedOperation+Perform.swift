import CacheStorage
import Foundation

/// What an operation answered: what the test's model must predict.
public enum SimulatedOutcome: Sendable, Hashable {
    case done
    /// Whether the named entry existed (an update, a single removal).
    case found(Bool)
    /// Entries and bytes a removal or an eviction reports.
    case removed(entries: Int, bytes: Int)
    /// What a read found: the checksum of its bytes and its entity tag, or nothing.
    case read(checksum: UInt64?, etag: String?)
    /// A derived put refused because its source holds other bytes or none.
    case sourceChanged
    /// A compaction refused because another process has the store open.
    case storeInUse
    /// Any other error: always a finding.
    case failed(String)
}

extension SimulatedOperation {
    /// Does the operation on `store`. `reopen`, `restartRemote` and `remote` are the runner's to do.
    public func perform(on store: PersistentStore) async -> SimulatedOutcome {
        do {
            switch self {
            case let .put(put):
                try await store.put(SimulatedPayload.entry(put))
            case let .putBatch(puts):
                try await store.put(puts.map { SimulatedPayload.entry($0) })
            case let .putDerived(put, source, generation, length):
                let named = SimulatedPayload.source(key: source, generation: generation, length: length)
                try await store.put(SimulatedPayload.entry(put, source: named))
            case let .update(key, tag):
                guard let metadata = try store.peek(key)?.metadata else {
                    return .found(try await store.updateAttributes(for: key, to: SimulatedPayload.attributes(generation: 0, tag: tag)))
                }
                var attributes = metadata.attributes
                attributes.contentType = SimulatedPayload.attributes(generation: 0, tag: tag).contentType
                return .found(try await store.updateAttributes(for: key, to: attributes))
            case let .remove(key):
                return .found(try await store.remove(key))
            case let .removeMany(keys):
                let result = try await store.remove(keys)
                return .removed(entries: result.entries, bytes: result.bytes)
            case .removeAll:
                try await store.removeAll()
            case let .evictToBytes(bytes):
                let result = try await store.evict(toBytes: bytes)
                return .removed(entries: result.entries, bytes: result.bytes)
            case let .evictToEntries(entries):
                let result = try await store.evict(toEntries: entries)
                return .removed(entries: result.entries, bytes: result.bytes)
            case let .read(key):
                guard let entry = try store.get(key) else { return .read(checksum: nil, etag: nil) }
                return .read(checksum: entry.metadata.checksum, etag: entry.metadata.attributes.etag)
            case .flush:
                try await store.flush()
            case .compact:
                _ = try await store.compact()
            case .reopen, .restartRemote, .remote:
                return .failed("\(swiftLiteral) is the runner's to do")
            }
            return .done
        } catch StorageError.sourceChanged {
            return .sourceChanged
        } catch StorageError.storeInUse {
            return .storeInUse
        } catch {
            return .failed("\(error)")
        }
    }
}
