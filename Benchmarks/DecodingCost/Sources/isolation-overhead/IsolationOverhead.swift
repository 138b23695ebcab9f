import Dispatch
import Foundation
import ImageDecoding
import Synchronization

/// `isolation-overhead CORPUS-MANIFEST [RUNS]`: thumbnails (256 px) of a feed, two decoding at
/// once as a pipeline decodes, in the app's process and in decode worker processes, alternating
/// A B B A … so that both orders are run equally; then one 256-pixel thumbnail of a 1600 × 1200
/// photo, decoded serially many times each way, for the per-decode overhead. Prints a table of
/// medians and the ratios.
///
/// The feed: every still JPEG, PNG and WebP the manifest lists under `real/`, and four generated
/// 4000 × 3000 photos.
@main
enum IsolationOverhead {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else {
            print("usage: isolation-overhead CORPUS-MANIFEST [PAIRS]")
            exit(64)
        }
        let pairs = arguments.count > 2 ? Int(arguments[2]) ?? 6 : 6
        let corpus = try corpusFiles(manifest: URL(fileURLWithPath: arguments[1]))
        let photos = try (0..<4).map { try photo(width: 4000, height: 3000, seed: $0) }
        let small = try photo(width: 1600, height: 1200, seed: 9)
        let inProcess = PlatformImageDecoder(isolation: .inProcess)
        let isolated = PlatformImageDecoder(isolation: .workerProcesses)
        // Workers started and libvips loaded before anything is timed.
        _ = try thumbnails(of: [small, small], with: isolated)
        _ = try thumbnails(of: [small], with: inProcess)

        print("set | in-process median s | workers median s | workers ÷ in-process (median of pairs) | per pair")
        for (name, files) in [("corpus (\(corpus.count) files)", corpus), ("photos (4 of 4000x3000)", photos)] {
            var a: [Double] = []
            var b: [Double] = []
            var ratios: [Double] = []
            for pair in 0..<pairs {
                let first = pair % 2 == 0
                let x = try thumbnails(of: files, with: first ? inProcess : isolated)
                let y = try thumbnails(of: files, with: first ? isolated : inProcess)
                let (local, worker) = first ? (x, y) : (y, x)
                a.append(local)
                b.append(worker)
                ratios.append(worker / local)
            }
            print("\(name) | \(fmt(median(a))) | \(fmt(median(b))) | \(fmt(median(ratios))) | \(ratios.map(fmt).joined(separator: " "))")
        }
        let count = 200
        var perDecode: [(Double, Double)] = []
        for pair in 0..<pairs {
            let first = pair % 2 == 0
            let x = try serial(small, count: count, with: first ? inProcess : isolated)
            let y = try serial(small, count: count, with: first ? isolated : inProcess)
            perDecode.append(first ? (x, y) : (y, x))
        }
        let local = median(perDecode.map(\.0)) / Double(count)
        let worker = median(perDecode.map(\.1)) / Double(count)
        print("one 256 px thumbnail of a 1600x1200 JPEG, serial | \(fmt(local * 1000)) ms | \(fmt(worker * 1000)) ms | overhead \(fmt((worker - local) * 1000)) ms per decode")
    }

    static func fmt(_ value: Double) -> String { String(format: "%.3f", value) }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Seconds to make 256-pixel thumbnails of every file, two at once.
    static func thumbnails(of files: [Data], with decoder: PlatformImageDecoder) throws -> Double {
        let next = Mutex(0)
        let failures = Mutex(0)
        let start = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while true {
                let index = next.withLock { index in
                    defer { index += 1 }
                    return index
                }
                guard index < files.count else { return }
                if (try? decoder.decode(files[index], processing: .thumbnail(maxPixelSize: 256), maxPixelCount: 100_000_000)) == nil {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        let elapsed = ContinuousClock.now - start
        if failures.withLock({ $0 }) > 0 { throw Failure.decodeFailed }
        return seconds(elapsed)
    }

    static func serial(_ file: Data, count: Int, with decoder: PlatformImageDecoder) throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<count { _ = try decoder.decode(file, processing: .thumbnail(maxPixelSize: 256), maxPixelCount: 100_000_000) }
        return seconds(ContinuousClock.now - start)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    enum Failure: Error { case decodeFailed, noCorpus }

    /// The still JPEG, PNG and WebP files of the corpus (manifest columns: path, format, …, animated).
    static func corpusFiles(manifest: URL) throws -> [Data] {
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let folder = manifest.deletingLastPathComponent()
        let files = text.split(separator: "\n").dropFirst().compactMap { line -> URL? in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count > 5, columns[0].hasPrefix("real/"), ["JPEG", "PNG", "WEBP"].contains(String(columns[1])),
                columns[5] == "n"
            else { return nil }
            return folder.appendingPathComponent(String(columns[0]))
        }
        guard !files.isEmpty else { throw Failure.noCorpus }
        return try files.map { try Data(contentsOf: $0) }
    }

    /// A JPEG that compresses like a photo: a gradient with grain, encoded at quality 90.
    static func photo(width: Int, height: Int, seed: Int) throws -> Data {
        var random = SystemRandomNumberGenerator()
        var row = [UInt8](repeating: 255, count: width * 4)
        var pixels = Data(capacity: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let grain = Int(UInt8.random(in: 0...31, using: &random)) - 16
                row[x * 4] = UInt8(clamping: x * 255 / width + grain + seed)
                row[x * 4 + 1] = UInt8(clamping: y * 255 / height + grain)
                row[x * 4 + 2] = UInt8(clamping: 128 + (x ^ y) % 64 + grain)
            }
            pixels.append(contentsOf: row)
        }
        let image = DecodedImage(pixelWidth: width, pixelHeight: height, pixelFormat: .rgba8, bytesPerRow: width * 4, pixels: pixels)
        return try PlatformImageEncoder().encode(image, as: .jpeg, quality: 90)
    }
}
