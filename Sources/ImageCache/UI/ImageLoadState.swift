import Foundation
import Observation

/// The observable state of one image load: what a view binds to, on any platform.
///
/// Unlike `AsyncImage`'s `.empty`, "nothing to load" (``Phase/idle``) and "loading" are different
/// phases, a failure carries its typed error, and a success says where the bytes came from.
/// Calling ``load(_:)`` again with the same request (a re-render) does nothing; the response lives
/// as long as this object, which is what ``CachePolicy/withViewCycle`` relies on.
///
/// ```swift
/// let state = ImageLoadState(pipeline: pipeline)
/// state.load(ImageRequest(url: url))
/// switch state.phase {
/// case .idle: placeholder
/// case .loading(let fraction): ProgressView(value: fraction)
/// case .success(let response): image(from: response.data)
/// case .failure(let error): Text(error.description)
/// }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
@Observable
public final class ImageLoadState {
    /// Where a load stands.
    public enum Phase: Sendable, Equatable {
        /// No request: nothing to show but a placeholder.
        case idle
        /// Loading; the fraction of the body received when the size is known.
        case loading(fractionCompleted: Double?)
        /// Loaded.
        case success(ImageResponse)
        /// Failed, with the reason.
        case failure(ImageLoadError)
    }

    /// The current phase.
    public private(set) var phase: Phase = .idle
    /// The request being shown, if any.
    public private(set) var request: ImageRequest?

    @ObservationIgnored private let pipeline: ImagePipeline
    @ObservationIgnored private var work: Task<Void, Never>?
    @ObservationIgnored private var generation = 0

    /// Creates an idle state that loads through `pipeline`.
    public init(pipeline: ImagePipeline) {
        self.pipeline = pipeline
    }

    deinit {
        work?.cancel()
    }

    /// Shows `request`: loads it unless it is already loaded or loading; nil returns to idle.
    public func load(_ request: ImageRequest?) {
        guard request != self.request || isFailed else { return }
        start(request)
    }

    /// Loads the current request again (after a failure, say).
    public func retry() {
        start(request)
    }

    /// Stops the load and returns to idle.
    public func cancel() {
        start(nil)
    }

    private var isFailed: Bool {
        if case .failure = phase { return true }
        return false
    }

    private func start(_ request: ImageRequest?) {
        work?.cancel()
        generation += 1
        let current = generation
        self.request = request
        guard let request else {
            phase = .idle
            return
        }
        // A memory hit is shown at once: no loading frame, no task, no hop off the main actor.
        if let response = pipeline.cachedImage(for: request) {
            work = nil
            phase = .success(response)
            return
        }
        phase = .loading(fractionCompleted: nil)
        let pipeline = pipeline
        work = Task { [weak self] in
            let outcome: Phase
            do {
                let response = try await pipeline.image(for: request) { received, expected in
                    guard let expected, expected > 0 else { return }
                    let fraction = min(1, Double(received) / Double(expected))
                    Task { @MainActor in self?.progress(fraction, generation: current) }
                }
                outcome = .success(response)
            } catch {
                outcome = .failure(ImageLoadError(error))
            }
            self?.finish(outcome, generation: current)
        }
    }

    private func progress(_ fraction: Double, generation: Int) {
        guard generation == self.generation, case .loading = phase else { return }
        phase = .loading(fractionCompleted: fraction)
    }

    private func finish(_ outcome: Phase, generation: Int) {
        // A superseded or cancelled load must not overwrite what replaced it.
        guard generation == self.generation else { return }
        phase = outcome
    }
}
