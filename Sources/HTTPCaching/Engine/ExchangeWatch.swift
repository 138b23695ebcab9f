/// Holds one fetch to its bounds: a total deadline, counted from the first attempt's start and
/// across retries, and a minimum transfer rate, judged over whole windows after the head arrived.
///
/// Each awaited step of the exchange (sending for the head, reading the body) runs beside a
/// watchdog task that sleeps until the next moment a bound could be broken; when one is, the step
/// is cancelled (which the transport turns into a closed connection) and
/// ``FetchBoundExceeded`` is thrown, so the fetch slot is given back at the bound instead of
/// whenever the origin chooses to finish. Without bounds the steps run as they are, with no task.
final class ExchangeWatch: Sendable {
    private struct State {
        var deadlineInstant: ContinuousClock.Instant?
        var windowStart: ContinuousClock.Instant?
        var bytesAtWindowStart = 0
        var receivedBytes = 0
    }

    private let deadline: Duration?
    private let minimumRate: MinimumTransferRate?
    private let state = Mutex(State())

    init(deadline: Duration?, minimumRate: MinimumTransferRate?) {
        self.deadline = deadline
        self.minimumRate = minimumRate
    }

    private var isBounded: Bool { deadline != nil || minimumRate != nil }

    /// Runs `step` under the bounds: its result, or ``FetchBoundExceeded`` once a bound is broken.
    func run<Result: Sendable>(_ step: @escaping @Sendable () async throws -> Result) async throws -> Result {
        guard isBounded else { return try await step() }
        let now = ContinuousClock.now
        state.withLock { state in
            if state.deadlineInstant == nil, let deadline { state.deadlineInstant = now + deadline }
        }
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await step() }
            group.addTask {
                try await self.patrol()
                return nil
            }
            defer { group.cancelAll() }
            while let finished = try await group.next() {
                if let finished { return finished }
            }
            throw CancellationError()
        }
    }

    /// The response head has arrived: the rate's windows start now.
    func headArrived() {
        guard minimumRate != nil else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            state.windowStart = now
            state.bytesAtWindowStart = state.receivedBytes
        }
    }

    /// `totalBytes` of the body have arrived so far.
    func received(totalBytes: Int) {
        guard minimumRate != nil else { return }
        state.withLock { $0.receivedBytes = totalBytes }
    }

    /// Sleeps until each moment a bound could be broken, and throws when one is.
    private func patrol() async throws {
        while true {
            let next = try state.withLock { state in try check(&state, now: .now) }
            guard let next else { return }
            try await Task.sleep(until: next, clock: .continuous)
        }
    }

    /// Throws if a bound is broken at `now`; else the next moment to look again (nil: never).
    private func check(_ state: inout State, now: ContinuousClock.Instant) throws -> ContinuousClock.Instant? {
        if let deadline, let instant = state.deadlineInstant, now >= instant {
            throw FetchBoundExceeded.deadline(deadline)
        }
        var windowEnd: ContinuousClock.Instant?
        if let minimumRate, let start = state.windowStart {
            var end = start + minimumRate.window
            if now >= end {
                let received = state.receivedBytes - state.bytesAtWindowStart
                if received < minimumRate.bytesPerWindow {
                    throw FetchBoundExceeded.tooSlow(receivedBytes: received, window: minimumRate.window, minimum: minimumRate)
                }
                state.windowStart = now
                state.bytesAtWindowStart = state.receivedBytes
                end = now + minimumRate.window
            }
            windowEnd = end
        }
        switch (state.deadlineInstant, windowEnd) {
        case let (deadline?, window?): return min(deadline, window)
        case let (deadline, window): return deadline ?? window
        }
    }
}
