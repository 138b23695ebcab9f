import CacheStorage
import Foundation

/// `verify --repair`: every step that reads or writes the damaged files runs in a child process
/// (see ``ChildCommand``), so a fault in LMDB is a finding and the repair goes on to the next step.
///
/// First a check; then the repair in place (damaged entries removed, the index rebuilt), which
/// keeps every entry's times and works beside other processes; when that faults, fails or does not
/// end clean, every entry that reads clean is copied into a new store that takes the old one's
/// place. A repair by copy always ends: the new store holds only checked bytes.
struct VerifyRepair {
    let store: StoreOptions

    private var path: [String] { ["--path", store.directory.path] }

    func run() async throws -> VerifyReport {
        guard store.holdsStore else { throw CommandFailure.noCache(path: store.directory.path) }
        let check = try await ChildCommand(arguments: ["verify", "--json"] + path).run()
        var found: VerifyReport
        if let report = Self.report(check) {
            if report.problems.isEmpty { return report }
            found = report
            let inPlace = try await ChildCommand(arguments: ["verify", "--repair", "--in-place", "--json"] + path).run()
            if let repaired = Self.report(inPlace), repaired.cleanAfterRepair ?? repaired.problems.isEmpty {
                return repaired
            }
            found.problems.append(Self.finding("repairing in place", inPlace))
        } else {
            found = VerifyReport(problems: [Self.finding("checking", check)])
        }
        return try await repairByCopy(found)
    }

    /// Copies what reads clean into `repair/` in a child, swaps it in, and verifies the result here.
    private func repairByCopy(_ found: VerifyReport) async throws -> VerifyReport {
        var report = found
        let folder = store.directory.appendingPathComponent("repair", isDirectory: true)
        let copy = try await ChildCommand(arguments: ["verify", "--copy-clean-into", folder.path] + path).run()
        let salvaged = copy.crashed || copy.status != 0
            ? nil : try? JSONOutput.decoder().decode(SalvageJSON.self, from: Data(copy.output.utf8))
        if salvaged == nil { report.problems.append(Self.finding("copying the entries that read clean", copy)) }
        if let stoppedEarly = salvaged?.stoppedEarly {
            report.problems.append("the walk over the damaged files stopped early: \(stoppedEarly)")
        }
        // A child that ended before making the new store leaves an empty one to swap in.
        if !FileManager.default.fileExists(atPath: folder.appendingPathComponent("blobs/data.mdb").path) {
            do {
                try PersistentStore(directory: folder, configuration: .commandLineTool(recovery: .throwError)).close()
            } catch {
                throw CommandFailure(error)
            }
        }
        let movedTo: URL
        do {
            movedTo = try PersistentStore.replaceStore(at: store.directory, with: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw CommandFailure(error)
        }
        let after = try await store.openExistingStore(recovery: .rebuild).use { try await $0.verify() }
        report.repaired = true
        report.cleanAfterRepair = after.isClean
        let copied = salvaged.map { "\($0.copied) entries that read clean" } ?? "\(after.entriesChecked) entries that read clean before the fault"
        let left = salvaged.map { $0.leftBehind > 0 ? " (\($0.leftBehind) damaged left behind)" : "" } ?? ""
        report.repairNote = "copied \(copied)\(left) into a new store, which replaced the damaged one; its files are in \(movedTo.path)"
        return report
    }

    /// A child's `verify --json` report, when it ran to the end (exit 0 or 1).
    private static func report(_ outcome: ChildCommand.Outcome) -> VerifyReport? {
        guard !outcome.crashed, outcome.status == 0 || outcome.status == 1 else { return nil }
        return try? JSONOutput.decoder().decode(VerifyReport.self, from: Data(outcome.output.utf8))
    }

    /// What a step that did not run to the end says about the cache.
    private static func finding(_ step: String, _ outcome: ChildCommand.Outcome) -> String {
        outcome.crashed
            ? "\(step) faulted (signal \(outcome.status)): the cache's files are damaged where LMDB reads them"
            : "\(step) stopped: \(outcome.lastError)"
    }
}
