import Foundation

/// Runs a `storage-worker` with `write-recorder.c` (Tests/Fixtures/PowerLoss) preloaded, so every
/// change it makes to a store's files is logged for ``PowerLossSimulation``.
public enum WriteRecorder {
    public enum Failure: Error, CustomStringConvertible {
        case noCompiler
        case buildFailed(String)
        public var description: String {
            switch self {
            case .noCompiler: "no clang on PATH or beside swift: the write recorder cannot be built"
            case let .buildFailed(errors): "building the write recorder failed: \(errors)"
            }
        }
    }

    static let source = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/PowerLoss/write-recorder.c")

    /// Compiles the recorder into `directory` with the toolchain's clang; returns the library.
    public static func build(into directory: URL) async throws -> URL {
        let library = directory.appendingPathComponent("write-recorder.so")
        let compiler = try clang()
        let build = try await WorkerProcess(
            executable: compiler,
            arguments: ["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", library.path, source.path, "-ldl"],
            environment: [:])
        let (status, _, errors) = await build.finish()
        guard status == 0 else { throw Failure.buildFailed(errors) }
        return library
    }

    /// Runs `storage-worker ROLE STORE` with `environment` under the recorder, logging to `log`
    /// (the worker's standard output is recorded as marks); returns what the worker printed.
    public static func record(
        role: String, store: URL, log: URL, library: URL, seed: UInt64, environment: [String: String]
    ) async throws -> (status: Int32, output: String, errors: String) {
        try await start(role: role, store: store, log: log, library: library, seed: seed, environment: environment).finish()
    }

    /// Starts `storage-worker ROLE STORE` under the recorder without waiting for it: several
    /// workers recording into one `log` are ordered by the recorder's lock on it.
    public static func start(
        role: String, store: URL, log: URL, library: URL, seed: UInt64, environment: [String: String]
    ) async throws -> WorkerProcess {
        try await WorkerProcess(
            role: role, directory: store, seconds: 600, seed: seed,
            environment: environment.merging([
                "LD_PRELOAD": library.path, "POWERLOSS_DIR": store.path, "POWERLOSS_LOG": log.path,
                "POWERLOSS_MARK_FD": "1",
            ]) { $1 })
    }

    /// Where the whole log, replayed with everything kept, differs from the files the recorded
    /// processes left under `store` (empty when the recorder saw every change they made).
    public static func differences(of simulation: PowerLossSimulation, from store: URL) throws -> [String] {
        let replayed = simulation.finalState()
        var files: [String: [UInt8]] = [:]
        var folders: Set<String> = []
        let root = store.resolvingSymlinksInPath().path + "/"
        let walker = FileManager.default.enumerator(at: store, includingPropertiesForKeys: [.isDirectoryKey])
        while let url = walker?.nextObject() as? URL {
            let path = String(url.resolvingSymlinksInPath().path.dropFirst(root.count))
            if (try url.resourceValues(forKeys: [.isDirectoryKey])).isDirectory == true {
                folders.insert(path)
            } else if !PowerLossSimulation.isScratch(path) {
                files[path] = [UInt8](try Data(contentsOf: url))
            }
        }
        var differences: [String] = []
        for folder in folders.symmetricDifference(replayed.folders).sorted() {
            differences.append("folder \(folder) is \(folders.contains(folder) ? "on disk" : "replayed") only")
        }
        for path in Set(files.keys).union(replayed.files.keys).sorted() {
            switch (files[path], replayed.files[path]) {
            case let (real?, replay?) where real != replay:
                let first = (0..<min(real.count, replay.count)).first { real[$0] != replay[$0] } ?? min(real.count, replay.count)
                differences.append("\(path): \(real.count) bytes on disk, \(replay.count) replayed, first difference at byte \(first)")
            case (nil, _?): differences.append("\(path) is replayed only")
            case (_?, nil): differences.append("\(path) is on disk only")
            default: break
            }
        }
        return differences
    }

    private static func clang() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("clang")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            // The Swift toolchain ships its clang beside swift.
            let swift = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
            if FileManager.default.isExecutableFile(atPath: swift.path) {
                let beside = swift.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("clang")
                if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
            }
        }
        throw Failure.noCompiler
    }
}
