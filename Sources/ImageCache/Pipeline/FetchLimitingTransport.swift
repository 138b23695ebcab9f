import Foundation

/// The pipeline's transport: the configured one, with at most ``ImagePipeline/Configuration/maxConcurrentFetches``
/// exchanges at once. A waiting exchange gets a slot by the priority of the task that sends it (the
/// load's ``ImageRequest/Priority``), and keeps it until its body has been received.
struct FetchLimitingTransport: HTTPTransport {
    let base: any HTTPTransport
    let slots: FetchSlots

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await slots.acquire(priority: ImageRequest.Priority(Task.currentPriority))
        var response: TransportResponse
        do {
            response = try await base.send(request)
        } catch {
            await slots.release()
            throw error
        }
        response.body = Self.releasing(slots, after: response.body)
        return response
    }

    /// `body`, forwarded as it arrives; the slot is released once it ends, fails, or is abandoned.
    private static func releasing(
        _ slots: FetchSlots, after body: AsyncThrowingStream<Data, any Error>
    ) -> AsyncThrowingStream<Data, any Error> {
        let (forwarded, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let forwarding = Task {
            do {
                for try await chunk in body { continuation.yield(chunk) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
            await slots.release()
        }
        // A reader that stops early cancels the forwarding, which cancels the transfer below.
        continuation.onTermination = { _ in forwarding.cancel() }
        return forwarded
    }
}

extension ImageRequest.Priority {
    /// The request priority a task runs at: loads run at their request's ``taskPriority``.
    init(_ priority: TaskPriority) {
        if priority >= .high {
            self = .high
        } else if priority <= .low {
            self = .low
        } else {
            self = .normal
        }
    }
}
