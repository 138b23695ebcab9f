import Foundation

/// A fresh folder under the system temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init(_ label: String = "store") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("cachestorage-tests-\(label)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
