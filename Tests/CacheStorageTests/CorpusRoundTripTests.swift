import Foundation
import TestSupport
import Testing

import CacheStorage

@Suite("Corpus round trip")
struct CorpusRoundTripTests {
    @Test("every real image round-trips byte-identical across close and reopen", .enabled(if: SharedFixtures.isAvailable))
    func realImages() async throws {
        let files = try SharedFixtures.realImages()
        #expect(files.count >= 150)
        let folder = TemporaryDirectory()
        var originals: [String: Data] = [:]
        do {
            let store = try PersistentStore(directory: folder.url)
            var batch: [NewEntry] = []
            for file in files {
                let key = "https://corpus.example/" + file.pathComponents.suffix(2).joined(separator: "/")
                let data = try Data(contentsOf: file)
                originals[key] = data
                batch.append(NewEntry(key: key, data: data, attributes: EntryAttributes(format: file.pathExtension)))
                if batch.count == 16 {
                    try await store.put(batch)
                    batch.removeAll()
                }
            }
            try await store.put(batch)
            store.close()
        }
        let store = try PersistentStore(directory: folder.url)
        for (key, data) in originals {
            let hit = try #require(try store.get(key), "missing \(key)")
            #expect(hit.data == data, "bytes differ for \(key)")
        }
        let stats = try store.statistics()
        #expect(stats.entries == originals.count)
        #expect(stats.bytes == originals.values.reduce(0) { $0 + $1.count })
        #expect(try await store.verify().isClean)
    }
}
