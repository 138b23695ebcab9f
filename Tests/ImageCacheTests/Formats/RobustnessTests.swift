import Foundation
import ImageCache
import Testing
import TestSupport

/// No input crashes, traps or hangs the validator: quirky files, truncations and byte flips.
@Suite("Robustness")
struct RobustnessTests {
    let validator = ImageValidator()

    @Test("every corpus file, quirky ones included, is checked without crashing", .enabled(if: SharedFixtures.isAvailable))
    func everyFileIsCheckedWithoutCrashing() throws {
        let files = try SharedFixtures.files(under: "corpus/bad")
        let listed = try CorpusManifest.entries(under: "bad/")
        // Every file the manifest lists is checked, and nothing else: a missing folder proves nothing.
        #expect(Set(files.map(\.standardizedFileURL.path)) == Set(listed.map(\.url.standardizedFileURL.path)))
        #expect(files.count == 120)
        var accepted = 0, refused = 0
        for url in files {
            let data = try Data(contentsOf: url)
            let prefixVerdict = validator.inspectPrefix(data.prefix(4096))
            do {
                let info = try validator.validate(data)
                accepted += 1
                #expect(info.pixelWidth > 0 && info.pixelHeight > 0 && info.pixelCount <= validator.maxPixelCount, "\(url.path)")
                // A loader stops at a refused prefix: a file accepted whole must not be refused early.
                if case let .refused(error) = prefixVerdict { Issue.record("\(url.path) was accepted whole but its prefix refused: \(error)") }
            } catch {
                refused += 1
            }
        }
        print("bad/: \(accepted) accepted (quirky or decode-stage), \(refused) refused")
        // Only the quirky files and those whose damage shows when decoding may pass validation.
        let mayPass = listed.filter { $0.expected == "either" || $0.latestStage == nil }.count
        #expect(accepted <= mayPass && refused >= files.count - mayPass)
    }

    /// About 20 cut points spread over the file, always including the last byte.
    private func cutPoints(count: Int) -> [Int] {
        guard count > 1 else { return [] }
        let points = (0..<20).map { $0 * (count - 1) / 20 } + [count - 1, count / 2]
        return Array(Set(points)).sorted()
    }

    @Test("every real file cut short is refused, and its prefixes are never refused early", .enabled(if: SharedFixtures.isAvailable))
    func truncatedRealFilesAreRefused() throws {
        var refused = 0, total = 0
        for entry in try CorpusManifest.entries(under: "real/") {
            let data = try entry.contents()
            for cut in cutPoints(count: data.count) {
                let prefix = data.prefix(cut)
                // Dropping only trailing white space leaves a text document (SVG) whole.
                if !data[cut...].allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
                    total += 1
                    if let info = try? validator.validate(prefix) {
                        Issue.record("\(entry) cut at \(cut) of \(data.count) bytes was accepted as \(info)")
                    } else {
                        refused += 1
                    }
                }
                // A loader cancels on .refused, so a prefix of a good file must never be refused.
                switch validator.inspectPrefix(prefix) {
                case let .refused(error):
                    Issue.record("\(entry): the prefix of \(cut) bytes was refused: \(error)")
                case let .accepted(info):
                    #expect(info.pixelWidth == entry.width && info.pixelHeight == entry.height, "\(entry) prefix of \(cut) bytes")
                case .needMoreBytes:
                    break
                }
            }
        }
        print("truncated real files refused: \(refused)/\(total)")
        // Tests/README.md quotes these figures.
        #expect(total == 3_350)
        #expect(refused == total)
    }

    /// This run's mutation seeds: a fixed one, and a fresh one each run (`ROBUSTNESS_SEED=N`
    /// repeats a run that failed; every failure names its seed).
    static let byteFlipSeeds: [UInt64] = {
        let fresh = ProcessInfo.processInfo.environment["ROBUSTNESS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("byte-flip fuzzing seeds: 0x1D5EED00 and \(fresh) (ROBUSTNESS_SEED=\(fresh) repeats the second)")
        return [0x1D5E_ED00, fresh]
    }()

    /// One random edit: bytes overwritten, inserted or deleted, half the time within the first
    /// 512 bytes, where the headers are (an insertion or deletion there shifts every length after it).
    static func mutate(_ bytes: inout [UInt8], using generator: inout SeededRandom) {
        let span = Bool.random(using: &generator) ? min(512, bytes.count) : bytes.count
        guard span > 0 else { return bytes.append(UInt8.random(in: 0...255, using: &generator)) }
        let at = Int.random(in: 0..<span, using: &generator)
        switch Int.random(in: 0..<3, using: &generator) {
        case 0:
            bytes[at] = UInt8.random(in: 0...255, using: &generator)
        case 1:
            let inserted = (0..<Int.random(in: 1...16, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes.insert(contentsOf: inserted, at: at)
        default:
            bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...64, using: &generator)))
        }
    }

    @Test("seeded byte-flip fuzzing (overwrites, insertions, deletions) never crashes", .enabled(if: SharedFixtures.isAvailable))
    func byteFlipFuzzingNeverCrashes() throws {
        let samples = [
            "real/png/basn3p04.png", "real/png/tux.png", "real/jpeg/video-001.progressive.jpeg", "real/jpeg/orientation_6.jpg",
            "real/gif/test-animation.gif", "real/webp/no_time_for_that_tiny-anim.webp", "real/webp/yellow_rose.lossy-with-alpha.webp",
            "real/heic/tux-alpha.heic", "real/avif/tux-alpha.avif", "real/bmp/yellow_rose-small-v5.bmp", "real/tiff/multipage.tif",
            "real/ico/pygame-docs.ico", "real/svg/im-piechart.svg", "real/svg/gnome-cool.svgz",
        ]
        let entries = try CorpusManifest.entries().filter { samples.contains($0.path) }
        #expect(entries.count == samples.count)
        var accepted = 0, refused = 0, runs = 0
        for seed in Self.byteFlipSeeds {
            var generator = SeededRandom(seed: seed)
            for entry in entries {
                let original = [UInt8](try entry.contents())
                for _ in 0..<150 {
                    var mutated = original
                    for _ in 0..<Int.random(in: 1...8, using: &generator) { Self.mutate(&mutated, using: &generator) }
                    let data = Data(mutated)
                    runs += 1
                    _ = validator.inspectPrefix(data.prefix(1024))
                    do {
                        let info = try validator.validate(data)
                        accepted += 1
                        #expect(
                            info.pixelWidth > 0 && info.pixelHeight > 0 && info.pixelCount <= validator.maxPixelCount,
                            "\(entry), seed \(seed)")
                    } catch {
                        refused += 1
                    }
                }
            }
        }
        print("fuzz: \(runs) mutated files checked, \(accepted) still accepted")
        // Edits that every file survives would mean the mutations never reached the validator.
        #expect(refused > runs / 4, "only \(refused) of \(runs) mutated files were refused")
    }
}
