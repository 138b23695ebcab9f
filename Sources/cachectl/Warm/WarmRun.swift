import CacheStorage
import Foundation
import ImageCache

/// Loads each URL through an ``ImagePipeline`` on the store, a few at a time, and sorts the outcomes.
struct WarmRun {
    let store: PersistentStore
    let concurrency: Int

    enum Outcome: Sendable {
        case cached(ImageSource, bytes: Int)
        case refused(String)
        case failed(String)
    }

    func perform(_ lines: [WarmList.Line]) async -> WarmReport {
        var configuration = ImagePipeline.Configuration(diskCache: store)
        configuration.maxConcurrentFetches = concurrency
        // Warming fills the disk; holding every image in memory as well would only cost RAM.
        configuration.memoryCountLimit = 0
        // Each load waits for its write before the next starts, so at most `concurrency` bodies
        // wait for the disk: the limits only have to let all of them in, never to drop one.
        configuration.writeBehind.maxPendingBytes = max(
            configuration.writeBehind.maxPendingBytes, concurrency * configuration.maxBodyBytes)
        let pipeline = ImagePipeline(configuration: configuration)
        let progress = ProgressBar(label: "warm", total: lines.count)
        defer { progress.finish() }
        var outcomes = [Outcome?](repeating: nil, count: lines.count)
        await withTaskGroup(of: (Int, Outcome).self) { group in
            var next = 0
            func startNext() {
                guard next < lines.count else { return }
                let index = next
                let line = lines[index]
                next += 1
                group.addTask { (index, await load(line, with: pipeline)) }
            }
            for _ in 0..<concurrency { startNext() }
            for await (index, outcome) in group {
                outcomes[index] = outcome
                if case let .cached(_, bytes) = outcome { progress.advance(bytes: bytes) } else { progress.advance() }
                startNext()
            }
        }
        await pipeline.waitForBackgroundWork()
        await pipeline.waitForPendingWrites()
        var report = WarmReport()
        for (line, outcome) in zip(lines, outcomes.compactMap { $0 }) { report.add(outcome, for: line) }
        return report
    }

    private func load(_ line: WarmList.Line, with pipeline: ImagePipeline) async -> Outcome {
        guard case let .url(url) = line else { return .refused("not an http or https URL") }
        do {
            let response = try await pipeline.image(for: ImageRequest(url: url, policy: .persistent()))
            // Loads return before their writes commit; warm reports what is on disk.
            await pipeline.waitForPendingWrites()
            guard try store.contains(pipeline.configuration.key(for: ImageRequest(url: url))) else {
                return .refused("the response may not be stored (Cache-Control: no-store, private or an uncacheable status)")
            }
            return .cached(response.source, bytes: response.data.count)
        } catch let error as ImageLoadError {
            switch error {
            case .invalidImage, .bodyTooLarge: return .refused(error.description)
            default: return .failed(error.description)
            }
        } catch {
            return .failed("\(error)")
        }
    }
}

/// What `warm` did, URL by URL.
struct WarmReport: Encodable {
    struct Problem: Encodable {
        var url: String
        var reason: String
    }

    var fetched = 0
    var revalidated = 0
    var alreadyCached = 0
    var bytes = 0
    var refused: [Problem] = []
    var failed: [Problem] = []

    var succeeded: Int { fetched + revalidated + alreadyCached }

    mutating func add(_ outcome: WarmRun.Outcome, for line: WarmList.Line) {
        let text: String
        switch line {
        case let .url(url): text = url.absoluteString
        case let .invalid(line): text = line
        }
        switch outcome {
        case let .cached(source, bytes):
            self.bytes += bytes
            switch source {
            case .network: fetched += 1
            case .revalidated: revalidated += 1
            case .memory, .disk, .stale: alreadyCached += 1
            }
        case let .refused(reason): refused.append(Problem(url: text, reason: reason))
        case let .failed(reason): failed.append(Problem(url: text, reason: reason))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(succeeded, forKey: .succeeded)
        try container.encode(fetched, forKey: .fetched)
        try container.encode(revalidated, forKey: .revalidated)
        try container.encode(alreadyCached, forKey: .alreadyCached)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(refused, forKey: .refused)
        try container.encode(failed, forKey: .failed)
    }

    private enum CodingKeys: String, CodingKey {
        case succeeded, fetched, revalidated, alreadyCached, bytes, refused, failed
    }

    func text() -> String {
        var text = "\(succeeded) cached (\(fetched) fetched, \(revalidated) revalidated, \(alreadyCached) already fresh; \(ByteSize.format(bytes))), \(refused.count) refused, \(failed.count) failed"
        for problem in refused { text += "\n  refused \(problem.url.displaySafe): \(problem.reason)" }
        for problem in failed { text += "\n  failed  \(problem.url.displaySafe): \(problem.reason)" }
        return text
    }
}
