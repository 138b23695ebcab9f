import Foundation

/// The parts of cachectl's `--json` reports the tests read (keys arrive snake_case).

struct EntryRow: Decodable, Hashable {
    var key: String
    var bytes: Int
    var format: String?
    var width: Int?
    var height: Int?
    var etag: String?
    var expires: Date?
    var freshness: String
    /// The original's key, for a variant.
    var source: String?
}

struct ManifestRow: Decodable {
    var key: String
    var file: String
    var bytes: Int
    var format: String?
    var width: Int?
    var height: Int?
    var storedAt: Date?
    var lastAccess: Date?
    var etag: String?
    var expires: Date?
}

struct ImportJSON: Decodable {
    struct Refusal: Decodable {
        var file: String
        var stage: String
        var reason: String
    }

    var manifest: Bool
    var imported: Int
    var bytes: Int
    var refused: [Refusal]
}

struct PurgeJSON: Decodable {
    var dryRun: Bool
    var entries: Int
    var bytes: Int
    var remainingEntries: Int
    var selected: [EntryRow]
}

struct ShowJSON: Decodable {
    var key: String
    var source: String?
    var processing: String?
    var variants: [EntryRow]
}

struct VerifyJSON: Decodable {
    var entriesChecked: Int
    var problems: [String]
    var repaired: Bool
    var cleanAfterRepair: Bool?
}

struct StatsJSON: Decodable {
    struct Usage: Decodable {
        var entries: Int
        var bytes: Int
    }

    var entries: Int
    var bytes: Int
    var formats: [String: Usage]
    var fresh: Int
    var stale: Int
    var expired: Int
    var byteLimit: Int
    var lmdbMapBytes: Int
    var sqliteBytes: Int
    var variantEntries: Int
    var variantBytes: Int
}

struct WarmJSON: Decodable {
    struct Problem: Decodable {
        var url: String
        var reason: String
    }

    var succeeded: Int
    var fetched: Int
    var alreadyCached: Int
    var refused: [Problem]
    var failed: [Problem]
}
