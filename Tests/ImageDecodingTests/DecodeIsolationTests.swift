#if os(Linux)
import Foundation
import Glibc
@testable import ImageDecoding
import ImageFormats
import TestSupport
import Testing

/// Decoding in worker processes: the same pixels as in the app's process, and every fault a
/// decoding library can bring about (an abort, a memory fault, an endless loop, a huge
/// allocation) ends a worker, never this test process, as a typed error; the next decode works.
@Suite("Decoding isolated in worker processes")
struct DecodeIsolationTests {
    static let limit = 100_000_000
    static let png = GeneratedImages.png(width: 120, height: 90) { x, y in GeneratedImages.quadrant(x: x, y: y, width: 120, height: 90) }

    /// Worker isolation with a memory limit of its own: each test gets its own pool, so one
    /// test's workers never serve another's. Its idle workers wait an hour: a loaded run can take
    /// longer than the default lifetime between a decode and a test's look at the worker it left.
    static func isolation(memoryLimitMiB: Int, fault: DecodeWorkerFault? = nil) -> DecodeIsolation {
        var isolation = DecodeIsolation.workerProcesses
        isolation.workerMemoryLimitBytes = memoryLimitMiB << 20
        isolation.idleWorkerLifetime = .seconds(3600)
        isolation.injectedFault = fault
        return isolation
    }

    @Test("a worker decodes exactly the pixels the app's process does, for every processing")
    func samePixels() async throws {
        let isolated = PlatformImageDecoder(isolation: Self.isolation(memoryLimitMiB: 2001))
        let inProcess = PlatformImageDecoder(isolation: .inProcess)
        for processing in [ImageProcessing.original, .thumbnail(maxPixelSize: 40), .resized(width: 30, height: 30, mode: .fill)] {
            let a = try await isolated.decodeOffPool(Self.png, processing: processing, maxPixelCount: Self.limit)
            let b = try await inProcess.decodeOffPool(Self.png, processing: processing, maxPixelCount: Self.limit)
            #expect(a == b, "\(processing.identifier)")
        }
    }

