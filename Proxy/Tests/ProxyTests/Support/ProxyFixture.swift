import Foundation
import ImageProxy
import LoopbackOrigin

/// A loopback origin, a proxy process in front of it with a cache folder of its own, and the
/// proxy paths for the origin's images: the real parts every proxy test uses.
final class ProxyFixture: Sendable {
    let origin: LoopbackOrigin
    let folder: TemporaryFolder
    let proxy: ProxyProcess

    /// Starts `handler` as the origin and a proxy with `--allow-private-sources` (the origin is on
    /// loopback) and `arguments`.
    init(
        arguments: [String] = [], allowPrivate: Bool = true, cacheFolder: URL? = nil,
        handler: @escaping LoopbackOrigin.Handler
    ) async throws {
        origin = try await LoopbackOrigin.start(handler: handler)
        folder = TemporaryFolder("proxy-cache")
        proxy = try await ProxyProcess(
            cacheFolder: cacheFolder ?? folder.url, arguments: (allowPrivate ? ["--allow-private-sources"] : []) + arguments)
    }

    /// The signed proxy URL for the origin's `path` under `processing`.
    func signed(_ path: String, _ processing: String = "fit:64x64") throws -> URL {
        proxy.url(try ProxyFixtureURLs.signedPath(origin.url(path), processing: processing))
    }

    /// The unsigned proxy URL for the origin's `path`.
    func unsigned(_ path: String, _ processing: String = "fit:64x64") throws -> URL {
        let spec = try ProcessingSpec(parsing: Substring(processing))
        return proxy.url(ProxyRequestPath.path(for: origin.url(path), processing: spec, signer: nil))
    }

    func originHits(_ path: String) -> Int { origin.requests.filter { $0.path == path }.count }

    func stop() async -> Int32 {
        let status = await proxy.stop()
        await origin.stop()
        return status
    }
}

/// Proxy paths signed with the tests' key.
enum ProxyFixtureURLs {
    static func signedPath(_ source: URL, processing: String) throws -> String {
        let spec = try ProcessingSpec(parsing: Substring(processing))
        return ProxyRequestPath.path(for: source, processing: spec, signer: URLSigner(key: Data(ProxyProcess.key.utf8)))
    }
}

/// A real PNG of `width`×`height` with a gradient (opaque, so its thumbnails are JPEG).
func gradientPNG(width: Int, height: Int) -> Data {
    PNGEncoder.encode(width: width, height: height) { x, y in (UInt8(x & 0xFF), UInt8(y & 0xFF), UInt8((x + y) & 0xFF)) }
}

func headers(_ lines: (String, String)...) -> [HeaderLine] {
    lines.map { HeaderLine($0.0, $0.1) }
}
