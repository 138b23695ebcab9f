import ArgumentParser
import CacheStorage
import Foundation

/// `cachectl verify`: checks every byte and every invariant; `--repair` removes what is damaged.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every entry's bytes and checksum and the index; --repair removes what is damaged.",
        discussion: """
            Reads the whole cache, so it takes as long as reading every byte once. Finds missing \
            or wrong-length blobs, checksum mismatches, unreadable records, blobs without a record, \
            and index rows that disagree with the entries, and an index SQLite finds malformed. \
            --repair removes the damaged entries, rebuilds the index and verifies again. Damage that \
            LMDB cannot write through (or that faults while the cache is read) is repaired by \
            copying every entry that reads clean into a new store, which takes the old one's place \
            (the old files go to quarantine/; this needs the cache to itself); the walk over the \
            damaged files runs in a child process, so a fault there is a finding. A cache too \
            damaged to open is moved aside into quarantine/ and replaced by an empty one, as the \
            app itself would do. Safe while other processes write: entries changing meanwhile are \
            not counted as problems.

            Exit codes: 0 clean, 1 problems found (the report says whether they were repaired), \
            2 could not run.

            Example:
              cachectl verify --repair
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Remove damaged entries and rebuild the index.")
    var repair = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    /// The repair in this process, writing into the store as it is: the first step of `--repair`,
    /// run in a child.
    @Flag(help: .hidden)
    var inPlace = false

    /// Copies every entry that reads clean into a new store in this folder: the walk `--repair`
    /// runs in a child when repairing in place did not end clean.
    @Option(help: .hidden)
    var copyCleanInto: String?

    func run() async throws {
        if let copyCleanInto {
            try copyClean(into: URL(fileURLWithPath: copyCleanInto, isDirectory: true))
            return
        }
        let report: VerifyReport
        do {
            report = try await repair && !inPlace ? VerifyRepair(store: store).run() : store.openExistingStore().use(verify)
        } catch CommandFailure.storage(.corruptStore(_, let reason)) {
            report = try await unopenable(reason: reason)
        }
        if json {
            try JSONOutput.print(report)
        } else {
            Terminal.print(report.text())
        }
        if !report.problems.isEmpty { throw CommandFailure.problemsReported }
    }

    private func verify(_ store: PersistentStore) async throws -> VerifyReport {
        let progress = ProgressBar(label: "verify", total: nil)
        defer { progress.finish() }
        let found = try await store.verify(repair: repair)
        var report = VerifyReport(found)
        if found.repaired { report.cleanAfterRepair = try await store.verify().isClean }
        return report
    }

    /// The child's side of a repair by copy: the damaged store opened read-only, every entry that
    /// reads clean put into a new store at `folder`; prints a ``SalvageReport`` as JSON.
    private func copyClean(into folder: URL) throws {
        guard store.holdsStore else { throw CommandFailure.noCache(path: store.directory.path) }
        var configuration = StoreConfiguration.commandLineTool(recovery: .throwError)
        configuration.access = .readOnly
        let damaged: PersistentStore
        do {
            damaged = try PersistentStore(directory: store.directory, configuration: configuration)
        } catch {
            throw CommandFailure(error)
        }
        defer { damaged.close() }
        try? FileManager.default.removeItem(at: folder)
        var freshConfiguration = StoreConfiguration.commandLineTool(recovery: .throwError)
        freshConfiguration.sharing = damaged.configuration.sharing
        let fresh: PersistentStore
        do {
            fresh = try PersistentStore(directory: folder, configuration: freshConfiguration)
        } catch {
            throw CommandFailure(error)
        }
        defer { fresh.close() }
        let salvaged = try damaged.copyEntriesThatReadClean(into: fresh)
        try JSONOutput.print(SalvageJSON(copied: salvaged.copied, leftBehind: salvaged.leftBehind, stoppedEarly: salvaged.stoppedEarly))
    }

    /// The store cannot even be opened: a problem to report, and with `--repair` the recovery the
    /// app would perform on its next launch.
    func unopenable(reason: String) async throws -> VerifyReport {
        var report = VerifyReport(problems: ["the cache cannot be opened: \(reason)"])
        guard repair else { return report }
        let after = try await store.openExistingStore(recovery: .rebuild).use { try await $0.verify() }
        report.repaired = true
        report.cleanAfterRepair = after.isClean
        report.repairNote = "moved the damaged files into \(store.directory.appendingPathComponent("quarantine").path)/ and opened the cache again (entries the blob store lost are gone)"
        return report
    }
}

/// What `verify` found and did.
struct VerifyReport: Codable {
    var entriesChecked = 0
    var bytesChecked = 0
    var problems: [String]
    var repaired = false
    /// After a repair, whether verifying again found the cache clean.
    var cleanAfterRepair: Bool?
    var repairNote: String?

    init(problems: [String]) {
        self.problems = problems
    }

    init(_ report: VerificationReport) {
        entriesChecked = report.entriesChecked
        bytesChecked = report.bytesChecked
        problems = report.problems.map(\.description)
        repaired = report.repaired
        if report.repaired {
            repairNote = "removed the damaged entries and rebuilt the index from the blob store"
        }
    }

    func text() -> String {
        let noun = problems.count == 1 ? "problem" : "problems"
        var text = "checked \(entriesChecked) entries (\(ByteSize.format(bytesChecked))): "
        text += problems.isEmpty ? "clean" : "\(problems.count) \(noun)"
        for problem in problems.prefix(50) { text += "\n  \(problem.displaySafe)" }
        if problems.count > 50 { text += "\n  … and \(problems.count - 50) more (--json lists them all)" }
        guard !problems.isEmpty else { return text }
        if repaired {
            text += "\nrepaired: \(repairNote ?? "done")"
            if let cleanAfterRepair {
                text += cleanAfterRepair
                    ? "; verified again: clean"
                    : "; verified again: still not clean (another process may be writing meanwhile)"
            }
        } else {
            text += "\nnot repaired; run `cachectl verify --repair` to remove the damaged entries"
        }
        return text
    }
}

/// What the child of a repair by copy printed.
struct SalvageJSON: Codable {
    var copied: Int
    var leftBehind: Int
    var stoppedEarly: String?
}
