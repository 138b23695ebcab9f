/// The SQLite schema, as forward-only migrations: `migrations[n]` takes `user_version` n to n+1.
///
/// A store whose `user_version` is above `migrations.count` comes from a newer version.
/// `totals` is kept by ``MetadataIndex`` itself (one update per transaction), not by triggers:
/// a trigger per row doubled the cost of evicting.
enum IndexSchema {
    static var currentVersion: Int { migrations.count }

    static let migrations: [String] = [
        """
        CREATE TABLE entries (
            digest BLOB PRIMARY KEY NOT NULL,
            key TEXT NOT NULL,
            byte_size INTEGER NOT NULL,
            checksum INTEGER NOT NULL,
            stored_at INTEGER NOT NULL,
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
            ttl_ms INTEGER,
            response_headers BLOB
        ) WITHOUT ROWID;
        CREATE INDEX entries_by_access ON entries(last_access);
        CREATE INDEX entries_by_expiry ON entries(expires_at) WHERE expires_at IS NOT NULL;
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
        """,
        // Derived entries (EntrySource): which entry each was derived from, for listings.
        """
        ALTER TABLE entries ADD COLUMN source_key TEXT;
        ALTER TABLE entries ADD COLUMN source_checksum INTEGER;
        CREATE INDEX entries_by_source ON entries(source_key) WHERE source_key IS NOT NULL;
        """,
        // Rows keyed by the time they were stored, then digest (see IndexRowKey): new rows append
        // instead of landing on a random page each. Same columns and rows; the indexes follow.
        """
        CREATE TABLE entries_by_time (
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
            ttl_ms INTEGER,
            response_headers BLOB,
            source_key TEXT,
            source_checksum INTEGER,
            PRIMARY KEY (stored_at, digest)
        ) WITHOUT ROWID;
        INSERT INTO entries_by_time
            SELECT stored_at, digest, key, byte_size, checksum, last_access, expires_at, etag, last_modified,
                response_date, content_type, format, pixel_width, pixel_height, cost, ttl_ms, response_headers,
                source_key, source_checksum
            FROM entries;
        DROP TABLE entries;
        ALTER TABLE entries_by_time RENAME TO entries;
        CREATE INDEX entries_by_access ON entries(last_access);
        CREATE INDEX entries_by_expiry ON entries(expires_at) WHERE expires_at IS NOT NULL;
        CREATE INDEX entries_by_source ON entries(source_key) WHERE source_key IS NOT NULL;
        """,
        // The blob log number of the entry's record (see EvictionVictim), so that eviction finds
        // the record without a lookup by digest; NULL where not known (rows written before it).
        """
        ALTER TABLE entries ADD COLUMN blob_number INTEGER;
        """,
        // The access order with what eviction reads of each victim (see
        // MetadataIndex.evictionCandidates): choosing victims scans this index alone instead of
        // looking each row up in the table, a third of the time. Its order is unchanged: the
        // primary key's columns, which every index of this table ends with, are named first.
        """
        DROP INDEX entries_by_access;
        CREATE INDEX entries_by_access ON entries(last_access, stored_at, digest, byte_size, blob_number);
        """,
    ]
}
