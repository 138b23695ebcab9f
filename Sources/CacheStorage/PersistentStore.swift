import Foundation

/// A disk cache of byte blobs with metadata: LMDB for bytes, SQLite for the index.
///
/// Reads are synchronous and run in parallel from any thread; they touch LMDB only. Writes are
/// `async`: many tasks' writes are committed together by one writer thread, and a write returns
/// once its batch has committed (see ``Durability``). Several processes may open the same
/// directory at once; handles in one process on the same directory share one open store.
///
/// ```swift
/// let store = try PersistentStore(directory: cacheURL)
/// try await store.put(NewEntry(key: url.absoluteString, data: bytes,
///                              attributes: EntryAttributes(etag: "\"v1\"", format: "png")))
/// if let hit = try store.get(url.absoluteString) { use(hit.data, hit.metadata.attributes.etag) }
/// ```
public final class PersistentStore: Sendable {
    let core: StoreCore
    private let isClosed = Locked(false)
    /// Blobs whose checksums reads in this process have checked (see ``VerifiedBlobs``).
    let verifiedBlobs = VerifiedBlobs()

    /// The folder holding the store's files.
    public var directory: URL { core.layout.directory }

    /// The configuration in force (the first handle's, when several share a directory).
    public var configuration: StoreConfiguration { core.configuration }

    /// Opens the store in `directory`, creating it when missing.
    ///
    /// A damaged store, or one written by another version (older or newer), is moved aside into
    /// `quarantine/` and replaced by an empty one (logged, and counted in
    /// ``StoreStatistics/storesMovedAside``), unless `configuration.recovery` is
    /// ``RecoveryPolicy/throwError``.
    /// - Throws: ``StorageError``.
    public init(directory: URL, configuration: StoreConfiguration = StoreConfiguration()) throws {
        core = try StoreRegistry.acquire(directory: directory, configuration: configuration)
    }

    deinit {
        close()
    }

    /// Persists recorded reads and releases the store; later calls throw ``StorageError/closed``.
    public func close() {
        let wasOpen = isClosed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        if wasOpen { StoreRegistry.release(core) }
    }

    func checkOpen() throws {
        if isClosed.withLock({ $0 }) { throw StorageError.closed }
    }

    // MARK: Writes

    /// Stores one entry, replacing any entry with the same key.
    /// - Throws: ``StorageError/entryTooLarge(key:byteCount:limit:)``, ``StorageError/keyTooLong(byteCount:limit:)``, or a store failure.
    public func put(_ entry: NewEntry) async throws {
        try await put([entry])
    }

    /// Stores many entries in one commit. Either every entry is validated or none is written.
    ///
    /// - Throws: ``StorageError/sourceChanged(key:source:)`` when a derived entry's source no longer
    ///   holds the bytes it was derived from (nothing of the call is written then).
    public func put(_ entries: [NewEntry]) async throws {
        try checkOpen()
        let prepared = try entries.map(prepare)
        try refuseChangedSource(await core.writer.submit(.put(prepared)))
    }

    /// Stores entries and blocks the calling thread until they have committed; for callers outside async code.
    public func putAndWait(_ entries: [NewEntry]) throws {
        try checkOpen()
        let prepared = try entries.map(prepare)
        try refuseChangedSource(core.writer.submitAndWait(.put(prepared)))
    }

    private func refuseChangedSource(_ outcome: WriteOutcome) throws {
        if case let .sourceChanged(key, source) = outcome {
            throw StorageError.sourceChanged(key: key, source: source)
        }
    }

    /// Replaces the attributes of an existing entry without touching its bytes.
    /// - Returns: false when there is no entry for `key`.
    @discardableResult
    public func updateAttributes(for key: String, to attributes: EntryAttributes) async throws -> Bool {
        try await updateAttributes(for: key, to: attributes, checksum: nil) == .updated
    }

