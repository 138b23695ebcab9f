import Foundation
import Synchronization

/// What the README's snippets take as given: the names they use without declaring them.
///
/// Each snippet becomes a method of this type (``ReadmeSnippets.swift``, generated), so those
/// names resolve to these members, and each snippet runs against a real origin and its own folder.
struct SnippetContext: Sendable {
    /// An image on a loopback origin, cacheable for an hour.
    let url: URL
    /// A new, empty folder for the snippet's cache (both names appear in the README).
    let cacheFolder: URL
    var folder: URL { cacheFolder }
    /// A key, bytes and an ETag for the storage snippet.
    let key = "https://images.example.com/readme/1.png"
    let bytes: Data
    let etag = "\"readme-1\""
    /// What the snippet showed: each call of `show` adds its bytes.
    let shown: ShownImages

    func show(_ data: Data) { shown.add(data) }
}

/// The images a snippet showed, in order (snippets may show from any task).
final class ShownImages: Sendable {
    private let list = Mutex<[Data]>([])

    func add(_ data: Data) { list.withLock { $0.append(data) } }

    var all: [Data] { list.withLock { $0 } }
}
