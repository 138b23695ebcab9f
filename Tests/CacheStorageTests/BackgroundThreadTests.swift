import Foundation
import TestSupport
import Testing

@testable import CacheStorage

/// The store's own threads (writer, write-back) run below the app's threads: see `BackgroundThread`.
@Suite("Background threads")
struct BackgroundThreadTests {
    /// The name and nice value of each of this process's threads, from `/proc/self/task`.
    static func threads() throws -> [(name: String, nice: Int32)] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        return tasks.compactMap { task in
            // A thread may end between the listing and the reads.
            guard let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 16,
                let nice = Int32(fields[16])
            else { return nil }
            return (name.trimmingCharacters(in: .whitespacesAndNewlines), nice)
        }
    }

    @Test("the writer and write-back threads run at a nice value 10 above the process's main thread")
    func storeThreadsAreLowered() async throws {
        #if os(Linux)
        let folder = TemporaryDirectory()
        let store = try PersistentStore(directory: folder.url, configuration: TestStores.strict())
        defer { store.close() }
        try await store.put(NewEntry(key: "https://cdn.example.com/a.jpg", data: Data([1, 2, 3])))
        errno = 0
        let main = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(getpid()))
        try #require(errno == 0)
        // Other suites' stores may be open meanwhile: theirs must be lowered too.
        let storeThreads = try Self.threads().filter { ["cache-writer", "cache-writeback"].contains($0.name) }
        #expect(Set(storeThreads.map(\.name)) == ["cache-writer", "cache-writeback"])
        for thread in storeThreads {
            #expect(thread.nice == min(19, main + BackgroundThread.niceIncrement), "\(thread)")
        }
        #expect(try store.get("https://cdn.example.com/a.jpg")?.data == Data([1, 2, 3]))
        #endif
    }
}
