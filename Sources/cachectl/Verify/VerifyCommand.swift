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
            and index rows that disagree with the entries. --repair removes the damaged entries, \
            rebuilds the index and verifies again; a cache too damaged to open is moved aside into \
            quarantine/ and replaced by an empty one, as the app itself would do. Safe while \
            other processes write: entries changing meanwhile are not counted as problems.

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

    func run() async throws {
        let report: VerifyReport
        do {
            report = try await store.openExistingStore().use(verify)
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

    /// The store cannot even be opened: a problem to report, and with `--repair` the recovery the
    /// app would perform on its next launch.
    private func unopenable(reason: String) async throws -> VerifyReport {
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
struct VerifyReport: Encodable {
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
                    : "; verified again: still not clean (another process may be writing); run verify again"
            }
        } else {
            text += "\nnot repaired; run `cachectl verify --repair` to remove the damaged entries"
        }
        return text
    }
}
