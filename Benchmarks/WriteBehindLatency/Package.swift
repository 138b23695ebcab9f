// swift-tools-version: 6.1
// What a network load costs with a disk cache on a slow disk, against the same load with no disk
// cache: the write-behind table of Benchmarks/RESULTS.md (run.sh). A package of its own, so the
// root's build stays light.
import PackageDescription

let package = Package(
    name: "write-behind-latency",
    dependencies: [.package(name: "swift-image-cache", path: "../..")],
    targets: [
        .executableTarget(
            name: "write-behind-latency",
            dependencies: [
                .product(name: "CacheStorage", package: "swift-image-cache"),
                .product(name: "ImageCache", package: "swift-image-cache"),
                .product(name: "LoopbackOrigin", package: "swift-image-cache"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
