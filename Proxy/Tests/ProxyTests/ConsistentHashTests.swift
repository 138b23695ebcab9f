import Foundation
import LoopbackOrigin
import Testing

/// The example configuration `examples/consistent-hash.nginx.conf`, started on loopback with two
/// proxy processes behind it: the same URL always lands on the same proxy, and so is fetched
/// from the source once.
///
/// Needs nginx; skipped with a notice without it, unless `PROXY_TESTS_REQUIRE_NGINX=1` (CI, which
/// installs it) makes that a failure.
@Suite("imagecache-proxy behind a consistent-hash load balancer", .enabled(if: NginxAvailability.isAvailable))
struct ConsistentHashTests {
    static let image = gradientPNG(width: 200, height: 150)

    @Test("the same URL lands on the same proxy every time, and both proxies get a share", .timeLimit(.minutes(1)))
    func sameURLSameProxy() async throws {
        let nginx = try #require(NginxAvailability.executable, "nginx is required here (PROXY_TESTS_REQUIRE_NGINX=1)")
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: headers(("Content-Type", "image/png"), ("Cache-Control", "max-age=600")), body: Self.image)
        }
        let folderA = TemporaryFolder("proxy-a")
        let folderB = TemporaryFolder("proxy-b")
        let proxyA = try await ProxyProcess(cacheFolder: folderA.url, arguments: ["--allow-private-sources"])
        let proxyB = try await ProxyProcess(cacheFolder: folderB.url, arguments: ["--allow-private-sources"])
        let balancer = try await NginxProcess(executable: nginx, upstreams: [proxyA.port, proxyB.port])

        let paths = try (0..<20).map { index in
            try ProxyFixtureURLs.signedPath(origin.url("/photo-\(index).png"), processing: "fit:64x64")
        }
        var landed: [String: String] = [:]
        for round in 0..<3 {
            for path in paths {
                let response = try await HTTPGet.get(balancer.url(path))
                #expect(response.status == 200)
                let upstream = try #require(response.header("X-Image-Proxy"))
                if round == 0 { landed[path] = upstream } else { #expect(landed[path] == upstream, "\(path)") }
            }
        }
        #expect(Set(landed.values).count == 2, "every URL went to one proxy: \(Set(landed.values))")
        // Each image was fetched from the source once, by the proxy its URL belongs to.
        for index in 0..<20 {
            #expect(origin.requests.filter { $0.path == "/photo-\(index).png" }.count == 1)
        }
        await balancer.stop()
        #expect(await proxyA.stop() == 0)
        #expect(await proxyB.stop() == 0)
        await origin.stop()
    }
}

/// Where nginx is, and whether the test that needs it runs.
enum NginxAvailability {
    static let executable = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static var isAvailable: Bool {
        if executable != nil { return true }
        let required = ProcessInfo.processInfo.environment["PROXY_TESTS_REQUIRE_NGINX"] == "1"
        if !required { print("notice: nginx is not installed; skipping the consistent-hash example's test") }
        return required
    }
}
