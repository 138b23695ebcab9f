import CacheStorage
import Foundation
import ImageCache
import LoopbackOrigin
import Synchronization
import TestSupport
import Testing

/// Thumbnails kept on disk as variants of their originals: a relaunch shows them without the
/// originals' bytes or the network, only while the originals are fresh, and never after the
/// originals' bytes changed.
@Suite("Disk variants")
struct DiskVariantTests {
    /// The platform decoder, recording the format of every image it was given.
    final class RecordingDecoder: ImageDecoder {
        let formats = Mutex<[String]>([])
        func decode(_ data: Data, processing: ImageProcessing, maxPixelCount: Int) throws(ImageDecodingError) -> DecodedImage {
            let format = (try? ImageValidator().validate(data)).map { "\($0.format)" } ?? "?"
            formats.withLock { $0.append(format) }
            return try PlatformImageDecoder().decode(data, processing: processing, maxPixelCount: maxPixelCount)
        }
        var seen: [String] { formats.withLock { $0 } }
    }

    /// A 300×200 photo of one colour (opaque, so its variant is a JPEG).
    static func photo(red: UInt8, blue: UInt8) -> Data {
        PNGEncoder.encode(width: 300, height: 200) { _, _ in (red, 40, blue) }
    }

    /// A pipeline on the store in `folder`, as an app launched again would have.
    static func launch(
        _ folder: URL, decoder: RecordingDecoder, keepsProcessedPixels: Bool = true
    ) throws -> (ImagePipeline, PersistentStore) {
        let store = try PersistentStore(directory: folder)
        var configuration = ImagePipeline.Configuration(diskCache: store)
        configuration.decoder = decoder
        configuration.keepsProcessedPixels = keepsProcessedPixels
        return (ImagePipeline(configuration: configuration), store)
    }

