// swift-tools-version: 6.1
// Benchmarks for the CacheStorage library, kept in their own package so that the root package
// does not depend on ordo-one/benchmark. Run from this folder:
//
//     swift package --allow-writing-to-package-directory benchmark
import PackageDescription

let package = Package(
    name: "swift-image-cache-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "swift-image-cache", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "StorageBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CacheStorage", package: "swift-image-cache"),
            ],
            path: "Benchmarks/StorageBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "PipelineBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CacheStorage", package: "swift-image-cache"),
                .product(name: "ImageCache", package: "swift-image-cache"),
                .product(name: "LoopbackOrigin", package: "swift-image-cache"),
            ],
            path: "Benchmarks/PipelineBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "DecodingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CacheStorage", package: "swift-image-cache"),
                .product(name: "ImageCache", package: "swift-image-cache"),
                .product(name: "LoopbackOrigin", package: "swift-image-cache"),
            ],
            path: "Benchmarks/DecodingBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
