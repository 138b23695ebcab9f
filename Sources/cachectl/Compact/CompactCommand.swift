import ArgumentParser
import CacheStorage
import Foundation

/// `cachectl compact`: gives free space in the cache's files back to the file system.
struct CompactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Give space back: rewrite the blob store without free pages and vacuum the index.",
        discussion: """
            Needs the cache to itself: while any other process (an app, another cachectl) has it \
            open, compact refuses, changes nothing, and exits 2. Removing entries frees pages \
            for reuse but does not shrink the files; compact does.

            Example:
              cachectl purge --older-than 30d && cachectl compact
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() async throws {
        let sizes = try await store.openExistingStore().use { store in
            do {
                return try await store.compact()
            } catch {
                throw CommandFailure(error)
            }
        }
        let report = CompactReport(bytesBefore: sizes.bytesBefore, bytesAfter: sizes.bytesAfter)
        if json {
            try JSONOutput.print(report)
        } else {
            Terminal.print(
                "compacted \(store.directory.path): \(ByteSize.format(report.bytesBefore)) → \(ByteSize.format(report.bytesAfter)) (\(ByteSize.format(report.bytesFreed)) given back)"
            )
        }
    }
}

/// What `compact` did.
struct CompactReport: Encodable {
    var bytesBefore: Int
    var bytesAfter: Int
    var bytesFreed: Int { max(0, bytesBefore - bytesAfter) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bytesBefore, forKey: .bytesBefore)
        try container.encode(bytesAfter, forKey: .bytesAfter)
        try container.encode(bytesFreed, forKey: .bytesFreed)
    }

    private enum CodingKeys: String, CodingKey {
        case bytesBefore, bytesAfter, bytesFreed
    }
}
