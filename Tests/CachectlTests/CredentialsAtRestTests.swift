import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// Credentials never reach the disk: not a `Set-Cookie` the origin sent, not the `Authorization`
/// or `Cookie` a `Vary` names; so no `cachectl` command can print or export them.
@Suite("credentials at rest")
struct CredentialsAtRestTests {
    static let token = "Bearer tok-9f8e7d6c5b4a-SECRET"
    static let cookie = "session=ck-1a2b3c4d5e6f-SECRET"
    static let authInfo = "nextnonce=nn-77aa88bb-SECRET"
    static let secrets = ["tok-9f8e7d6c5b4a-SECRET", "ck-1a2b3c4d5e6f-SECRET", "nn-77aa88bb-SECRET"]

    static let png = PNGEncoder.encode(width: 4, height: 4) { x, y in (UInt8(x * 60), UInt8(y * 60), 90) }

    @Test("Set-Cookie and a Vary-named Authorization are neither stored nor shown, exported or replayed")
    func nothingSecretAtRest() async throws {
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(
                headers: [
                    HeaderLine("Content-Type", "image/png"), HeaderLine("Cache-Control", "max-age=600"),
                    HeaderLine("Vary", "Authorization, Cookie"), HeaderLine("Set-Cookie", Self.cookie),
                    HeaderLine("Set-Cookie2", Self.cookie), HeaderLine("Authentication-Info", Self.authInfo),
                ],
                body: Self.png)
        }
        defer { Task { await origin.stop() } }
        let cacheFolder = TemporaryDirectory("credentials-at-rest")
        let credentials: HeaderFields = ["Authorization": Self.token, "Cookie": Self.cookie]
        let url = origin.url("/private.png")
        do {
            let store = try PersistentStore(directory: cacheFolder.url)
            defer { store.close() }
            let cache = HTTPCache(configuration: .init(store: store))
            let first = try await cache.response(for: HTTPCacheRequest(url: url, headers: credentials))
            #expect(first.source == .network)
            #expect(first.head.headers["Set-Cookie"] == Self.cookie, "the caller still gets what the origin sent")
            await cache.waitForPendingWrites()
            try await store.flush()
        }
        // A new cache over the reopened store, as in the next run of the app: the same user still hits.
        do {
            let store = try PersistentStore(directory: cacheFolder.url)
            defer { store.close() }
            let cache = HTTPCache(configuration: .init(store: store))
            let again = try await cache.response(for: HTTPCacheRequest(url: url, headers: credentials))
            #expect(again.source == .cache(.disk))
            for name in ["Set-Cookie", "Set-Cookie2", "Authentication-Info"] {
                #expect(again.head.headers[name] == nil, "\(name) was replayed from storage")
            }
            try await store.flush()
        }
        #expect(origin.requests.count == 1)

        let path = ["--path", cacheFolder.url.path]
        let listed = try await Cachectl.run(["list", "--json"] + path)
        let keys = try listed.json([EntryRow].self).map(\.key)
        #expect(keys.count == 1)
        var printed = [listed.output, listed.errors]
        for key in keys {
            for format in [[], ["--json"]] {
                let shown = try await Cachectl.run(["show", key] + format + path)
                #expect(shown.status == 0, "\(shown)")
                printed += [shown.output, shown.errors]
            }
        }
        let export = TemporaryDirectory("credentials-export")
        let exported = try await Cachectl.run(["export", "--to", export.url.path, "--html"] + path)
        #expect(exported.status == 0, "\(exported)")
        printed += [exported.output, exported.errors]
        for text in printed {
            for secret in Self.secrets { #expect(!text.contains(secret), "cachectl printed \(secret):\n\(text)") }
        }
        for (file, bytes) in try Self.files(under: export.url) + Self.files(under: cacheFolder.url) {
            for secret in Self.secrets {
                #expect(!Self.contains(bytes, secret), "\(file.path) holds \(secret)")
            }
        }
        // The manifest carries each stored response as base64: look inside those too.
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: export.url.appendingPathComponent("manifest.json")))
        for row in manifest as? [[String: Any]] ?? [] {
            for case let value as String in row.values {
                guard let decoded = Data(base64Encoded: value) else { continue }
                for secret in Self.secrets { #expect(!Self.contains(decoded, secret), "the manifest's \(value) holds \(secret)") }
            }
        }
    }

    /// Every regular file under `folder` (the store's LMDB and SQLite files and their sidecars, an
    /// export's images and manifest), with its bytes.
    static func files(under folder: URL) throws -> [(URL, Data)] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        var found: [(URL, Data)] = []
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            found.append((url, try Data(contentsOf: url)))
        }
        #expect(!found.isEmpty, "nothing under \(folder.path)")
        return found
    }

    static func contains(_ bytes: Data, _ text: String) -> Bool {
        bytes.range(of: Data(text.utf8)) != nil
    }
}