    /// Replaces the attributes of the entry for `key` only while it holds `bytes` (a 304
    /// revalidation of the response those bytes came with): checked in the commit itself, so new
    /// bytes another process stored meanwhile never get attributes that describe older ones.
    public func updateAttributes(for key: String, to attributes: EntryAttributes, ifBytesAre bytes: Data) async throws
        -> AttributeUpdate
    {
        try await updateAttributes(for: key, to: attributes, checksum: bytes.withUnsafeBytes { XXHash64.hash($0) })
    }

    private func updateAttributes(for key: String, to attributes: EntryAttributes, checksum: UInt64?) async throws
        -> AttributeUpdate
    {
        try checkOpen()
        guard case let .attributes(outcome) = try await core.writer.submit(.update(key: key, attributes: attributes, ifChecksum: checksum))
        else { return .missing }
        return outcome
    }

    /// Removes the entry for `key`. Returns whether there was one.
    @discardableResult
    public func remove(_ key: String) async throws -> Bool {
        try await remove([key]).entries > 0
    }

    /// Removes the entries for `keys`, in commits of at most 4,096 entries.
    @discardableResult
    public func remove(_ keys: [String]) async throws -> RemovalResult {
        try checkOpen()
        var total = RemovalResult(entries: 0, bytes: 0)
        for start in stride(from: 0, to: keys.count, by: StoreCore.removalsPerTransaction) {
            let chunk = Array(keys[start..<min(start + StoreCore.removalsPerTransaction, keys.count)])
            let removed = try RemovalResult(await core.writer.submit(.remove(chunk)))
            total.entries += removed.entries
            total.bytes += removed.bytes
        }
        return total
    }

    /// Removes every entry.
    public func removeAll() async throws {
        try checkOpen()
        _ = try await core.writer.submit(.removeAll)
    }

    /// Evicts expired entries first, then the least recently used, until the store holds at most
    /// `byteTarget` bytes and `entryTarget` entries (a nil target is not enforced).
    @discardableResult
    public func evict(toBytes byteTarget: Int? = nil, toEntries entryTarget: Int? = nil) async throws -> RemovalResult {
        try checkOpen()
        return try RemovalResult(await core.writer.submit(.evict(toBytes: byteTarget, toEntries: entryTarget)))
    }

    /// Persists recorded reads to the index and forces committed data to disk.
    public func flush() async throws {
        try checkOpen()
        _ = try await core.writer.submit(.flush)
    }

    /// Checks `entry` against the limits and computes what the writer stores (internal for tests that
    /// queue operations on the writer themselves).
    func prepare(_ entry: NewEntry) throws -> PreparedPut {
        let configuration = core.configuration
        let keyBytes = entry.key.utf8.count
        guard keyBytes <= configuration.maxKeyBytes else {
            throw StorageError.keyTooLong(byteCount: keyBytes, limit: configuration.maxKeyBytes)
        }
        guard entry.data.count <= configuration.maxEntryBytes else {
            throw StorageError.entryTooLarge(
                key: entry.key, byteCount: entry.data.count, limit: configuration.maxEntryBytes)
        }
        let checksum = entry.data.withUnsafeBytes { XXHash64.hash($0) }
        let now = Date(millisecondsSince1970: Date().millisecondsSince1970)
        let metadata = EntryMetadata(
            key: entry.key, byteCount: entry.data.count, checksum: checksum, storedAt: now, lastAccess: now,
            attributes: entry.attributes, source: entry.source)
        return PreparedPut(
            digest: KeyDigest(key: entry.key), key: entry.key, record: EntryRecord.encode(metadata), data: entry.data,
            checksum: checksum, source: entry.source)
    }
}

/// How many entries and bytes an operation removed.
public struct RemovalResult: Sendable, Hashable {
    /// Entries removed.
    public var entries: Int
    /// Bytes those entries held.
    public var bytes: Int

    /// Creates a result.
    public init(entries: Int, bytes: Int) {
        self.entries = entries
        self.bytes = bytes
    }

    init(_ outcome: WriteOutcome) {
        if case let .removed(entries, bytes) = outcome {
            self.init(entries: entries, bytes: bytes)
        } else {
            self.init(entries: 0, bytes: 0)
        }
    }
}
