import Foundation
import ImageCache
import Testing
import TestSupport

/// Bad files are refused no later than the stage the manifest says a careful loader notices them.
@Suite("Bad files are refused")
struct BadImageRejectionTests {
    let validator = ImageValidator()

    /// Rows where the validator's first finding is legitimately at a later stage than the manifest's.
    ///
    /// `gdk-bug793470-crasher.png` starts with a valid IHDR (935820x854554, 8-bit grey), then a
    /// 7-byte IDAT, then a second, nonsensical IHDR. The manifest's reference parser keeps the
    /// *last* IHDR and so files the problem under "header"; a decoder reads the first one, which
    /// is valid but over the pixel limit, so the validator refuses it at the policy stage, before
    /// the structure walk that would find the duplicate.
    static let laterStageAllowed: [String: ValidationStage] = ["bad/bomb/gdk-bug793470-crasher.png": .policy]

    @Test("validate refuses every must-reject file at or before its detect_at stage", .enabled(if: SharedFixtures.isAvailable))
    func refusesAtOrBeforeTheManifestStage() throws {
        let entries = try CorpusManifest.entries(under: "bad/").filter {
            $0.expected == "must-reject" && $0.category != "bad/quirky" && $0.latestStage != nil
        }
        #expect(!entries.isEmpty)
        var refusedByStage: [ValidationStage: Int] = [:]
        var refusedInTime = 0
        for entry in entries {
            let latest = try #require(Self.laterStageAllowed[entry.path] ?? entry.latestStage)
            let data = try entry.contents()
            do {
                let info = try validator.validate(data)
                Issue.record("\(entry) was accepted as \(info), but must be refused by the \(latest) stage")
            } catch {
                refusedByStage[error.stage, default: 0] += 1
                #expect(error.stage <= latest, "\(entry): refused at \(error.stage), later than \(latest): \(error)")
                if error.stage <= latest { refusedInTime += 1 }
            }
        }
        let summary = ValidationStage.allCases.map { "\($0): \(refusedByStage[$0] ?? 0)" }.joined(separator: ", ")
        print("bad files refused in time: \(refusedInTime)/\(entries.count) (refused at \(summary))")
        // The README quotes these figures.
        #expect(entries.count == 110)
        #expect(refusedInTime == entries.count)
    }

    @Test("files the manifest leaves to decoding or rendering are checked without crashing", .enabled(if: SharedFixtures.isAvailable))
    func decodeAndRenderRowsDoNotCrash() throws {
        let entries = try CorpusManifest.entries(under: "bad/").filter {
            $0.expected == "must-reject" && $0.category != "bad/quirky" && $0.latestStage == nil
        }
        var refused: [String] = []
        for entry in entries {
            if (try? validator.validate(try entry.contents())) == nil { refused.append(entry.path) }
        }
        print("decode/render-stage files refused anyway: \(refused.count)/\(entries.count) \(refused)")
        // Six files only a decoder or renderer can refuse; of them, the element bomb is refused by
        // the SVG walk's budget already. The other five wait for decoding.
        #expect(entries.count == 6)
        #expect(refused.contains("bad/bomb/rsvg-515-too-many-elements.svgz"))
    }

    @Test("inspectPrefix refuses every policy-stage bomb from its first 4 KB", .enabled(if: SharedFixtures.isAvailable))
    func refusesBombsFromAPrefix() throws {
        let entries = try CorpusManifest.entries(under: "bad/").filter { $0.detectAt == "policy" && $0.category != "bad/quirky" }
        #expect(!entries.isEmpty)
        for entry in entries {
            let prefix = try entry.contents().prefix(4 * 1024)
            switch validator.inspectPrefix(prefix) {
            case let .refused(error):
                #expect(error.stage <= .policy, "\(entry): \(error)")
            case let verdict:
                Issue.record("\(entry): the first \(prefix.count) bytes gave \(verdict) instead of a refusal")
            }
        }
        print("policy-stage bombs refused from a prefix: \(entries.count)")
    }

    @Test("unsupported formats are named as such", .enabled(if: SharedFixtures.isAvailable))
    func namesUnsupportedFormats() throws {
        for entry in try CorpusManifest.entries(under: "bad/unsupported/") {
            let data = try entry.contents()
            do {
                let info = try validator.validate(data)
                Issue.record("\(entry) was accepted as \(info)")
            } catch {
                guard case .unsupportedFormat = error else {
                    Issue.record("\(entry): \(error) is not .unsupportedFormat")
                    continue
                }
            }
        }
    }
}
