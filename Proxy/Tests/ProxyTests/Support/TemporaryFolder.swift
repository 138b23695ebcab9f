import Foundation

/// A folder under the system's temporary directory, removed when the value goes.
final class TemporaryFolder: Sendable {
    let url: URL

    init(_ label: String) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
