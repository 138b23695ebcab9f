import Foundation

/// A fresh folder under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    /// The folder.
    public let url: URL

    /// Creates the folder; `label` makes it recognisable in the temporary directory.
    public init(_ label: String = "store") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("cachestorage-tests-\(label)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
