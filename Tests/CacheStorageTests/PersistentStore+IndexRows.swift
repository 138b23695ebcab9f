import Foundation

@testable import CacheStorage

extension PersistentStore {
    /// How many rows the index holds for `key`'s digest (a row per entry, none once it is gone):
    /// what the replay tests read to see what a catch-up did.
    func indexRowCount(for key: String) throws -> Int64 {
        try core.index.query { connection in
            let statement = try connection.prepare("SELECT count(*) FROM entries WHERE digest = ?")
            try KeyDigest(key: key).withBytes { try statement.bind(1, blob: $0) }
            return try statement.step() ? statement.int64(0) : -1
        }
    }
}
