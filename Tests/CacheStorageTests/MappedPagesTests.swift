import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// A read copies a large entry out of LMDB's map and then unmaps its pages (`withBytes(of:at:_:_:)`),
/// and a commit unmaps the whole map at most once a second (`releaseMappedPagesIfDue()`), so that
/// what this process has read does not stay in its resident memory.
@Suite("Mapped pages")
struct MappedPagesTests {
    /// Kibibytes of `file` this process has mapped and resident, from `/proc/self/smaps`; nil
    /// when it has not mapped the file.
    static func residentKiB(of mapped: URL) throws -> Int? {
        let file = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"), "no /proc/self/smaps")
        defer { try? file.close() }
        let smaps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let path = mapped.resolvingSymlinksInPath().path
        var total: Int?
        var inFile = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 5, fields[0].contains("-"), fields[0].allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                inFile = fields.count >= 6 && fields[5...].joined(separator: " ") == path
            } else if inFile, fields.first == "Rss:", fields.count >= 2 {
                total = (total ?? 0) + (Int(fields[1]) ?? 0)
            }
        }
        return total
    }

    @Test("reading large entries leaves their pages out of the process's resident memory")
    func largeReadsUnmapped() async throws {
        #if os(Linux)
        let folder = TemporaryDirectory()
        let count = 8
        let size = 1 << 20
        let entries = (0..<count).map {
            NewEntry(key: "https://cdn.example.com/large/\($0).jpg", data: Data(progression: size, start: $0, step: 7))
        }
        do {
            let store = try PersistentStore(directory: folder.url)
            try await store.put(entries)
            store.close()
        }
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let data = folder.url.appendingPathComponent("blobs/data.mdb")
        for entry in entries {
            #expect(try store.get(entry.key)?.data == entry.data)
        }
        // Every entry's bytes were read through the map: left mapped, they would be resident.
        let resident = try #require(try Self.residentKiB(of: data), "the data file is not mapped")
        #expect(resident < count * size / 1024 / 4, "\(resident) KiB of the data file stay resident after reading \(count) MiB")
        #endif
    }

    @Test("a commit a second after small entries were read unmaps their pages")
    func smallReadsUnmappedByLaterCommit() async throws {
        #if os(Linux)
        let folder = TemporaryDirectory()
        let count = 160
        let size = 32 << 10
        let entries = (0..<count).map {
            NewEntry(key: "https://cdn.example.com/small/\($0).jpg", data: Data(progression: size, start: $0, step: 3))
        }
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        try await store.put(entries)
        let data = folder.url.appendingPathComponent("blobs/data.mdb")
        for entry in entries {
            #expect(try store.get(entry.key)?.data == entry.data)
        }
        let totalKiB = count * size / 1024
        // Small entries are not unmapped by their reads: the test shows what the commit releases.
        let afterReads = try #require(try Self.residentKiB(of: data), "the data file is not mapped")
        #expect(afterReads > totalKiB / 2, "only \(afterReads) KiB resident after reading \(totalKiB) KiB")
        try await Task.sleep(for: BlobStore.mapReleaseInterval + .milliseconds(100))
        try await store.put([NewEntry(key: "https://cdn.example.com/small/after.jpg", data: Data(progression: 100, start: 1, step: 1))])
        let afterCommit = try #require(try Self.residentKiB(of: data), "the data file is not mapped")
        #expect(afterCommit < totalKiB / 4, "\(afterCommit) KiB of the data file stay resident after a commit")
        #endif
    }
}
