import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import TestSupport
import Testing

/// What vetting a body's prefix costs while it downloads: bounded by the body's size, however
/// many chunks it arrives in and however late its header settles.
@Suite("HTTPCache prefix inspection cost")
struct PrefixInspectionCostTests {
    /// The pipeline's rules (an ``ImageValidator``), counting how many bytes it was shown as prefixes.
    final class CountingImageAcceptor: ResponseBodyAcceptor {
        private let validator = ImageValidator()
        private let shown = Mutex((looks: 0, bytes: 0))

        var looks: Int { shown.withLock { $0.looks } }
        var inspectedBytes: Int { shown.withLock { $0.bytes } }

        func inspectPrefix(_ prefix: Data, of head: HTTPResponseHead) throws -> BodyPrefixVerdict {
            shown.withLock { $0 = ($0.looks + 1, $0.bytes + prefix.count) }
            switch validator.inspectPrefix(prefix) {
            case .needMoreBytes: return .needMoreBytes
            case let .refused(error): throw error
            case .accepted: return .sufficient
            }
        }

        func finish(_ body: Data, of head: HTTPResponseHead) throws -> BodyDescription {
            let info = try validator.validate(body)
            return BodyDescription(format: "\(info.format)", pixelWidth: info.pixelWidth, pixelHeight: info.pixelHeight, cost: nil)
        }
    }

    /// A little-endian TIFF of one 8-bit strip with its only directory after the pixels, as some
    /// writers lay them out: its header cannot be read until the last bytes have arrived.
    static func tiffWithDirectoryAtEnd(width: Int, height: Int) -> Data {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func le16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
        let pixelBytes = width * height
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8 + pixelBytes)
        bytes += [UInt8](repeating: 0x80, count: pixelBytes)
        let entries: [(tag: Int, type: Int, value: Int)] = [(256, 3, width), (257, 3, height), (273, 4, 8), (279, 4, pixelBytes)]
        bytes += le16(entries.count)
        for entry in entries {
            bytes += le16(entry.tag) + le16(entry.type) + le32(1)
            bytes += entry.type == 3 ? le16(entry.value) + [0, 0] : le32(entry.value)
        }
        bytes += le32(0)
        return Data(bytes)
    }

    @Test("a body whose header settles only at its end is inspected in O(n) bytes, not once per chunk")
    func inspectionIsLinear() async throws {
        let tiff = Self.tiffWithDirectoryAtEnd(width: 2048, height: 2048)  // 4 MiB: about 256 chunks of 16 KiB
        let origin = try await LoopbackOrigin.start { _ in
            OriginResponse(headers: headers(("Content-Type", "image/tiff"), ("Cache-Control", "max-age=3600")), body: tiff)
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("prefix-cost")
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        let cache = HTTPCache(configuration: .init(store: store))
        let acceptor = CountingImageAcceptor()
        let response = try await cache.response(for: HTTPCacheRequest(url: origin.url("/late-ifd.tif")), accepting: acceptor)
        #expect(response.body == tiff)
        #expect(response.bodyDescription.pixelWidth == 2048)
        #expect(acceptor.looks > 1, "the body arrived in one piece; the test needs many chunks")
        #expect(acceptor.inspectedBytes <= 4 * tiff.count, "\(acceptor.looks) looks at \(acceptor.inspectedBytes) bytes in all")
    }
}