    @Test(
        "each fault a decoding library can cause ends the worker as a typed error, and the next decode works",
        arguments: DecodeWorkerFault.allCases)
    func faultsStayInTheWorker(fault: DecodeWorkerFault) async throws {
        var isolation = Self.isolation(memoryLimitMiB: 1024, fault: fault)
        isolation.cpuTimeLimit = .seconds(1)
        let decoder = PlatformImageDecoder(isolation: isolation)
        // Twice: the second job finds the first worker gone and starts another.
        for attempt in 1...2 {
            let error = await #expect(throws: ImageDecodingError.self, "attempt \(attempt)") {
                try await decoder.decodeOffPool(Self.png, processing: .thumbnail(maxPixelSize: 32), maxPixelCount: Self.limit)
            }
            switch (fault, error) {
            case (.abort, .decoderCrashed(let detail)?): #expect(detail.contains("SIGABRT"), "\(detail)")
            case (.segmentationFault, .decoderCrashed(let detail)?): #expect(detail.contains("SIGSEGV"), "\(detail)")
            case (.endlessLoop, .decodingTimedOut(let detail)?): #expect(detail.contains("processor time"), "\(detail)")
            case (.hugeAllocation, .decodingExceededMemory(let detail)?): #expect(detail.contains("1024 MiB"), "\(detail)")
            default: Issue.record("\(fault): \(String(describing: error))")
            }
        }
        // This process is still here, and a decode without the fault works.
        let image = try await PlatformImageDecoder(isolation: Self.isolation(memoryLimitMiB: 1024))
            .decodeOffPool(Self.png, processing: .thumbnail(maxPixelSize: 32), maxPixelCount: Self.limit)
        #expect((image.pixelWidth, image.pixelHeight) == (32, 24))
    }

    /// An SVG on which librsvg panics (a convolution kernel of order 21): the panic cannot unwind
    /// through libvips' C frames, and ends whatever process renders it.
    static let panickingSVG = Data(
        (#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><filter id="f"><feConvolveMatrix order="21" kernelMatrix=""#
            + Array(repeating: "1", count: 441).joined(separator: " ")
            + #""/></filter><rect width="100" height="100" fill="red" filter="url(#f)"/></svg>"#).utf8)

    @Test("a real panic in librsvg ends the worker that renders it, never the app")
    func realPanic() async throws {
        let isolation = Self.isolation(memoryLimitMiB: 1030)
        guard case let .worker(pool) = isolation.place(for: .svg) else {
            Issue.record("no worker pool")
            return
        }
        // Handed to a worker as if it had passed validation, which it must not.
        let job = DecodeJob(
            data: Self.panickingSVG, info: ImageInfo(format: .svg, pixelWidth: 100, pixelHeight: 100),
            processing: .thumbnail(maxPixelSize: 64), maxPixelCount: Self.limit, cpuSeconds: 5)
        let error = await #expect(throws: ImageDecodingError.self) {
            try await DecodingQueue.shared.run { () throws(ImageDecodingError) in try pool.decode(job, isolation: isolation) }
        }
        guard case let .decoderCrashed(detail)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(detail.contains("SIGABRT") && detail.contains("panicked"), "\(detail)")
        // Through the decoder, validation refuses it in the app before any worker sees it.
        let refused = await #expect(throws: ImageDecodingError.self) {
            try await PlatformImageDecoder(isolation: isolation)
                .decodeOffPool(Self.panickingSVG, processing: .thumbnail(maxPixelSize: 64), maxPixelCount: Self.limit)
        }
        guard case .invalidImage(.refusedContent)? = refused else {
            Issue.record("\(String(describing: refused))")
            return
        }
    }

    @Test("a worker that does not answer by the deadline is killed, and the decode fails as timed out")
    func deadline() async throws {
        var isolation = Self.isolation(memoryLimitMiB: 1025, fault: .endlessLoop)
        isolation.cpuTimeLimit = .seconds(60)
        isolation.deadline = .milliseconds(300)
        let error = await #expect(throws: ImageDecodingError.self) {
            try await PlatformImageDecoder(isolation: isolation)
                .decodeOffPool(Self.png, processing: .original, maxPixelCount: Self.limit)
        }
        guard case let .decodingTimedOut(detail)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(detail.contains("took longer than"), "\(detail)")
    }

    @Test("an idle worker killed from outside is replaced: the next decode never sees it")
    func idleWorkerKilled() async throws {
        let isolation = Self.isolation(memoryLimitMiB: 1026)
        let decoder = PlatformImageDecoder(isolation: isolation)
        _ = try await decoder.decodeOffPool(Self.png, processing: .original, maxPixelCount: Self.limit)
        let workers = isolation.idleWorkerProcessIDs
        #expect(workers.count == 1)
        for worker in workers {
            kill(worker, SIGKILL)
            // Dead and not yet reaped (a zombie): what the pool finds when it next looks.
            let deadline = ContinuousClock.now + .seconds(10)
            while Self.state(of: worker) != "Z", ContinuousClock.now < deadline { usleep(1_000) }
            #expect(Self.state(of: worker) == "Z")
        }
        let image = try await decoder.decodeOffPool(Self.png, processing: .original, maxPixelCount: Self.limit)
        #expect(image.pixelWidth == 120)
    }

    @Test("a worker holds none of the app's descriptors, even ones left open without close-on-exec")
    func noInheritedDescriptors() async throws {
        let directory = TemporaryDirectory("decode-lock")
        defer { withExtendedLifetime(directory) {} }
        // Opened without close-on-exec, as a careless app (or library) would.
        let descriptor = open(directory.url.appendingPathComponent("app.lock").path, O_CREAT | O_RDWR, 0o600)
        #expect(descriptor > 3)
        defer { close(descriptor) }
        let isolation = Self.isolation(memoryLimitMiB: 1027)
        _ = try await PlatformImageDecoder(isolation: isolation)
            .decodeOffPool(Self.png, processing: .original, maxPixelCount: Self.limit)
        let workers = isolation.idleWorkerProcessIDs
        #expect(workers.count == 1)
        for worker in workers {
            let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(worker)/fd").compactMap { Int32($0) }.sorted()
            #expect(open == [0, 1, 2, 3], "worker \(worker) has descriptors \(open)")
        }
    }

    @Test("without the worker executable: the required mode says where it looked; the automatic one decodes rasters here and refuses SVG")
    func missingWorker() async throws {
        var required = DecodeIsolation.workerProcesses
        required.workerExecutable = "/nonexistent/imagecache-decode-worker"
        let error = await #expect(throws: ImageDecodingError.self) {
            try await PlatformImageDecoder(isolation: required).decodeOffPool(Self.png, processing: .original, maxPixelCount: Self.limit)
        }
        guard case let .decoderUnavailable(detail)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(detail.contains("/nonexistent/imagecache-decode-worker") && detail.contains("swift build --product"))

        var automatic = DecodeIsolation.automatic
        automatic.workerExecutable = "/nonexistent/imagecache-decode-worker"
        let decoder = PlatformImageDecoder(isolation: automatic)
        let image = try await decoder.decodeOffPool(Self.png, processing: .original, maxPixelCount: Self.limit)
        #expect(image.pixelWidth == 120)
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20"/></svg>"#.utf8)
        await #expect(throws: ImageDecodingError.self) {
            try await decoder.decodeOffPool(svg, processing: .original, maxPixelCount: Self.limit)
        }
        // With a worker, the same SVG renders.
        let rendered = try await PlatformImageDecoder(isolation: Self.isolation(memoryLimitMiB: 1028))
            .decodeOffPool(svg, processing: .original, maxPixelCount: Self.limit)
        #expect(rendered.pixelWidth == 20)
    }

    @Test("a validation failure is found in the app's process, before any worker: the same typed error as in-process")
    func validationFirst() async throws {
        let cut = Self.png.prefix(Self.png.count - 20)
        let isolated = await #expect(throws: ImageDecodingError.self) {
            try await PlatformImageDecoder(isolation: Self.isolation(memoryLimitMiB: 1029))
                .decodeOffPool(Data(cut), processing: .original, maxPixelCount: Self.limit)
        }
        let inProcess = await #expect(throws: ImageDecodingError.self) {
            try await PlatformImageDecoder(isolation: .inProcess).decodeOffPool(Data(cut), processing: .original, maxPixelCount: Self.limit)
        }
        #expect(isolated == inProcess)
        guard case .invalidImage? = isolated else {
            Issue.record("\(String(describing: isolated))")
            return
        }
    }

    @Test("a worker waits its idle lifetime for the next job, then exits and is reaped; the next decode starts another")
    func idleWorkersRetire() async throws {
        let decode = { (decoder: PlatformImageDecoder) in
            try await decoder.decodeOffPool(Self.png, processing: .thumbnail(maxPixelSize: 32), maxPixelCount: Self.limit)
        }
        // Within its lifetime the worker takes the next job.
        let lasting = Self.isolation(memoryLimitMiB: 2003)
        for _ in 0..<3 { _ = try await decode(PlatformImageDecoder(isolation: lasting)) }
        #expect(lasting.startedWorkerProcessIDs.count == 1)
        // Past it, the worker leaves the pool and the process table (reaped, not a zombie).
        var brief = Self.isolation(memoryLimitMiB: 2002)
        brief.idleWorkerLifetime = .milliseconds(200)
        _ = try await decode(PlatformImageDecoder(isolation: brief))
        let first = try #require(brief.startedWorkerProcessIDs.first)
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, !brief.idleWorkerProcessIDs.isEmpty || Self.state(of: first) != nil {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(brief.idleWorkerProcessIDs.isEmpty)
        #expect(Self.state(of: first) == nil)
        let image = try await decode(PlatformImageDecoder(isolation: brief))
        #expect((image.pixelWidth, image.pixelHeight) == (32, 24))
        #expect(brief.startedWorkerProcessIDs.count == 2)
    }

    /// The state letter /proc gives a process (`R`, `S`, `Z` …).
    @Test("a worker keeps out of its resident memory the library pages it touched only to start")
    func libraryPagesDropped() async throws {
        let isolation = Self.isolation(memoryLimitMiB: 1028)
        _ = try await PlatformImageDecoder(isolation: isolation)
            .decodeOffPool(Self.png, processing: .original, maxPixelCount: Self.limit)
        let worker = try #require(isolation.idleWorkerProcessIDs.first)
        let resident = try #require(Self.residentUnchangedFileKiB(of: worker), "no smaps for worker \(worker)")
        // Loaded and started, libvips' libraries and the worker's own hold several times this.
        #expect(resident < 16 << 10, "worker \(worker) keeps \(resident) KiB of its files' pages resident")
    }

    /// Kibibytes resident in `pid`'s private, read-only file mappings that hold no page of their
    /// own: the pages `DecodeWorkerService.dropLoadedLibraryPages()` drops.
    static func residentUnchangedFileKiB(of pid: Int32) -> Int? {
        // Read to its end: a procfs file reports no size.
        guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps"), let bytes = try? file.readToEnd() else { return nil }
        try? file.close()
        let smaps = String(decoding: bytes, as: UTF8.self)
        var total = 0
        var counted = false
        var rss = 0
        var anonymous = 0
        func finish() {
            if counted, anonymous == 0 { total += rss }
            counted = false
            rss = 0
            anonymous = 0
        }
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.hasSuffix(":") {
                if first == "Rss:", fields.count >= 2 { rss = Int(fields[1]) ?? 0 }
                if first == "Anonymous:", fields.count >= 2 { anonymous = Int(fields[1]) ?? 0 }
                continue
            }
            finish()
            let permissions = fields.count == 6 ? Array(fields[1]) : []
            counted = permissions.count == 4 && permissions[1] != "w" && permissions[3] == "p"
                && fields[5].drop { $0 == " " }.hasPrefix("/")
        }
        finish()
        return total
    }

    static func state(of pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(close, offsetBy: 2)...].first
    }
}
#endif
