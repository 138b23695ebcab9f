import Foundation
import ImageCache

/// The files the thumbnail benchmarks read: every still JPEG, PNG and WebP of
/// `../shared/corpus/real/`, plus large photos generated once (the corpus's photos are small) and
/// kept in the system's temporary folder between runs.
struct ThumbnailSet {
    enum Failure: Error, CustomStringConvertible {
        case corpusMissing(String)
        case commandFailed(String, Int32)

        var description: String {
            switch self {
            case let .corpusMissing(path): "The corpus is missing at \(path): the benchmarks read ../shared beside the checkout."
            case let .commandFailed(command, status): "\(command) exited with \(status); install it with `apt-get install libvips-tools imagemagick`."
            }
        }
    }

    /// The corpus beside the checkout: …/Benchmarks/Benchmarks/DecodingBenchmarks/ThumbnailSet.swift, up five.
    static var shared: URL {
        var path = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { path.deleteLastPathComponent() }
        return path.appendingPathComponent("shared/corpus")
    }

    /// Where generated photos are kept between runs.
    static let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("swift-image-cache-bench")

    let files: [URL]
    let contents: [Data]

    /// The corpus's still JPEG, PNG and WebP files (manifest: format, and `n` in the animated column).
    static func corpus() throws -> ThumbnailSet {
        try make(photos: 0)
    }

    /// `count` generated photos of 4000 × 3000, as cameras and phones make them.
    static func photos(_ count: Int = 4) throws -> ThumbnailSet {
        let files = try (0..<count).map { try generatedPhoto(width: 4000, height: 3000, seed: $0) }
        return ThumbnailSet(files: files, contents: try files.map { try Data(contentsOf: $0) })
    }

    private static func make(photos: Int) throws -> ThumbnailSet {
        let manifest = shared.appendingPathComponent("manifest.tsv")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { throw Failure.corpusMissing(manifest.path) }
        var files: [URL] = []
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count > 5, columns[0].hasPrefix("real/"), ["JPEG", "PNG", "WEBP"].contains(String(columns[1])),
                columns[5] == "n"
            else { continue }
            files.append(shared.appendingPathComponent(String(columns[0])))
        }
        for index in 0..<photos { files.append(try generatedPhoto(width: 4000, height: 3000, seed: index)) }
        return ThumbnailSet(files: files, contents: try files.map { try Data(contentsOf: $0) })
    }

    /// A JPEG of `width` × `height` that compresses like a photo: smooth shading with fine grain.
    static func generatedPhoto(width: Int, height: Int, seed: Int) throws -> URL {
        let file = scratch.appendingPathComponent("photo-\(width)x\(height)-\(seed).jpg")
        if FileManager.default.fileExists(atPath: file.path) { return file }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        var pixels = Data(count: width * height * 4)
        pixels.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            var noise = UInt64(0x9E37_79B9_7F4A_7C15) &+ UInt64(seed)
            for y in 0..<height {
                for x in 0..<width {
                    noise = noise &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let grain = Int(noise >> 59) - 16
                    let offset = (y * width + x) * 4
                    bytes[offset] = UInt8(clamping: x * 255 / width + grain)
                    bytes[offset + 1] = UInt8(clamping: y * 255 / height + grain)
                    bytes[offset + 2] = UInt8(clamping: 128 + (x ^ y) % 64 + grain)
                    bytes[offset + 3] = 255
                }
            }
        }
        let image = DecodedImage(pixelWidth: width, pixelHeight: height, pixelFormat: .rgba8, bytesPerRow: width * 4, pixels: pixels)
        try PlatformImageEncoder().encode(image, as: .jpeg, quality: 90).write(to: file)
        return file
    }
}
