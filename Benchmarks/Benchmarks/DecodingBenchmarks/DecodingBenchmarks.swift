import Benchmark
import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import Synchronization

// Decoding, each beside its same-run baseline:
// - thumbnails (at most 256 px) of every still JPEG, PNG and WebP of ../shared/corpus/real, and of
//   four generated 4000 × 3000 photos, two images at once: the platform decoder against
//   `vipsthumbnail`, ImageMagick's `mogrify -thumbnail` (one process for many files) and its
//   `convert -thumbnail` (one process per file) on the same files (install them with
//   `apt-get install libvips-tools imagemagick`; they are needed by these benchmarks only);
// - peak memory for a 256 px thumbnail of a generated 8000 × 8000 JPEG;
// - a decoded memory hit through `image(for:)`;
// - a thumbnail served from its disk variant against a raw store get of the variant plus its decode.

let benchmarks: @Sendable () -> Void = {
    Benchmark.setup = { if DecodingFixture.current == nil { try await DecodingFixture.make() } }
    Benchmark.teardown = {
        await DecodingFixture.current?.remove()
        DecodingFixture.current = nil
    }
    let perSet = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 5)
    let perDecode = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal], warmupIterations: 10, maxDuration: .seconds(3), maxIterations: 2_000)
    let perOperation = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal], warmupIterations: 3, scalingFactor: .kilo,
        maxDuration: .seconds(3), maxIterations: 1_000)

    // One iteration: every file of a set, thumbnailed, by each program in turn.
    for (name, set) in [("corpus (96 files)", \DecodingFixture.corpus), ("photos (4 of 4000x3000)", \DecodingFixture.photos)] {
        Benchmark("thumbnails, \(name), platform decoder, 2 at once", configuration: perSet) { _ in
            try thumbnails(of: DecodingFixture.shared[keyPath: set].contents, side: 256)
        }
        Benchmark("thumbnails, \(name), vipsthumbnail, 2 processes", configuration: perSet) { _ in
            try ExternalThumbnailer.vipsthumbnail.run(DecodingFixture.shared[keyPath: set].files, side: 256, processes: 2)
        }
        Benchmark("thumbnails, \(name), ImageMagick mogrify -thumbnail, 2 processes", configuration: perSet) { _ in
            try ExternalThumbnailer.imageMagick.run(DecodingFixture.shared[keyPath: set].files, side: 256, processes: 2)
        }
        Benchmark("thumbnails, \(name), ImageMagick convert -thumbnail per file, 2 at once", configuration: perSet) { _ in
            try ExternalThumbnailer.imageMagickPerFile.run(DecodingFixture.shared[keyPath: set].files, side: 256, processes: 2)
        }
    }

    Benchmark(
        "8000x8000 JPEG to a 256 px thumbnail",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResidentDelta], warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 5)
    ) { _ in
        let bytes = DecodingFixture.shared.largePhoto
        blackHole(try PlatformImageDecoder().decode(bytes, processing: .thumbnail(maxPixelSize: 256), maxPixelCount: 100_000_000))
    }

    Benchmark("decoded memory hit through image(for:)", configuration: perOperation) { benchmark in
        let fixture = DecodingFixture.shared
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.pipeline.image(for: fixture.memoryThumbnail))
        }
    }

    Benchmark("thumbnail from its disk variant, through the pipeline", configuration: perDecode) { benchmark in
        let fixture = DecodingFixture.shared
        for index in benchmark.scaledIterations {
            let response = try await fixture.diskOnlyPipeline.image(for: fixture.variantRequests[index % fixture.variantRequests.count])
            guard response.source == .disk else { throw DecodingFixture.Failure.wrongSource(response.source) }
            blackHole(response)
        }
    }

    Benchmark("baseline: raw store get of the variant, then its decode", configuration: perDecode) { benchmark in
        let fixture = DecodingFixture.shared
        let decoder = PlatformImageDecoder()
        for index in benchmark.scaledIterations {
            guard let entry = try fixture.store.get(fixture.variantKeys[index % fixture.variantKeys.count]) else {
                throw DecodingFixture.Failure.miss
            }
            blackHole(try decoder.decode(entry.data, processing: .original, maxPixelCount: 100_000_000))
        }
    }
}

/// Thumbnails of every image in `contents`, two decoding at once (one thread each), as a
/// pipeline decodes a feed.
func thumbnails(of contents: [Data], side: Int) throws {
    let next = Mutex(0)
    let failures = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: 2) { _ in
        let decoder = PlatformImageDecoder()
        while true {
            let index = next.withLock { index in
                defer { index += 1 }
                return index
            }
            guard index < contents.count else { return }
            do {
                blackHole(try decoder.decode(contents[index], processing: .thumbnail(maxPixelSize: side), maxPixelCount: 100_000_000))
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
    }
    if failures.withLock({ $0 }) > 0 { throw DecodingFixture.Failure.decodeFailed }
}
