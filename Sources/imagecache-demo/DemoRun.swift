import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin

/// One run of the demo in this process: an origin, a pipeline, and the feed loaded twice (scrolled
/// down and back up) under each policy.
struct DemoRun {
    let run: Int
    let cacheFolder: URL
    let epoch: Date

    /// What one policy's loads cost in one run.
    struct Row {
        var policy = ""
        var loads = 0
        var originRequests = 0
        var originBytes = 0
        var sources: [ImageSource: Int] = [:]
        var latenciesMilliseconds: [Double] = []
    }

    func perform() async throws -> [Row] {
        let epoch = epoch
        let origin = try await LoopbackOrigin.start { request in
            let response = DemoFeed.respond(to: request, epoch: epoch)
            return response
        }
        defer { Task { await origin.stop() } }
        let store = try PersistentStore(directory: cacheFolder)
        defer { store.close() }
        var configuration = ImagePipeline.Configuration(diskCache: store)
        // Each run's origin listens on a new port; key by path so the second run finds the first
        // run's entries, as a real app's stable URLs would (and as a signed-URL token is dropped).
        configuration.cacheKey = { url in "demo-feed:" + url.path }
        let pipeline = ImagePipeline(configuration: configuration)
        let policies: [(name: String, paths: [String], policy: CachePolicy, processing: ImageProcessing?)] = [
            ("withViewCycle", DemoFeed.paths(prefix: "viewcycle"), .withViewCycle, nil),
            ("duringAppSession", DemoFeed.paths(prefix: "session"), .duringAppSession, nil),
            ("persistent", DemoFeed.paths(prefix: "persistent"), .persistent(), nil),
            // 1200 × 800 photos shown as 160 px thumbnails: the second run shows them from the
            // thumbnails stored on disk, without the originals' bytes or the network.
            ("persistent, 160px", DemoFeed.photoPaths(), .persistent(), .thumbnail(maxPixelSize: 160)),
        ]
        var rows: [Row] = []
        for (name, paths, policy, processing) in policies {
            var row = Row(policy: name)
            let before = origin.requests.count
            for _ in 0..<2 {
                for path in paths {
                    let start = ContinuousClock.now
                    var request = ImageRequest(url: origin.url(path), policy: policy)
                    request.processing = processing
                    let response = try await pipeline.image(for: request)
                    row.latenciesMilliseconds.append((ContinuousClock.now - start).seconds * 1000)
                    row.sources[response.source, default: 0] += 1
                    row.loads += 1
                }
            }
            let requests = origin.requests.dropFirst(before)
            row.originRequests = requests.count
            row.originBytes = requests.reduce(0) { total, request in
                total + DemoFeed.respond(to: request, epoch: epoch).body.count
            }
            rows.append(row)
        }
        // The store closes on return: what the loads left waiting for the disk goes in first,
        // so the next launch finds it.
        await pipeline.waitForPendingWrites()
        return rows
    }
}

