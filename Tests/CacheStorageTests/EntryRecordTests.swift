import Foundation
import Testing

@testable import CacheStorage

/// The readers that take one field from a record's fixed head must agree with the full decoder.
@Suite("Entry records")
struct EntryRecordTests {
    static func metadata(key: String, byteCount: Int, full: Bool) -> EntryMetadata {
        var attributes = EntryAttributes()
        if full {
            attributes.expiresAt = Date(millisecondsSince1970: 1_900_000_000_000)
            attributes.etag = "\"v1\""
            attributes.lastModified = "Tue, 24 Nov 2026 10:00:00 GMT"
            attributes.contentType = "image/png"
            attributes.format = "png"
            attributes.pixelWidth = 640
            attributes.pixelHeight = 480
            attributes.cost = 7
            attributes.responseHeaders = Data("cache-control: max-age=60\r\n".utf8)
        }
        let now = Date(millisecondsSince1970: 1_800_000_000_123)
        return EntryMetadata(
            key: key, byteCount: byteCount, checksum: 0xABCD, storedAt: now, lastAccess: now, attributes: attributes,
            source: full ? EntrySource(key: "https://example.com/source.png", checksum: 42) : nil)
    }

    @Test("a record is a key's only when its key is the same bytes; a known key stands in for the record's only then")
    func keyChecks() throws {
        let key = "https://example.com/ünïcode/1.png"
        let record = EntryRecord.naming(
            blobNumber: 3, in: EntryRecord.encode(Self.metadata(key: key, byteCount: 10, full: true)), bytesFollow: true)
        try record.withUnsafeBytes { buffer in
            #expect(EntryRecord.isRecord(buffer, of: key))
            for other in ["https://example.com/ünïcode/1.pn", "https://example.com/ünïcode/1.pnG", "", key + "x"] {
                #expect(!EntryRecord.isRecord(buffer, of: other), "\(other)")
                let decoded = try #require(EntryRecord.decode(buffer, knownKey: other))
                #expect(decoded.key == key, "the record's own key, not the caller's")
            }
            let known = try #require(EntryRecord.decode(buffer, knownKey: key))
            #expect(known == EntryRecord.decode(buffer))
        }
        #expect(!EntryRecord.isRecord(UnsafeRawBufferPointer(start: nil, count: 0), of: ""), "no record")
    }

    @Test("the size read from a record's head is the one the full decoder reads, for every shape of record")
    func byteCountFromHead() throws {
        for (byteCount, full) in [(0, false), (1, false), (4_096, true), (93_000, false), (Int(Int32.max) + 5, true)] {
            let metadata = Self.metadata(key: "https://example.com/\(byteCount).png", byteCount: byteCount, full: full)
            for record in [EntryRecord.encode(metadata), EntryRecord.naming(blobNumber: 77, in: EntryRecord.encode(metadata))] {
                let decoded = try #require(record.withUnsafeBytes { EntryRecord.decode($0) })
                #expect(decoded.byteCount == byteCount)
                #expect(record.withUnsafeBytes { EntryRecord.byteCount(in: $0) } == byteCount)
            }
        }
    }

    @Test("a record cut inside its head gives no size; one damaged after it still gives its size")
    func byteCountOfDamagedRecords() {
        let record = EntryRecord.encode(Self.metadata(key: "k", byteCount: 1_234, full: true))
        let headBytes = 1 + 4 + 1 + 8 + 8 + 8 + 2
        for cut in [0, 1, 5, headBytes - 1] {
            #expect(Array(record.prefix(cut)).withUnsafeBytes { EntryRecord.byteCount(in: $0) } == nil, "cut at \(cut)")
        }
        var wrongVersion = record
        wrongVersion[0] ^= 0xFF
        #expect(wrongVersion.withUnsafeBytes { EntryRecord.byteCount(in: $0) } == nil)
        // The deletion that reads it counts the entry's bytes even when the rest does not decode.
        let damagedTail = Array(record.prefix(headBytes + 3))
        #expect(damagedTail.withUnsafeBytes { EntryRecord.decode($0) } == nil)
        #expect(damagedTail.withUnsafeBytes { EntryRecord.byteCount(in: $0) } == 1_234)
    }
}
