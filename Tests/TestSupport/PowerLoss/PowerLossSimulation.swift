import Foundation

/// The disk states a power loss could leave behind a recorded process (a ``WriteLog``).
///
/// The model is POSIX's, at its harshest. Per file: what was written before the file's last
/// `fsync`/`fdatasync` (or through an `O_DSYNC` descriptor) is on disk; each write after it may or
/// may not be, independently for each page it touched (a disk writes pages, in any order); a
/// truncation after the sync may or may not have happened. Names: creating, renaming and
/// removing files are kept in the order they were made, as a journaling file system (ext4, XFS,
/// APFS) keeps them: a folder's sync makes its changes and every earlier one durable, and of the
/// changes after the last such sync any prefix survives. So a name never made durable can be
/// missing or stale, and a renamed file's unsynced contents are still only maybe there. Folders themselves always exist. Lock files and SQLite's shared-memory
/// index are not kept: after a boot both libraries rebuild them.
public struct PowerLossSimulation: Sendable {
    /// One disk state: the files under the recorded folder, and what the process had said by then.
    public struct State: Sendable {
        /// Which state of the run this is (with the seed, it reproduces the state).
        public let number: Int
        /// How many recorded operations had happened when the power went.
        public let crashPoint: Int
        /// The chance each unsynced page write or truncation was kept.
        public let keptFraction: Double
        /// Path relative to the folder → contents.
        public var files: [String: [UInt8]]
        /// The marks written before the power went, in order.
        public let marks: [String]

        /// Writes the state's files under `directory` (private modes, as the store makes them).
        public func write(to directory: URL) throws {
            for (path, contents) in files {
                let url = directory.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
                try Data(contents).write(to: url)
                chmod(url.path, 0o600)
            }
        }
    }

    public let log: WriteLog
    private let root: String
    private let pageSize: Int

    /// `root`: the folder that was recorded.
    public init(log: WriteLog, root: URL, pageSize: Int = 4096) {
        self.log = log
        self.root = root.path.hasSuffix("/") ? root.path : root.path + "/"
        self.pageSize = pageSize
    }

    /// Files a boot does not need (they are rebuilt).
    static func isScratch(_ relativePath: String) -> Bool {
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
            var files: [String: [UInt8]] = [:]
            for (path, file) in disk.names(keeping: kept, using: &stateRandom) where !Self.isScratch(path) {
                files[path] = file.contents(keeping: kept, pageSize: pageSize, using: &stateRandom)
            }
            try await body(State(number: number, crashPoint: point, keptFraction: kept, files: files, marks: marks))
        }
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
        case let .unlink(path):
            if let name = relative(path) { disk.change(.unlink(name)) }
        case let .mark(text):
            marks.append(text)
        }
    }
}

/// The names of the simulated disk: as the process sees them, as they surely are on disk, and
/// the changes made since that are not yet.
struct SimulatedDisk {
    enum Change {
        case create(String, SimulatedFile)
        case rename(String, String)
        case unlink(String)

        /// The folder whose sync makes the change durable ("" for the recorded folder).
        var folder: String {
            switch self {
            case let .create(name, _), let .rename(_, name), let .unlink(name): SimulatedDisk.folder(of: name)
            }
        }
    }

    private(set) var live: [String: SimulatedFile] = [:]
    private var durable: [String: SimulatedFile] = [:]
    private var pending: [Change] = []

    static func folder(of name: String) -> String {
        name.split(separator: "/").dropLast().joined(separator: "/")
    }

    /// The file at `name`; one written without being created (it existed before the recording)
    /// becomes a durable name.
    mutating func file(_ name: String) -> SimulatedFile {
        if let file = live[name] { return file }
        let file = SimulatedFile()
        live[name] = file
        durable[name] = file
        return file
    }

    mutating func change(_ change: Change) {
        Self.apply(change, to: &live)
        pending.append(change)
    }

    /// A folder was synced: its names, and every change made before (the journal commits in
    /// order), are on disk.
    mutating func syncFolder(_ folder: String) {
        guard let last = pending.lastIndex(where: { $0.folder == folder }) else { return }
        for change in pending[...last] { Self.apply(change, to: &durable) }
        pending.removeSubrange(...last)
    }

    /// The durable names with a random prefix of the later changes (all when `kept` is 1).
    func names(keeping kept: Double, using random: inout SeededRandom) -> [String: SimulatedFile] {
        var names = durable
        let count = kept >= 1 ? pending.count : kept <= 0 ? 0 : Int.random(in: 0...pending.count, using: &random)
        for change in pending.prefix(count) { Self.apply(change, to: &names) }
        return names
    }

    private static func apply(_ change: Change, to names: inout [String: SimulatedFile]) {
        switch change {
        case let .create(name, file): names[name] = file
        case let .rename(from, to): names[to] = names.removeValue(forKey: from) ?? SimulatedFile()
        case let .unlink(name): names[name] = nil
        }
    }
}

/// One file of the simulated disk: what is surely on it, and what came after its last sync.
final class SimulatedFile {
    enum Change {
        case write(offset: Int, bytes: [UInt8], forced: Bool)
        case truncate(size: Int)
    }

    private(set) var durable: [UInt8] = []
    var pending: [Change] = []

    func sync() {
        for change in pending { Self.apply(change, to: &durable) }
        pending = []
    }

    /// The durable contents with each pending page write (and truncation) kept with chance `kept`.
    func contents(keeping kept: Double, pageSize: Int, using random: inout SeededRandom) -> [UInt8] {
        var contents = durable
        for change in pending {
            switch change {
            case .write(_, _, forced: true):
                Self.apply(change, to: &contents)
            case .truncate:
                if Double.random(in: 0..<1, using: &random) < kept { Self.apply(change, to: &contents) }
            case let .write(offset, bytes, _):
                // Split at page boundaries of the file: each page lands or not.
                var start = offset
                while start < offset + bytes.count {
                    let end = min(offset + bytes.count, (start / pageSize + 1) * pageSize)
                    if Double.random(in: 0..<1, using: &random) < kept {
                        Self.apply(.write(offset: start, bytes: Array(bytes[(start - offset)..<(end - offset)]), forced: false), to: &contents)
                    }
                    start = end
                }
            }
        }
        return contents
    }

    private static func apply(_ change: Change, to contents: inout [UInt8]) {
        switch change {
        case let .write(offset, bytes, _):
            if contents.count < offset + bytes.count {
                contents.append(contentsOf: repeatElement(0, count: offset + bytes.count - contents.count))
            }
            contents.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        case let .truncate(size):
            if size < contents.count {
                contents.removeSubrange(size...)
            } else {
                contents.append(contentsOf: repeatElement(0, count: size - contents.count))
            }
        }
    }
}
