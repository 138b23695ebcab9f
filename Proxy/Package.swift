// swift-tools-version: 6.1
// The image proxy and the server-side libraries (an AsyncHTTPClient transport, swift-metrics,
// a swift-service-lifecycle service), kept in their own package so that the root package's build
// and tests do not pull in Hummingbird, AsyncHTTPClient or swift-crypto. Run from this folder:
//
//     swift run imagecache-proxy --help
import PackageDescription

let package = Package(
    name: "swift-image-cache-proxy",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AsyncHTTPClientTransport", targets: ["AsyncHTTPClientTransport"]),
        .library(name: "ImageCacheMetrics", targets: ["ImageCacheMetrics"]),
        .library(name: "ImageCacheService", targets: ["ImageCacheService"]),
        .executable(name: "imagecache-proxy", targets: ["imagecache-proxy"]),
    ],
    dependencies: [
        .package(name: "swift-image-cache", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // `swift package generate-documentation` for ImageProxy's catalog (tools/docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // HTTPCaching's transport seam over AsyncHTTPClient: the server ecosystem's HTTP client.
        .target(
            name: "AsyncHTTPClientTransport",
            dependencies: [
                .product(name: "HTTPCaching", package: "swift-image-cache"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        // What the pipeline's and the store's statistics know, reported through swift-metrics.
        .target(
            name: "ImageCacheMetrics",
            dependencies: [
                .product(name: "ImageCache", package: "swift-image-cache"),
                .product(name: "CacheStorage", package: "swift-image-cache"),
                .product(name: "HTTPCaching", package: "swift-image-cache"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The pipeline and its store as a swift-service-lifecycle service: flushed and closed on shutdown.
        .target(
            name: "ImageCacheService",
            dependencies: [
                .product(name: "ImageCache", package: "swift-image-cache"),
                .product(name: "CacheStorage", package: "swift-image-cache"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The proxy's parts: URL grammar and signatures, source policy, admission, the HTTP routes.
        .target(
            name: "ImageProxy",
            dependencies: [
                "AsyncHTTPClientTransport", "ImageCacheMetrics", "ImageCacheService",
                .product(name: "ImageCache", package: "swift-image-cache"),
                .product(name: "ImageDecoding", package: "swift-image-cache"),
                .product(name: "ImageFormats", package: "swift-image-cache"),
                .product(name: "CacheStorage", package: "swift-image-cache"),
                .product(name: "HTTPCaching", package: "swift-image-cache"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // glibc's allocator settings, for the executable's process.
        .systemLibrary(name: "CMalloc"),
        // The decode worker is a dependency so that `swift build` puts it beside imagecache-proxy,
        // where ImageDecoding looks for it.
        .executableTarget(
            name: "imagecache-proxy",
            dependencies: [
                .product(name: "imagecache-decode-worker", package: "swift-image-cache"),
                "ImageProxy", "AsyncHTTPClientTransport", "ImageCacheMetrics", "ImageCacheService",
                .product(name: "ImageCache", package: "swift-image-cache"),
                .product(name: "CacheStorage", package: "swift-image-cache"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
            ]
        ),
        // The conformance replay through AsyncHTTPClientTransport (the root's http-cache-conformance
        // scores the NIO client and URLSession).
        .executableTarget(
            name: "http-cache-conformance-ahc",
            dependencies: [
                "AsyncHTTPClientTransport",
                .product(name: "CacheConformance", package: "swift-image-cache"),
            ]
        ),
        .testTarget(
            name: "ProxyTests",
            dependencies: [
                "ImageProxy", "AsyncHTTPClientTransport",
                // Built beside the test binary for the test that runs it on a live proxy's cache.
                .product(name: "cachectl", package: "swift-image-cache"),
                .product(name: "ImageCache", package: "swift-image-cache"),
                .product(name: "CacheStorage", package: "swift-image-cache"),
                .product(name: "HTTPCaching", package: "swift-image-cache"),
                .product(name: "LoopbackOrigin", package: "swift-image-cache"),
                .product(name: "ImageFormats", package: "swift-image-cache"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
