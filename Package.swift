// swift-tools-version: 6.1
import PackageDescription

// LMDB: Debian's library on Linux (liblmdb-dev, through the CLMDB system-library target). Apple
// platforms have no system LMDB (iOS none at all), so on a Darwin host the package takes it from
// a Swift package that builds LMDB's C source, whose module is also named CLMDB: the same
// `import CLMDB` compiles against either. Written for Apple platforms, not compiled by this
// project's CI, which runs on Linux; a Linux build never resolves that package.
#if canImport(Darwin)
let lmdb: Target.Dependency = .product(name: "CLMDB", package: "CLMDB")
let lmdbPackages: [Package.Dependency] = [.package(url: "https://github.com/tannerdsilva/CLMDB", from: "0.9.31")]
let lmdbTargets: [Target] = []
#else
let lmdb: Target.Dependency = "CLMDB"
let lmdbPackages: [Package.Dependency] = []
let lmdbTargets: [Target] = [
    .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])])
]
#endif

let package = Package(
    name: "swift-image-cache",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "CacheStorage", targets: ["CacheStorage"]),
        .library(name: "ImageCache", targets: ["ImageCache"]),
        .library(name: "ImageFormats", targets: ["ImageFormats"]),
        .library(name: "HTTPCaching", targets: ["HTTPCaching"]),
        .library(name: "ImageDecoding", targets: ["ImageDecoding"]),
        // A scriptable HTTP/1.1 origin on 127.0.0.1, for tests and benchmarks of code that fetches.
        .library(name: "LoopbackOrigin", targets: ["LoopbackOrigin"]),
        // The http-tests/cache-tests replay, for packages that score a transport of their own (Proxy/).
        .library(name: "CacheConformance", targets: ["CacheConformance"]),
        .executable(name: "cachectl", targets: ["cachectl"]),
        .executable(name: "imagecache-demo", targets: ["imagecache-demo"]),
        .executable(name: "http-cache-conformance", targets: ["http-cache-conformance"]),
        // Where untrusted images are decoded on Linux (ImageDecoding's DecodeIsolation): ship it
        // beside the app's executable.
        .executable(name: "imagecache-decode-worker", targets: ["imagecache-decode-worker"]),
        .executable(name: "fuzz-image-validator", targets: ["fuzz-image-validator"]),
        .executable(name: "fuzz-image-decoder", targets: ["fuzz-image-decoder"]),
        .executable(name: "fuzz-http-headers", targets: ["fuzz-http-headers"]),
        .executable(name: "fuzz-entry-record", targets: ["fuzz-entry-record"]),
        .executable(name: "fuzz-manifest", targets: ["fuzz-manifest"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `swift package generate-documentation` (tools/docs) for the DocC catalogs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ] + lmdbPackages,
    targets: [
        // The system C libraries, wrapped once each (CLMDB → BlobStore, CSQLite → MetadataIndex;
        // CLMDB is declared above, by platform).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // libvips, for decoding on Linux (CVips → VipsDecoder); Apple platforms use ImageIO.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        // libjpeg-turbo, for encoding thumbnails as JPEG on Linux without libvips' setup per image
        // (CJPEG's shim lands libjpeg's error exit in our own C).
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]
        ),
        // LMDB's calls with a landing for the faults a damaged page makes LMDB take (our own C).
        .target(name: "CLMDBGuard", dependencies: [lmdb]),
        .target(
            name: "CacheStorage",
            dependencies: [
                lmdb, "CLMDBGuard", "CSQLite",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The export folder's manifest.json: written by `cachectl export`, read back by `import`.
        .target(name: "CacheArchive", dependencies: ["CacheStorage"]),
        .executableTarget(
            name: "cachectl",
            dependencies: [
                // CLMDB and CLMDBGuard for the bench's raw-LMDB baseline only.
                "CacheStorage", "ImageCache", "HTTPCaching", "ImageFormats", "ImageDecoding", "CacheArchive", lmdb, "CLMDBGuard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The README's first command: a feed from a loopback origin under each policy, twice.
        .executableTarget(
            name: "imagecache-demo",
            dependencies: ["ImageCache", "CacheStorage", "LoopbackOrigin"]
        ),
        // A child process the crash and multi-process tests start, kill and watch.
        .executableTarget(
            name: "storage-worker",
            dependencies: ["CacheStorage", "TestSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tests/Fixtures/StorageWorker"
        ),
        // What an image is, from its bytes alone: format sniffing, header sizes, structure walks,
        // the validator that refuses what is not an image. Knows nothing about HTTP or storage.
        .target(name: "ImageFormats"),
        // Bytes to pixels: the decoded image, the decoder seam, libvips on Linux and ImageIO on
        // Apple platforms, thumbnails shrunk while they load. Knows nothing about HTTP or storage.
        .target(
            name: "ImageDecoding",
            dependencies: [
                "ImageFormats",
                .target(name: "CVips", condition: .when(platforms: [.linux])),
                .target(name: "CJPEG", condition: .when(platforms: [.linux])),
                .target(name: "CLinuxSpawn", condition: .when(platforms: [.linux])),
            ]
        ),
        // glibc's posix_spawn extension that closes inherited descriptors, for starting decode workers.
        .systemLibrary(name: "CLinuxSpawn"),
        // A decode worker process: what ImageDecoding starts to decode untrusted bytes on Linux, so
        // that a fault in a decoding library ends the worker, not the app.
        .executableTarget(name: "imagecache-decode-worker", dependencies: ["ImageDecoding"]),
        // A private HTTP cache (RFC 9111) for any response: the rule book, the engine over a
        // PersistentStore and a memory tier, the transport seam and its URLSession transport.
        // Knows nothing about images.
        .target(
            name: "HTTPCaching",
            dependencies: [
                "CacheStorage",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The image pipeline on top: policies, the memory tier of validated images, loading,
        // the load state for UI.
        .target(
            name: "ImageCache",
            dependencies: [
                "ImageDecoding",
                "CacheStorage", "ImageFormats", "HTTPCaching",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A real HTTP/1.1 origin on 127.0.0.1 with full control of every header: for the tests,
        // the conformance harness and the demo.
        .target(
            name: "LoopbackOrigin",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The http-tests/cache-tests replay against HTTPCache over a real origin: the cases, the
        // origin's rules, a header-faithful NIO client, the checks and the score. Shared by the
        // executable and its floor test.
        .target(
            name: "CacheConformance",
            dependencies: [
                "HTTPCaching", "CacheStorage", "LoopbackOrigin",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "http-cache-conformance",
            dependencies: [
                "CacheConformance", "HTTPCaching",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libFuzzer targets (tools/fuzz builds them with the fuzzer and address sanitizers; an
        // ordinary build makes small executables that do nothing).
        .executableTarget(name: "fuzz-image-validator", dependencies: ["ImageFormats"], path: "Sources/Fuzz/ImageValidatorFuzz"),
        .executableTarget(name: "fuzz-image-decoder", dependencies: ["ImageDecoding", "ImageFormats"], path: "Sources/Fuzz/ImageDecoderFuzz"),
        .executableTarget(name: "fuzz-http-headers", dependencies: ["HTTPCaching"], path: "Sources/Fuzz/HTTPHeadersFuzz"),
        .executableTarget(name: "fuzz-entry-record", dependencies: ["CacheStorage"], path: "Sources/Fuzz/EntryRecordFuzz"),
        .executableTarget(name: "fuzz-manifest", dependencies: ["CacheArchive"], path: "Sources/Fuzz/ManifestFuzz"),
        // Helpers every test target shares: temporary folders, the ../shared corpus.
        .target(name: "TestSupport", dependencies: ["CacheStorage", "ImageFormats"], path: "Tests/TestSupport"),
        .testTarget(
            name: "CacheStorageTests",
            dependencies: ["CacheStorage", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // Runs the built cachectl as a real process against real stores.
        .testTarget(
            name: "CachectlTests",
            dependencies: ["CacheStorage", "ImageCache", "TestSupport", "LoopbackOrigin"]
        ),
        .testTarget(
            name: "ImageCacheTests",
            dependencies: ["ImageCache", "HTTPCaching", "ImageDecoding", "ImageFormats", "TestSupport", "LoopbackOrigin", "CacheConformance"]
        ),
        .testTarget(
            name: "ImageDecodingTests",
            dependencies: ["ImageDecoding", "ImageFormats", "TestSupport", "LoopbackOrigin"]
        ),
        // Every Swift snippet of the README, compiled and run (see ReadmeSnippetsTests).
        .testTarget(
            name: "ReadmeTests",
            dependencies: ["ImageCache", "CacheStorage", "HTTPCaching", "TestSupport", "LoopbackOrigin"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
package.targets += lmdbTargets

// SwiftUI's `CachedAsyncImage`, declared only where SwiftUI exists (Apple platforms): this
// project's CI, on Linux, does not build it. Its decisions live in ImageCache's `AsyncImageModel`,
// which is built and tested everywhere.
#if canImport(Darwin)
package.products.append(.library(name: "CachedAsyncImage", targets: ["CachedAsyncImage"]))
package.targets.append(.target(name: "CachedAsyncImage", dependencies: ["ImageCache"]))
#endif
