import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin

/// Times network loads of distinct images from a loopback origin, one after another, through a
/// pipeline in one of three set-ups, and prints one JSON line: the median and p99 per load.
///
///     write-behind-latency MODE STORE_FOLDER [LOADS] [periodic|each-commit]
///
/// - `no-disk`: no disk cache at all; what a load costs without storage.
/// - `write-behind`: a disk cache in STORE_FOLDER; loads return before their writes commit.
/// - `wait-for-commit`: the same, each load followed by `waitForPendingWrites()`, timed together:
///   what a load cost when it waited for its own commit.
///
/// The store syncs as `StoreConfiguration.durability` says: periodically (the default), or on
/// each commit, where a slow disk's syncs land on every commit.
///
/// Run it with the disk under STORE_FOLDER made slow (run.sh keeps a write-back storm going on
/// the same file system): the set-ups are compared in the same run, under the same storm.
@main
struct WriteBehindLatency {
    enum Mode: String {
        case noDisk = "no-disk"
        case writeBehind = "write-behind"
        case waitForCommit = "wait-for-commit"
    }

    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3, let mode = Mode(rawValue: arguments[1]) else {
            FileHandle.standardError.write(
                Data(
                    "usage: write-behind-latency no-disk|write-behind|wait-for-commit STORE_FOLDER [LOADS] [periodic|each-commit]\n"
                        .utf8))
            exit(2)
        }
        let folder = URL(fileURLWithPath: arguments[2], isDirectory: true)
        let loads = arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200
        let eachCommit = arguments.count > 4 && arguments[4] == "each-commit"
        var storeConfiguration = StoreConfiguration()
        if eachCommit { storeConfiguration.durability = .eachCommit }

        // About 100 KB each (PNG's stored deflate blocks do not compress), distinct per seed.
        let images = (0..<16).map { seed in
            var state = UInt64(seed + 1) &* 0x9E37_79B9_7F4A_7C15
            return PNGEncoder.encode(width: 180, height: 180) { _, _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return (UInt8(truncatingIfNeeded: state >> 56), UInt8(truncatingIfNeeded: state >> 48), 90)
            }
        }
        let origin = try await LoopbackOrigin.start { request in
            let index = Int(request.path.split(separator: "/").last?.split(separator: ".").first ?? "") ?? 0
            return OriginResponse(
                headers: [
                    HeaderLine("Date", OriginResponse.httpDate(Date())), HeaderLine("Cache-Control", "max-age=3600"),
                    HeaderLine("ETag", "\"\(index)\""), HeaderLine("Content-Type", "image/png"),
                ],
                body: images[index % images.count])
        }

        let store = mode == .noDisk ? nil : try PersistentStore(directory: folder, configuration: storeConfiguration)
        let pipeline = ImagePipeline(configuration: .init(diskCache: store))
        let run = UUID().uuidString.prefix(8)
        // Warm the connection and the code paths; not timed.
        for index in 0..<5 { _ = try await pipeline.image(for: ImageRequest(url: origin.url("/warm-\(run)/\(index).png"))) }
        await pipeline.waitForPendingWrites()

        var milliseconds: [Double] = []
        milliseconds.reserveCapacity(loads)
        for index in 0..<loads {
            let request = ImageRequest(url: origin.url("/\(run)/\(index).png"))
            let start = ContinuousClock.now
            let response = try await pipeline.image(for: request)
            if mode == .waitForCommit { await pipeline.waitForPendingWrites() }
            let elapsed = ContinuousClock.now - start
            guard response.source == .network else { fatalError("load \(index) came from \(response.source)") }
            milliseconds.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        let drainStart = ContinuousClock.now
        await pipeline.waitForPendingWrites()
        let drain = ContinuousClock.now - drainStart
        await origin.stop()
        store?.close()

        milliseconds.sort()
        func percentile(_ p: Double) -> Double { milliseconds[min(milliseconds.count - 1, Int(Double(milliseconds.count) * p))] }
        let statistics = pipeline.writeBehindStatistics
        let line: [String: Any] = [
            "mode": mode.rawValue, "loads": loads, "durability": eachCommit ? "each-commit" : "periodic",
            "medianMs": (percentile(0.5) * 1000).rounded() / 1000, "p99Ms": (percentile(0.99) * 1000).rounded() / 1000,
            "maxMs": ((milliseconds.last ?? 0) * 1000).rounded() / 1000,
            "committed": statistics.committed, "dropped": pipeline.storageFailures.queueFull,
            "storageFailures": pipeline.storageFailures.total,
            "drainAfterMs": (Double(drain.components.attoseconds) / 1e15 + Double(drain.components.seconds) * 1000).rounded(),
        ]
        let json = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
        print(String(decoding: json, as: UTF8.self))
    }
}
