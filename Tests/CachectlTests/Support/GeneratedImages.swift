import Foundation
import LoopbackOrigin
import TestSupport

/// Real PNGs the suites make themselves, so that only the corpus-wide sweeps need `../shared`.
enum GeneratedImages {
    static let baseURL = "https://cdn.example.com/generated"

    /// A `size`×`size` RGB PNG, different for each seed.
    static func png(seed: Int, size: Int = 32) -> Data {
        PNGEncoder.encode(width: size, height: size) { x, y in
            (UInt8(truncatingIfNeeded: x * 8 + seed), UInt8(truncatingIfNeeded: y * 8 + seed * 3), UInt8(truncatingIfNeeded: seed * 40))
        }
    }

    /// A folder of `count` PNGs, `image-1.png` … `image-<count>.png`, seeded from `seed`.
    static func folder(count: Int, seed: Int = 0) throws -> TemporaryDirectory {
        let folder = TemporaryDirectory("generated-images")
        for number in 1...count {
            try png(seed: seed + number, size: 16 + number % 5 * 8).write(to: folder.url.appendingPathComponent("image-\(number).png"))
        }
        return folder
    }

    /// The key `cachectl import` gives `image-<number>.png` of a folder imported under ``baseURL``.
    static func key(_ number: Int) -> String { "\(baseURL)/image-\(number).png" }

    /// A cache at `directory` holding every file of `source` under ``baseURL``.
    @discardableResult
    static func importInto(_ directory: URL, from source: URL, maxAge: String = "1d") async throws -> Cachectl.Result {
        try await Cachectl.importFolder(source, into: directory, baseURL: baseURL, maxAge: maxAge)
    }
}
