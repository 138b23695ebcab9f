import Foundation
import ImageCache
import LoopbackOrigin
import Observation
import TestSupport
import Testing

@Suite("ImageLoadState")
@MainActor
struct ImageLoadStateTests {
    nonisolated static let png = TestImages.png(seed: 5)

    /// Waits (bounded) until the phase leaves `.loading`.
    func settled(_ state: ImageLoadState) async throws -> ImageLoadState.Phase {
        for _ in 0..<3000 {
            if case .loading = state.phase {
                try await Task.sleep(for: .milliseconds(10))
                continue
            }
            return state.phase
        }
        return state.phase
    }

    @Test("idle, then loading, then success; a re-render with the same request does not refetch")
    func phases() async throws {
        let fixture = try await PipelineFixture { _ in
            OriginResponse(headers: headers(("Cache-Control", "no-store")), body: ImageLoadStateTests.png, delay: .milliseconds(50))
        }
        let state = ImageLoadState(pipeline: fixture.pipeline)
        #expect(state.phase == .idle)
        let request = fixture.request("/v.png", policy: .withViewCycle)
        state.load(request)
        #expect(state.phase == .loading(fractionCompleted: nil))
        guard case let .success(response) = try await settled(state) else {
            Issue.record("expected success, got \(state.phase)")
            return
        }
        #expect(response.data == Self.png)
        #expect(response.source == .network)
        state.load(request)
        #expect(state.phase == .success(response))
        #expect(fixture.originHits("/v.png") == 1)
        state.load(nil)
        #expect(state.phase == .idle)
    }

    @Test("an image already in memory is a success at once, with no loading phase")
    func memoryHitFirstFrame() async throws {
        let fixture = try await PipelineFixture { _ in
            OriginResponse(headers: headers(("Cache-Control", "max-age=3600")), body: ImageLoadStateTests.png)
        }
        let request = fixture.request("/m.png")
        _ = try await fixture.pipeline.image(for: request)
        let state = ImageLoadState(pipeline: fixture.pipeline)
        state.load(request)
        guard case let .success(response) = state.phase else {
            Issue.record("expected an immediate success, got \(state.phase)")
            return
        }
        #expect(response.source == .memory)
        #expect(fixture.originHits("/m.png") == 1)
    }

    @Test("a refused body is a failure with its typed error; retry loads again")
    func failure() async throws {
        let fixture = try await PipelineFixture { _ in
            OriginResponse(headers: headers(), body: Data("{\"error\": \"quota\"}".utf8))
        }
        let state = ImageLoadState(pipeline: fixture.pipeline)
        state.load(fixture.request("/e.png"))
        guard case .failure(.invalidImage) = try await settled(state) else {
            Issue.record("expected an invalid-image failure, got \(state.phase)")
            return
        }
        state.retry()
        _ = try await settled(state)
        #expect(fixture.originHits("/e.png") == 2)
    }

    @Test("cancel returns to idle at once; the cancelled load's own end does not replace it")
    func cancel() async throws {
        let fixture = try await PipelineFixture { _ in
            OriginResponse(headers: headers(), body: ImageLoadStateTests.png, delay: .milliseconds(300))
        }
        let state = ImageLoadState(pipeline: fixture.pipeline)
        state.load(fixture.request("/slow.png"))
        try await Task.sleep(for: .milliseconds(30))
        state.cancel()
        #expect(state.phase == .idle)
        try await Task.sleep(for: .milliseconds(400))
        #expect(state.phase == .idle)
    }

    @Test("a result that is already on its way when cancel comes never overwrites the idle state")
    func lateResultAfterCancel() async throws {
        let fixture = try await PipelineFixture { _ in
            OriginResponse(headers: headers(), body: ImageLoadStateTests.png, delay: .milliseconds(200))
        }
        let pipeline = fixture.pipeline
        let request = fixture.request("/late.png", policy: .duringAppSession)
        let state = ImageLoadState(pipeline: pipeline)
        state.load(request)
        // The state's load task runs on this (main) actor: let it start and join the fetch.
        for _ in 0..<2500 where pipeline.loadsInFlight == 0 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(pipeline.loadsInFlight == 1)
        // The request has reached the origin before the main actor is held, so that what is left
        // of the load (the answer, its validation) runs off it on a loaded machine too.
        for _ in 0..<5000 where fixture.originHits("/late.png") == 0 { try await Task.sleep(for: .milliseconds(2)) }
        // A second caller joins the same load; it returning proves the load has answered its waiters.
        let answered = Locked(false)
        let companion = Task.detached {
            _ = try? await pipeline.image(for: request)
            answered.set(true)
        }
        // Held without suspending: the state's task has its successful result, but cannot hand it
        // to the main actor before cancel runs.
        Self.blockMainActor(until: answered)
        #expect(answered.get(), "the load never answered")
        state.cancel()
        #expect(state.phase == .idle)
        await companion.value
        try await Task.sleep(for: .milliseconds(100))
        #expect(state.phase == .idle, "the cancelled load's late success was shown")
        #expect(fixture.originHits("/late.png") == 1)
    }

    /// Waits (up to 30 s) for `flag` by sleeping this thread, plus a margin for the waiters the
    /// same answer resumes at the same moment.
    nonisolated static func blockMainActor(until flag: Locked) {
        for _ in 0..<6000 where !flag.get() { usleep(5_000) }
        usleep(50_000)
    }

    @Test("observers are told when the phase changes")
    func observation() async throws {
        let fixture = try await PipelineFixture { _ in OriginResponse(headers: headers(), body: ImageLoadStateTests.png) }
        let state = ImageLoadState(pipeline: fixture.pipeline)
        let changed = Locked(false)
        withObservationTracking { _ = state.phase } onChange: { changed.set(true) }
        state.load(fixture.request("/o.png"))
        #expect(changed.get())
    }
}

/// A flag set from an observation callback.
final class Locked: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Bool
    init(_ value: Bool) { self.value = value }
    func set(_ newValue: Bool) { lock.withLock { value = newValue } }
    func get() -> Bool { lock.withLock { value } }
}
