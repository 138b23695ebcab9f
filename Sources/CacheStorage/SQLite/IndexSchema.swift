/// The SQLite schema: one version (`user_version`), created whole in a new index file. An index of
/// any other version comes from another version of the store, which opening moves aside with the
/// rest of the store (see ``StoreOpener``).
///
/// Rows are keyed by the time they were stored, then digest (see ``IndexRowKey``): new rows append
/// instead of landing on a random page each. Each row keeps the record log number of its entry's
/// record (see ``EvictionVictim``), so that eviction finds the record without a lookup by digest.
/// The access order holds what eviction reads of each victim (see
/// `MetadataIndex.evictionCandidates`): choosing victims scans that index alone instead of looking
/// each row up in the table. Its order is the access time's; the primary key's columns, which
/// every index of this table ends with, are named after it.
/// `totals` is kept by ``MetadataIndex`` itself (one update per transaction), not by triggers:
/// a trigger per row doubled the cost of evicting.
enum IndexSchema {
    static let currentVersion = 6

    static let creation = """
        CREATE TABLE entries (
            stored_at INTEGER NOT NULL,
            digest BLOB NOT NULL,
            key TEXT NOT NULL,
            byte_size INTEGER NOT NULL,
            checksum INTEGER NOT NULL,
            last_access INTEGER NOT NULL,
            expires_at INTEGER,
            etag TEXT,
            last_modified TEXT,
            response_date INTEGER,
            content_type TEXT,
            format TEXT,
            pixel_width INTEGER,
            pixel_height INTEGER,
            cost INTEGER,
            response_headers BLOB,
            source_key TEXT,
            source_checksum INTEGER,
            blob_number INTEGER,
            PRIMARY KEY (stored_at, digest)
        ) WITHOUT ROWID;
        CREATE INDEX entries_by_access ON entries(last_access, stored_at, digest, byte_size, blob_number);
        CREATE INDEX entries_by_expiry ON entries(expires_at) WHERE expires_at IS NOT NULL;
        CREATE INDEX entries_by_source ON entries(source_key) WHERE source_key IS NOT NULL;
        CREATE TABLE totals (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            entries INTEGER NOT NULL,
            bytes INTEGER NOT NULL
        );
        INSERT INTO totals VALUES (1, 0, 0);
        CREATE TABLE mirror_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            store_id BLOB,
            applied_seq INTEGER NOT NULL
        );
        INSERT INTO mirror_state VALUES (1, NULL, 0);
        CREATE TABLE counters (
            name TEXT PRIMARY KEY NOT NULL,
            value INTEGER NOT NULL
        );
        """
}
