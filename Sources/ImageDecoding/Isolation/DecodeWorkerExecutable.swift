#if os(Linux)
import Foundation
import Glibc

/// Finds the decode worker executable: the path the isolation names, else
/// `$SWIFT_IMAGE_CACHE_DECODE_WORKER`, else `imagecache-decode-worker` beside the app's executable.
enum DecodeWorkerExecutable {
    static let name = "imagecache-decode-worker"
    static let environmentVariable = "SWIFT_IMAGE_CACHE_DECODE_WORKER"

    /// The executable for `isolation`, or why none was found (the places looked at).
    static func locate(for isolation: DecodeIsolation) -> Result<String, ImageDecodingError> {
        let candidates: [String]
        if let explicit = isolation.workerExecutable {
            candidates = [explicit]
        } else if let variable = ProcessInfo.processInfo.environment[environmentVariable], !variable.isEmpty {
            candidates = [variable]
        } else {
            candidates = besideApp.map { [$0] } ?? []
        }
        if let found = candidates.first(where: isExecutableFile) { return .success(found) }
        let looked = candidates.isEmpty ? "no path to look at" : candidates.joined(separator: ", ")
        return .failure(.decoderUnavailable(
            "the decode worker \(name) was not found (looked at \(looked)); build it with `swift build --product \(name)` and ship it beside the app's executable, or set \(environmentVariable) to its path"))
    }

    /// Where `swift build` puts it: beside the app's own executable.
    private static let besideApp: String? = {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        return executable.deletingLastPathComponent().appendingPathComponent(name).path
    }()

    private static func isExecutableFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }
}
#endif