    /// An origin answering every request with `body`, fresh for an hour.
    static func freshOrigin(serving body: Data) async throws -> LoopbackOrigin {
        try await LoopbackOrigin.start { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: body)
        }
    }

    static func thumbnail(_ url: URL) -> ImageRequest {
        var request = ImageRequest(url: url, policy: .persistent())
        request.processing = .thumbnail(maxPixelSize: 60)
        return request
    }

    @Test("a relaunch shows a thumbnail from its disk variant: one read, no original bytes, no network")
    func relaunchFromVariant() async throws {
        let photo = Self.photo(red: 200, blue: 30)
        let origin = try await Self.freshOrigin(serving: photo)
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("variants")
        let url = origin.url("/photo.png")

        let firstDecoder = RecordingDecoder()
        let (first, firstStore) = try Self.launch(folder.url, decoder: firstDecoder)
        let fetched = try await first.image(for: Self.thumbnail(url))
        #expect(fetched.source == .network && fetched.decoded?.pixelWidth == 60)
        #expect(firstDecoder.seen == ["png"])
        await first.waitForPendingWrites()
        try await firstStore.flush()
        let stats = try firstStore.statistics()
        #expect(stats.entries == 2 && stats.derivedEntries == 1, "\(stats.entries) entries, \(stats.derivedEntries) derived")
        let variant = try #require(try firstStore.entries(matching: EntryQuery(isDerived: true)).first)
        #expect(variant.source?.key == url.absoluteString && variant.attributes.format == "jpeg")
        #expect(variant.byteCount < photo.count)
        firstStore.close()

        let decoder = RecordingDecoder()
        let (second, store) = try Self.launch(folder.url, decoder: decoder)
        defer { store.close() }
        let hitsBefore = try store.statistics().hits
        let shown = try await second.image(for: Self.thumbnail(url))
        #expect(shown.source == .disk)
        #expect(shown.decoded.map { ($0.pixelWidth, $0.pixelHeight) } ?? (0, 0) == (60, 40))
        #expect(shown.info.format == .jpeg && shown.http?.status == 200)
        let pixel = try #require(shown.decoded).pixel(x: 30, y: 20)
        #expect(abs(Int(pixel.0) - 200) < 10 && abs(Int(pixel.2) - 30) < 10, "\(pixel)")
        #expect(decoder.seen == ["jpeg"], "only the variant was decoded (the original is a PNG)")
        await second.waitForPendingWrites()
        try await store.flush()
        #expect(try store.statistics().hits == hitsBefore + 1, "one read: the variant's, not the original's bytes")
        #expect(origin.requests.count == 1)
        // And then from memory.
        #expect(try await second.image(for: Self.thumbnail(url)).source == .memory)
    }

    @Test("without processed pixels kept, a thumbnail's memory hit and its read from disk carry its stored JPEG and no pixels, and nothing decodes it")
    func bytesWithoutPixels() async throws {
        let photo = Self.photo(red: 30, blue: 220)
        let origin = try await Self.freshOrigin(serving: photo)
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("variants")
        let url = origin.url("/photo.png")

        let firstDecoder = RecordingDecoder()
        let (first, firstStore) = try Self.launch(folder.url, decoder: firstDecoder, keepsProcessedPixels: false)
        let fetched = try await first.image(for: Self.thumbnail(url))
        #expect(fetched.source == .network && fetched.decoded?.pixelWidth == 60, "the load that made it has its pixels")
        await first.waitForPendingWrites()
        let fromMemory = try await first.image(for: Self.thumbnail(url))
        #expect(fromMemory.source == .memory && fromMemory.decoded == nil)
        let stored = try #require(try firstStore.entries(matching: EntryQuery(isDerived: true)).first)
        #expect(try firstStore.peek(stored.key)?.data == fromMemory.data, "the memory hit is the stored variant's bytes")
        #expect((fromMemory.info.format, fromMemory.info.pixelWidth, fromMemory.info.pixelHeight) == (.jpeg, 60, 40))
        #expect(firstDecoder.seen == ["png"])
        try await firstStore.flush()
        firstStore.close()

        let decoder = RecordingDecoder()
        let (second, store) = try Self.launch(folder.url, decoder: decoder, keepsProcessedPixels: false)
        defer { store.close() }
        let shown = try await second.image(for: Self.thumbnail(url))
        #expect(shown.source == .disk && shown.decoded == nil)
        let read = try ImageValidator().validate(shown.data)
        #expect((read.format, read.pixelWidth, read.pixelHeight) == (.jpeg, 60, 40) && shown.info == fromMemory.info)
        let again = try await second.image(for: Self.thumbnail(url))
        #expect(again.source == .memory && again.data == shown.data && again.decoded == nil)
        #expect(decoder.seen.isEmpty, "nothing was decoded: \(decoder.seen)")
        #expect(origin.requests.count == 1)
    }

    @Test("an original that must be revalidated is asked for; new bytes replace the variant, a 304 keeps it")
    func followsTheOriginal() async throws {
        let version = Atomic<Int>(1)
        let origin = try await LoopbackOrigin.start { request in
            let current = version.load(ordering: .relaxed)
            let etag = "\"v\(current)\""
            if request.header("If-None-Match") == etag {
                return OriginResponse(status: 304, headers: headers(("ETag", etag), ("Cache-Control", "no-cache")), body: Data())
            }
            return OriginResponse(
                headers: headers(("ETag", etag), ("Cache-Control", "no-cache")),
                body: current == 1 ? Self.photo(red: 200, blue: 30) : Self.photo(red: 20, blue: 220))
        }
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("variants")
        let url = origin.url("/changing.png")

        let (first, firstStore) = try Self.launch(folder.url, decoder: RecordingDecoder())
        _ = try await first.image(for: Self.thumbnail(url))
        await first.waitForPendingWrites()
        firstStore.close()

        // no-cache: the original may not be reused without asking, so neither may its variant.
        let decoder = RecordingDecoder()
        let (second, secondStore) = try Self.launch(folder.url, decoder: decoder)
        let unchanged = try await second.image(for: Self.thumbnail(url))
        #expect(unchanged.source == .revalidated)
        #expect(decoder.seen == ["png"])
        await second.waitForPendingWrites()
        try await secondStore.flush()
        #expect(try secondStore.statistics().derivedEntries == 1, "a 304 keeps the variant")
        secondStore.close()

        version.store(2, ordering: .relaxed)
        let (third, store) = try Self.launch(folder.url, decoder: RecordingDecoder())
        defer { store.close() }
        let changed = try await third.image(for: Self.thumbnail(url))
        #expect(changed.source == .network)
        let pixel = try #require(changed.decoded).pixel(x: 30, y: 20)
        #expect(pixel.2 > 180 && pixel.0 < 60, "the new bytes' pixels: \(pixel)")
        await third.waitForPendingWrites()
        try await store.flush()
        let variants = try store.entries(matching: EntryQuery(isDerived: true))
        #expect(variants.count == 1)
        let original = try #require(try store.metadata(for: url.absoluteString))
        #expect(variants.first?.source?.checksum == original.checksum, "the variant is of the new bytes")
    }

    @Test("a fresh thumbnail of an original too large for the memory tier is a memory hit, decoded once")
    func thumbnailOfLargeOriginal() async throws {
        // Noise, so the PNG stays large: over the memory tier's per-entry cap, which its
        // 60 × 40 thumbnail is far under.
        var random = SeededRandom(seed: 11)
        let photo = PNGEncoder.encode(width: 300, height: 200) { _, _ in
            (UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), 90)
        }
        let origin = try await Self.freshOrigin(serving: photo)
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("variants")
        defer { withExtendedLifetime(folder) {} }
        let store = try PersistentStore(directory: folder.url)
        defer { store.close() }
        var configuration = ImagePipeline.Configuration(diskCache: store)
        let decoder = RecordingDecoder()
        configuration.decoder = decoder
        configuration.memoryCostLimit = photo.count * 2
        #expect(Double(photo.count) > Double(configuration.memoryCostLimit) * 0.25)
        let pipeline = ImagePipeline(configuration: configuration)
        let url = origin.url("/noise.png")

        #expect(try await pipeline.image(for: Self.thumbnail(url)).source == .network)
        for call in 2...4 {
            let shown = try await pipeline.image(for: Self.thumbnail(url))
            #expect(shown.source == .memory, "call \(call): \(shown.source)")
            #expect(shown.decoded.map { ($0.pixelWidth, $0.pixelHeight) } ?? (0, 0) == (60, 40))
        }
        #expect(decoder.seen == ["png"], "decoded once, never again from its disk variant: \(decoder.seen)")
        #expect(origin.requests.count == 1)
    }

    @Test("a thumbnail asked for in a format is kept as a variant of its own in that format, encoded from the original's pixels")
    func variantInAskedFormat() async throws {
        let photo = Self.photo(red: 40, blue: 220)
        let origin = try await Self.freshOrigin(serving: photo)
        defer { Task { await origin.stop() } }
        let folder = TemporaryDirectory("variants")
        let url = origin.url("/photo.png")
        var webp = Self.thumbnail(url)
        webp.processedFormat = .webp

        let firstDecoder = RecordingDecoder()
        let (first, firstStore) = try Self.launch(folder.url, decoder: firstDecoder)
        #expect(try await first.image(for: Self.thumbnail(url)).source == .network)
        let made = try await first.image(for: webp)
        #expect(made.decoded?.pixelWidth == 60)
        // Each format from the original's pixels: the PNG decoded once (the base both sizes are
        // resampled from), no JPEG variant decoded again.
        #expect(firstDecoder.seen == ["png"], "\(firstDecoder.seen)")
        let fromMemory = try #require(first.cachedImage(for: webp))
        #expect(fromMemory.info.format == .webp && (try? ImageValidator().validate(fromMemory.data))?.format == .webp)
        #expect(first.cachedImage(for: Self.thumbnail(url))?.info.format == .jpeg)
        await first.waitForPendingWrites()
        try await firstStore.flush()
        let variants = try firstStore.entries(matching: EntryQuery(isDerived: true))
        #expect(Set(variants.compactMap(\.attributes.format)) == ["jpeg", "webp"], "\(variants.map(\.key))")
        firstStore.close()

        let decoder = RecordingDecoder()
        let (second, store) = try Self.launch(folder.url, decoder: decoder)
        defer { store.close() }
        let shown = try await second.image(for: webp)
        #expect(shown.source == .disk && shown.info.format == .webp)
        let pixel = try #require(shown.decoded).pixel(x: 30, y: 20)
        #expect(abs(Int(pixel.0) - 40) < 10 && abs(Int(pixel.2) - 220) < 10, "\(pixel)")
        #expect(decoder.seen == ["webp"], "only the WebP variant was decoded: \(decoder.seen)")
        #expect(origin.requests.count == 1)
    }
}
