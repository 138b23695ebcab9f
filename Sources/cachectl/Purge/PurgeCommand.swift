import ArgumentParser
import CacheStorage
import Foundation

/// `cachectl purge`: removes exactly the entries its selectors choose, and nothing else.
struct PurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Remove the entries the filters select (AND), or everything, or down to a size.",
        discussion: """
            Give --all, or one or more filters; filters combine with AND. --to-size SIZE removes, \
            from the entries the filters select (all entries without filters), expired entries \
            first and then the least recently read, until the cache holds at most SIZE: the order \
            the store itself evicts in. --dry-run shows what would go and removes nothing.

            Sizes: 800, 500KB, 5MB, 1.5GB (powers of 1000) or 512MiB (powers of 1024).
            Durations: 30m, 12h, 7d, 1h30m; at most 36500d (100 years).

            Examples:
              cachectl purge --expired --dry-run
              cachectl purge --host ads.example.com --older-than 7d
              cachectl purge --to-size 200MB
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup(title: "Filters") var filters: EntryFilters

    @Flag(help: "Remove every entry.")
    var all = false

    @Option(
        help: ArgumentHelp("Evict until the cache holds at most this: 200MB, 1GiB.", valueName: "size"),
        transform: ByteSize.parse)
    var toSize: Int?

    @Flag(help: "Show what would be removed; remove nothing.")
    var dryRun = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func validate() throws {
        if all && (!filters.isEmpty || toSize != nil) {
            throw ValidationError("--all removes everything; leave it out to purge only what the filters or --to-size select")
        }
        if !all && filters.isEmpty && toSize == nil {
            throw ValidationError("Say what to purge: --all, --to-size SIZE, or one or more filters (see --help)")
        }
    }

    func run() async throws {
        let now = Date()
        if all && !dryRun, let report = try await purgeByDeletingFiles(now: now) {
            if json {
                try JSONOutput.print(report)
            } else {
                Terminal.print(report.text())
            }
            return
        }
        let report = try await store.openExistingStore().use { store in
            let plan = try PurgePlan(store: store, everything: all, filters: filters, targetBytes: toSize, now: now)
            let before = try store.statistics()
            let removed =
                dryRun
                ? RemovalResult(entries: plan.victims.count, bytes: plan.victimBytes)
                : try await store.remove(plan.victims.map(\.key))
            var report = PurgeReport(plan: plan, removed: removed, dryRun: dryRun, statistics: try store.statistics(), now: now)
            if !dryRun && removed.entries > 0 && Self.isShortOfSpace(before) {
                report.volume = await Self.giveSpaceBack(store, availableBefore: before.volumeAvailableBytes)
            }
            return report
        }
        if json {
            try JSONOutput.print(report)
        } else {
            Terminal.print(report.text())
        }
    }
}

extension PurgeCommand {
    /// `--all` with no other process on the cache: its files are deleted and an empty cache made in
    /// their place (``PersistentStore/deleteEntries(at:sharing:)``), which gives their bytes back
    /// at once and needs no room to write a compacted copy. Nil when another process has the cache
    /// open; its entries are then removed one by one.
    private func purgeByDeletingFiles(now: Date) async throws -> PurgeReport? {
        let (plan, before) = try await store.openExistingStore().use { store in
            // The index brought up to date first, so the counts below are the store's.
            try? await store.flush()
            return (try PurgePlan(store: store, everything: true, filters: filters, targetBytes: nil, now: now), try store.statistics())
        }
        let freed: Int
        do {
            freed = try PersistentStore.deleteEntries(at: store.directory)
        } catch StorageError.storeInUse {
            return nil
        }
        let after = try await store.openOrCreateStore().use { try $0.statistics() }
        var report = PurgeReport(
            plan: plan, removed: RemovalResult(entries: before.entries, bytes: before.bytes), dryRun: false,
            statistics: after, now: now)
        report.volume = .init(compacted: false, filesDeleted: true, volumeBytesFreed: freed, note: nil)
        return report
    }

    /// Whether the volume is short enough of space that a purge should shrink the files, not just
    /// free room inside them: writes paused, or less free than the library's default policy keeps free.
    static func isShortOfSpace(_ statistics: StoreStatistics) -> Bool {
        if statistics.writeStatus == .pausedDiskFull { return true }
        guard let available = statistics.volumeAvailableBytes, let total = statistics.volumeBytes else { return false }
        return available < DiskSpacePolicy.standard.bytesToKeepFree(volumeBytes: total)
    }

    /// LMDB keeps its file's size after a deletion (the pages are reused by later writes), so on a
    /// full disk the purge compacts the store to give the bytes back to the volume, when no other
    /// process has the store open.
    static func giveSpaceBack(_ store: PersistentStore, availableBefore: Int?) async -> PurgeReport.VolumeEffect {
        do {
            _ = try await store.compact()
            let after = (try? store.statistics())?.volumeAvailableBytes
            let freed = after.flatMap { after in availableBefore.map { max(0, after - $0) } }
            return .init(compacted: true, volumeBytesFreed: freed, note: nil)
        } catch {
            return .init(
                compacted: false, volumeBytesFreed: nil,
                note: "the space is free inside the cache and new images reuse it; the files shrink (giving the disk its bytes back) with `cachectl compact` once no app has the cache open (\(error))")
        }
    }
}

/// What `purge` did, or would do.
struct PurgeReport: Encodable {
    var dryRun: Bool
    /// Entries and bytes removed (or that would be): what the store reports it removed, so an
    /// entry another process removed first is not counted.
    var entries: Int
    var bytes: Int
    var remainingEntries: Int
    var remainingBytes: Int
    /// The entries chosen.
    var selected: [EntrySummary]
    /// On a volume short of space: whether the store was compacted, and what the volume got back.
    var volume: VolumeEffect?

    struct VolumeEffect: Encodable {
        var compacted: Bool
        /// `--all` deleted the store's files and made an empty store in their place.
        var filesDeleted = false
        var volumeBytesFreed: Int?
        var note: String?
    }

    init(plan: PurgePlan, removed: RemovalResult, dryRun: Bool, statistics: StoreStatistics, now: Date) {
        self.dryRun = dryRun
        entries = removed.entries
        bytes = removed.bytes
        remainingEntries = dryRun ? plan.storeEntries - removed.entries : statistics.entries
        remainingBytes = dryRun ? plan.storeBytes - removed.bytes : statistics.bytes
        selected = plan.victims.map { EntrySummary($0, now: now) }
    }

    func text() -> String {
        let noun = entries == 1 ? "entry" : "entries"
        let verb = dryRun ? "would remove" : "removed"
        let after = dryRun ? "would then hold" : "now holds"
        var text = "\(verb) \(entries) \(noun) (\(ByteSize.format(bytes))); the cache \(after) \(remainingEntries) entries (\(ByteSize.format(remainingBytes)))"
        if let volume {
            if volume.filesDeleted {
                text += "\ndeleted the cache's files: \(volume.volumeBytesFreed.map(ByteSize.format) ?? "their space") given back to the disk; an empty cache takes their place"
            } else if volume.compacted {
                text += "\ncompacted the cache's files: \(volume.volumeBytesFreed.map(ByteSize.format) ?? "some space") given back to the disk"
            } else if let note = volume.note {
                text += "\nnote: \(note)"
            }
        }
        guard dryRun, !selected.isEmpty else { return text }
        let shown = 20
        var table = TextTable(["", "", ""], alignments: [.left, .left, .right])
        for entry in selected.prefix(shown) {
            table.append(["", entry.key.displaySafe(limit: 90), ByteSize.format(entry.bytes)])
        }
        text += "\n" + table.render()
        if selected.count > shown { text += "\n  … and \(selected.count - shown) more (--json lists them all)" }
        return text
    }
}
