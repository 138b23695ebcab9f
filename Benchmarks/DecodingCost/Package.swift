// swift-tools-version: 6.1
// What one decode costs the process that asks for it, and the worker processes it may use: the
// figures of Benchmarks/RESULTS.md's hostile-input table (run.sh; `decoding-cost` builds against
// any revision of the root package), and what decoding in worker processes costs a thumbnail
// feed against decoding in-process (`isolation-overhead`). A package of its own, so the root's
// build stays light.
import PackageDescription

let package = Package(
    name: "decoding-cost",
    dependencies: [.package(name: "swift-image-cache", path: "../..")],
    targets: [
        .executableTarget(
            name: "decoding-cost",
            dependencies: [
                .product(name: "ImageDecoding", package: "swift-image-cache"),
                .product(name: "ImageFormats", package: "swift-image-cache"),
            ]
        ),
        .executableTarget(
            name: "isolation-overhead",
            dependencies: [
                .product(name: "ImageDecoding", package: "swift-image-cache"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
