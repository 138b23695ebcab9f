import Foundation

/// The disk states a power loss could leave behind a recorded process (a ``WriteLog``).
///
/// The model is POSIX's, at its harshest, with SQLite's crash tests' view of a disk. Per file: what
/// was written before the file's last `fsync`/`fdatasync` (or through an `O_DSYNC` descriptor) is on
/// disk; each write after it may or may not be, independently for each 512-byte sector it touched
/// (a disk writes sectors, in any order, so a page can tear), and a sector that did not land reads
/// back as it was, as zeros or as garbage (see ``LostSectors``); a truncation or an allocation after
/// the sync may or may not have happened. Names: creating, renaming, linking and removing files and
/// folders are kept in the order they were made, as a journaling file system (ext4, XFS, APFS)
/// keeps them: a folder's sync makes its changes and every earlier one durable, and of the changes
/// after the last such sync any prefix survives. So a name never made durable can be missing or
/// stale, a folder never made durable is missing with everything in it, and a renamed file's
/// unsynced contents are still only maybe there. The recorded folder itself always exists. Lock
/// files and SQLite's shared-memory index are not kept: after a boot both libraries rebuild them.
public struct PowerLossSimulation: Sendable {
    /// How the sectors of unsynced writes that did not land read back.
    public enum LostSectors: String, Sendable, CaseIterable {
        /// As they were before the write.
        case previous
        /// As zeros (a sector the drive had cleared).
        case zeros
        /// As they were, as zeros or as random bytes, sector by sector (a write torn mid-sector).
        case garbage
    }

    /// One disk state: the files under the recorded folder, and what the process had said by then.
    public struct State: Sendable {
        /// Which state of the run this is (with the seed, it reproduces the state).
        public let number: Int
        /// How many recorded operations had happened when the power went.
        public let crashPoint: Int
        /// The chance each unsynced sector write, truncation or name change was kept.
        public let keptFraction: Double
        /// How the sectors that did not land read back.
        public let lostSectors: LostSectors
        /// Path relative to the folder → contents.
        public var files: [String: [UInt8]]
        /// Folders that exist, relative to the folder (empty ones too).
        public var folders: Set<String>
        /// The marks written before the power went, in order.
        public let marks: [String]

        /// Writes the state's folders and files under `directory` (private modes, as the store makes them).
        public func write(to directory: URL) throws {
            let manager = FileManager.default
            for folder in folders.sorted() {
                try manager.createDirectory(
                    at: directory.appendingPathComponent(folder), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            }
            for (path, contents) in files {
                let url = directory.appendingPathComponent(path)
                try manager.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
                try Data(contents).write(to: url)
                chmod(url.path, 0o600)
            }
        }
    }

    public let log: WriteLog
    private let root: String
    private let sectorSize: Int

    /// `root`: the folder that was recorded.
    public init(log: WriteLog, root: URL, sectorSize: Int = 512) {
        self.log = log
        self.root = root.path.hasSuffix("/") ? root.path : root.path + "/"
        self.sectorSize = sectorSize
    }

    /// Files a boot does not need (they are rebuilt).
    public static func isScratch(_ relativePath: String) -> Bool {
        relativePath.hasSuffix("lock.mdb") || relativePath.hasSuffix("-shm")
    }

    /// Builds `count` states at crash points drawn from `seed`, in increasing order, handing each
    /// to `body`: the same log and seed give the same states.
    public func forEachState(count: Int, seed: UInt64, _ body: (State) async throws -> Void) async throws {
        var random = SeededRandom(seed: seed)
        let total = log.operations.count
        // Both ends always: nothing written yet, and everything written.
        var points = [0, total] + (0..<max(0, count - 2)).map { _ in Int.random(in: 0...total, using: &random) }
        points.sort()
        var disk = SimulatedDisk()
        var marks: [String] = []
        var applied = 0
        for (number, point) in points.prefix(count).enumerated() {
            while applied < point {
                apply(log.operations[applied], to: &disk, marks: &marks)
                applied += 1
            }
            var stateRandom = SeededRandom(seed: seed &+ UInt64(number) &* 0x9E37_79B9_7F4A_7C15)
            let kept: Double =
                switch number % 4 {
                case 0: 0
                case 1: 1
                case 2: 0.5
                default: Double.random(in: 0...1, using: &stateRandom)
                }
            let lost = LostSectors.allCases[(number / 4) % LostSectors.allCases.count]
            let (names, folders) = disk.names(keeping: kept, using: &stateRandom)
            var files: [String: [UInt8]] = [:]
            for (path, file) in names where !Self.isScratch(path) {
                files[path] = file.contents(keeping: kept, sectorSize: sectorSize, lost: lost, using: &stateRandom)
            }
            try await body(
                State(
                    number: number, crashPoint: point, keptFraction: kept, lostSectors: lost, files: files,
                    folders: folders, marks: marks))
        }
    }

    /// The files and folders the whole log leaves when everything it wrote is kept: what the
    /// recorded process left on disk, byte for byte, if the recorder saw every change it made.
    public func finalState() -> (files: [String: [UInt8]], folders: Set<String>) {
        var disk = SimulatedDisk()
        var marks: [String] = []
        for operation in log.operations { apply(operation, to: &disk, marks: &marks) }
        var random = SeededRandom(seed: 0)
        let (names, folders) = disk.names(keeping: 1, using: &random)
        var files: [String: [UInt8]] = [:]
        for (path, file) in names where !Self.isScratch(path) {
            files[path] = file.contents(keeping: 1, sectorSize: sectorSize, lost: .previous, using: &random)
        }
        return (files, folders)
    }

    private func relative(_ path: String) -> String? {
        if path + "/" == root { return "" }
        return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : nil
    }

    private func apply(_ operation: WriteLog.Operation, to disk: inout SimulatedDisk, marks: inout [String]) {
        switch operation {
        case let .create(path):
            if let name = relative(path) { disk.change(.create(name, SimulatedFile())) }
        case let .write(path, offset, bytes, durable):
            relative(path).map { disk.file($0).pending.append(.write(offset: offset, bytes: bytes, forced: durable)) }
        case let .truncate(path, size):
            relative(path).map { disk.file($0).pending.append(.truncate(size: size)) }
        case let .sync(path):
            guard let name = relative(path) else { return }
            if let file = disk.live[name] { file.sync() } else { disk.syncFolder(name) }
        case let .rename(from, to):
            switch (relative(from), relative(to)) {
            case let (from?, to?): disk.change(.rename(from, to))
            case let (from?, nil): disk.change(.unlink(from))
            case let (nil, to?): disk.change(.create(to, SimulatedFile()))
            case (nil, nil): break
            }
        case let .exchange(first, second):
            if let first = relative(first), let second = relative(second) { disk.change(.exchange(first, second)) }
        case let .link(from, to):
            guard let to = relative(to) else { return }
            if let from = relative(from) { disk.change(.link(from, to)) } else { disk.change(.create(to, SimulatedFile())) }
        case let .unlink(path):
            if let name = relative(path) { disk.change(.unlink(name)) }
        case let .makeFolder(path):
            if let name = relative(path), !name.isEmpty { disk.change(.makeFolder(name)) }
        case let .removeFolder(path):
            if let name = relative(path), !name.isEmpty { disk.change(.removeFolder(name)) }
        case let .mark(text):
            marks.append(text)
        }
    }
}
