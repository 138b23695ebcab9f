import CacheStorage
import Foundation
import ImageCache

/// `imagecache-demo`: loads a simulated feed from a loopback origin under each caching policy,
/// then again in a new process, and prints what reached the origin and where each image came from.
///
/// Run with no arguments. It starts itself twice (`--run 1|2 --cache DIR --epoch SECONDS`): the
/// second process finds the first one's disk cache, serves fresh images from disk and revalidates
/// stale ones with 304s. Needs nothing but itself: the images are generated PNGs.
@main
struct Demo {
    static func main() async {
        let arguments = CommandLine.arguments
        do {
            if let index = arguments.firstIndex(of: "--run"), index + 1 < arguments.count {
                try await child(run: Int(arguments[index + 1]) ?? 1, arguments: arguments)
            } else {
                try parent()
            }
        } catch {
            FileHandle.standardError.write(Data("imagecache-demo: \(error)\n".utf8))
            exit(1)
        }
    }

    static func value(_ flag: String, in arguments: [String]) -> String? {
        arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }

    static func child(run: Int, arguments: [String]) async throws {
        guard let cache = value("--cache", in: arguments), let epoch = value("--epoch", in: arguments).flatMap(Double.init)
        else { throw DemoError.usage }
        let rows = try await DemoRun(
            run: run, cacheFolder: URL(fileURLWithPath: cache), epoch: Date(timeIntervalSince1970: epoch)
        ).perform()
        say(rows.map { DemoTable.line(run: run, row: $0) }.joined(separator: "\n"))
    }

    static func parent() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("imagecache-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let epoch = String(Date().timeIntervalSince1970)
        let feed = DemoFeed.paths(prefix: "x").count
        say("""
            swift-image-cache demo: a feed of \(feed) generated PNGs (\(DemoFeed.imagesPerStyle) each served with \
            \(DemoFeed.Style.allCases.map { $0.rawValue }.joined(separator: ", "))),
            scrolled down and back up (\(feed * 2) loads) under each policy, then \(DemoFeed.photoCount) 1200×800 JPEG photos \
            shown as 160 px thumbnails, in two processes 1.5 s apart.
            Cache folder: \(cache.path)

            """)
        say(DemoTable.header)
        for run in 1...2 {
            if run == 2 { Thread.sleep(forTimeInterval: 1.5) }
            let process = Process()
            process.executableURL = Platform.executableURL
            process.arguments = ["--run", String(run), "--cache", cache.path, "--epoch", epoch]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw DemoError.childFailed(run) }
        }
        say("""

            memory/disk: fresh hits; revalidated: the origin answered 304 and the bytes came from disk;
            network: fetched (no-store is fetched every time, and withViewCycle never shares what it loads).
            persistent, 160px: run 1 fetches the photos and stores each thumbnail on disk (JPEG) beside its original;
            run 2 shows them from those thumbnails (disk), reading neither the originals' bytes nor the network.
            """)
    }

    /// Writes a line to standard output at once, so the parent's and children's lines interleave in order.
    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    enum DemoError: Error, CustomStringConvertible {
        case usage
        case childFailed(Int)

        var description: String {
            switch self {
            case .usage: "usage: imagecache-demo (the --run form is internal)"
            case let .childFailed(run): "run \(run) failed; see the error above"
            }
        }
    }
}
