import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// A closed store gives back what it held: an app (or a test suite) that opens and closes stores
/// must not run out of file descriptors.
@Suite("Store resources")
struct ResourceTests {
    /// The descriptors this process has open on files inside `folder` (Linux: /proc/self/fd).
    static func descriptors(inside folder: URL) -> [String] {
        let fileManager = FileManager.default
        let prefix = folder.resolvingSymlinksInPath().path
        let entries = (try? fileManager.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .filter { $0.hasPrefix(prefix) }
    }

    @Test("after close, no file of the store stays open", .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
    func closeReleasesFiles() async throws {
        let folder = TemporaryDirectory("resources")
        for round in 0..<5 {
            do {
                let store = try PersistentStore(directory: folder.url)
                try await store.put(NewEntry(key: "k\(round)", data: Data(repeating: UInt8(round), count: 4096)))
                #expect(try store.get("k\(round)") != nil)
                #expect(!Self.descriptors(inside: folder.url).isEmpty)
                store.close()
            }
            // Released when the last reference goes; allow a moment for the writer thread to end.
            var open = Self.descriptors(inside: folder.url)
            for _ in 0..<100 where !open.isEmpty {
                try await Task.sleep(for: .milliseconds(20))
                open = Self.descriptors(inside: folder.url)
            }
            #expect(open.isEmpty, "round \(round): still open: \(open)")
        }
    }
}
