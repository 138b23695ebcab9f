import Foundation
import LoopbackOrigin
import TestSupport
import Testing

@testable import HTTPCaching
@testable import ImageCache

/// The memory tier gives memory back: on request (`trim(toCost:)`), on a memory-pressure signal,
/// and by dropping decoded variants whose bytes are gone or replaced.
@Suite("Memory trimming")
struct MemoryTrimmingTests {
    static func filledPipeline(_ fixture: PipelineFixture, count: Int) async throws {
        for index in 0..<count {
            _ = try await fixture.pipeline.image(for: fixture.request("/\(index).png", policy: .duringAppSession))
        }
    }

    static func origin() -> LoopbackOrigin.Handler {
        { request in OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: TestImages.png(seed: request.path.count)) }
    }

    @Test("trim(toCost:) removes least recently used images until the tier holds at most that much")
    func trimToCost() async throws {
        let fixture = try await PipelineFixture(handler: Self.origin())
        try await Self.filledPipeline(fixture, count: 8)
        let full = fixture.pipeline.memoryCost
        #expect(full > 0)
        fixture.pipeline.trim(toCost: full / 2)
        #expect(fixture.pipeline.memoryCost <= full / 2 && fixture.pipeline.memoryCost > 0)
        // The most recently used image stayed.
        #expect(fixture.pipeline.cachedImage(for: fixture.request("/7.png", policy: .duringAppSession)) != nil)
        fixture.pipeline.trim(toCost: 0)
        #expect(fixture.pipeline.memoryCost == 0)
    }

    @Test("a pressure signal halves the memory tier (a pipe standing in for the kernel's trigger)")
    func pressureSignal() async throws {
        let folder = TemporaryDirectory("pressure")
        let fifo = folder.url.appendingPathComponent("pressure").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Held open for writing first, so the monitor's reader never sees a hang-up.
        let writer = open(fifo, O_RDWR | O_NONBLOCK)
        #expect(writer >= 0)
        defer { close(writer) }
        let monitor = MemoryPressureMonitor(path: fifo, trigger: nil)
        #expect(monitor.isWatching)
        let fixture = try await PipelineFixture(pressureMonitor: monitor, handler: Self.origin())
        try await Self.filledPipeline(fixture, count: 8)
        let full = fixture.pipeline.memoryCost
        #expect(write(writer, "x", 1) == 1)
        var waited = 0
        while fixture.pipeline.memoryCost > full / 2, waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(fixture.pipeline.memoryCost <= full / 2)
    }

    @Test("a delivered pressure event halves the memory tier of each pipeline registered with its monitor, and of no other")
    func deliveredPressureEvent() async throws {
        let monitor = MemoryPressureMonitor(watchingNothing: ())
        let fixture = try await PipelineFixture(pressureMonitor: monitor, handler: Self.origin())
        try await Self.filledPipeline(fixture, count: 8)
        let full = fixture.pipeline.memoryCost
        #expect(full > 0)
        monitor.deliverPressureEvent()
        let halved = fixture.pipeline.memoryCost
        #expect(halved <= full / 2 && halved > 0, "\(full) bytes before, \(halved) after")
        // The most recently used image stayed.
        #expect(fixture.pipeline.cachedImage(for: fixture.request("/7.png", policy: .duringAppSession)) != nil)
        monitor.deliverPressureEvent()
        #expect(fixture.pipeline.memoryCost <= halved / 2)

        // A pipeline on another monitor hears nothing of this one's events.
        let elsewhere = try await PipelineFixture(pressureMonitor: MemoryPressureMonitor(watchingNothing: ()), handler: Self.origin())
        try await Self.filledPipeline(elsewhere, count: 4)
        let untouched = elsewhere.pipeline.memoryCost
        monitor.deliverPressureEvent()
        #expect(elsewhere.pipeline.memoryCost == untouched)
    }

    @Test("by default a pipeline trims on the process's monitor; trimsMemoryOnPressure = false takes it off")
    func defaultMonitor() {
        var configuration = ImagePipeline.Configuration()
        #expect(configuration.memoryPressureMonitor === MemoryPressureMonitor.shared)
        #expect(configuration.trimsMemoryOnPressure)
        configuration.trimsMemoryOnPressure = false
        #expect(configuration.memoryPressureMonitor == nil)
    }

    /// Whether this kernel has pressure-stall information (said once as a notice when it has not).
    static let kernelHasPressureStallInformation: Bool = {
        let available = FileManager.default.fileExists(atPath: "/proc/pressure/memory")
        if !available {
            print("notice: this kernel has no /proc/pressure/memory; the pressure-stall trigger is not tested here")
        }
        return available
    }()

    @Test(
        "the kernel's pressure-stall trigger is armed where /proc/pressure/memory exists; a missing file arms nothing",
        .enabled(if: kernelHasPressureStallInformation))
    func pressureStallInformation() {
        #expect(MemoryPressureMonitor.shared.isWatching)
        #expect(!MemoryPressureMonitor(path: "/proc/pressure/no-such-file", trigger: "some 100000 2000000").isWatching)
        #expect(!MemoryPressureMonitor(path: "/proc/pressure/memory", trigger: "not a trigger").isWatching)
    }

    @Test("decoded variants go when their bytes are removed or replaced, and stay through a 304")
    func variantsFollowTheirBytes() throws {
        let tier = ImageMemoryTier(images: MemoryCache(costLimit: 1 << 30, countLimit: 100))
        let info = ImageInfo(format: .png, pixelWidth: 32, pixelHeight: 32)
        let stored = StoredResponse(status: 200, headers: ["Cache-Control": "max-age=60"], requestTime: Date(), responseTime: Date())
        let bytes = TestImages.png(seed: 1)
        let entry = StoredEntry(response: stored, body: bytes, description: BodyDescription(info, byteCount: bytes.count))
        let source = MemoryKey("https://example.com/a.png")
        let variant = source.variant(named: ImageProcessing.thumbnail(maxPixelSize: 8).identifier)
        tier.keep(entry, for: source.string, plainReuse: nil)
        tier.keepVariant(CachedImage(data: bytes, info: info, http: stored), for: variant, of: source)
        tier.keep(entry, for: source.string, plainReuse: nil)   // the same bytes (a 304)
        #expect(tier.images.contains(variant))
        var replaced = entry
        replaced.body = TestImages.png(seed: 2)
        tier.keep(replaced, for: source.string, plainReuse: nil)
        #expect(!tier.images.contains(variant))
        tier.keepVariant(CachedImage(data: bytes, info: info, http: stored), for: variant, of: source)
        tier.remove(source.string)
        #expect(!tier.images.contains(variant) && !tier.images.contains(source))
    }
}
