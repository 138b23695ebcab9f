// Generated from README.md by ReadmeSnippetsTests (README_SNIPPETS_RECORD=1); do not edit.
import CacheStorage
import Foundation
import HTTPCaching
import ImageCache

extension SnippetContext {
    /// README snippet 0.
    func snippet0() async throws {
        let response = try await ImagePipeline.shared.image(for: url)   // memory, then disk, then the network
        show(response.data)
        print(response.source)   // .memory, .disk, .network, .revalidated (304) or .stale
    }

    /// README snippet 1.
    func snippet1() async throws {
        let pipeline = ImagePipeline(configuration: .init(diskCache: try PersistentStore(directory: cacheFolder)))
        let a = try await pipeline.image(for: ImageRequest(url: url, policy: .withViewCycle))     // nothing shared
        let b = try await pipeline.image(for: ImageRequest(url: url, policy: .duringAppSession))  // memory, this process
        let c = try await pipeline.image(for: ImageRequest(url: url, policy: .persistent()))      // memory + disk, HTTP freshness
        print(a.source, b.source, c.source)   // .memory, .disk, .network, .revalidated (304) or .stale
    }

    /// README snippet 2.
    func snippet2() async throws {
        let thumbnail = try await ImagePipeline.shared.image(
            for: ImageRequest(url: url, processing: .thumbnail(maxPixelSize: 256)))
        print(thumbnail.decoded?.pixelWidth ?? 0, thumbnail.decoded?.cost ?? 0)   // ≤ 256, bytes of pixels
    }

    /// README snippet 3.
    func snippet3() async throws {
        let store = try PersistentStore(directory: cacheFolder)
        try await store.put(NewEntry(key: key, data: bytes, attributes: EntryAttributes(etag: etag, format: "png")))
        if let hit = try store.get(key) { show(hit.data) }   // LMDB only, ~7 µs for 93 KB
    }

    /// README snippet 4.
    func snippet4() async throws {
        let cache = HTTPCache(configuration: .init(store: try PersistentStore(directory: folder)))
        let response = try await cache.response(for: HTTPCacheRequest(url: url))
        print(response.head.status, response.source)   // network, cache(.disk), revalidated, stale …
    }
}

enum ReadmeSnippets {
    static let all: [ReadmeSnippet] = [
        ReadmeSnippet(usesSharedPipeline: true, shows: true) { try await $0.snippet0() },
        ReadmeSnippet(usesSharedPipeline: false, shows: false) { try await $0.snippet1() },
        ReadmeSnippet(usesSharedPipeline: true, shows: false) { try await $0.snippet2() },
        ReadmeSnippet(usesSharedPipeline: false, shows: true) { try await $0.snippet3() },
        ReadmeSnippet(usesSharedPipeline: false, shows: false) { try await $0.snippet4() },
    ]
}
