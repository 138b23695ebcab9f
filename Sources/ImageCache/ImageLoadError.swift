import CacheStorage
import Foundation

/// Why a load failed, with a sentence that says what to do about it.
public enum ImageLoadError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The bytes are not an acceptable image (never cached).
    case invalidImage(ImageValidationError)
    /// The origin answered with a status that is not an image.
    case httpStatus(Int)
    /// The network failed: the failure says whether retrying later may help, and keeps the
    /// transport's own error (`NetworkFailure.underlying`, `NetworkFailure.urlErrorCode`).
    case network(NetworkFailure)
    /// The body is larger than ``ImagePipeline/Configuration/maxBodyBytes``.
    case bodyTooLarge(limit: Int)
    /// Offline (or `only-if-cached`) and nothing usable is cached.
    case notCached(URL)
    /// The load was cancelled.
    case cancelled
    /// The disk tier failed.
    case storage(StorageFailure)
    /// The image was loaded but could not be decoded as the request's ``ImageRequest/processing``
    /// asks: damaged pixel data, an SVG too costly to render, a format no decoder here reads.
    case decodingFailed(ImageDecodingError)

    /// A storage failure: the store's error and its sentence.
    public struct StorageFailure: Sendable, Equatable {
        /// What the storage layer said.
        public var message: String
        /// The store's error (`diskFull`, `readOnly` …), to act on.
        public var error: StorageError
    }

    public var description: String {
        switch self {
        case let .invalidImage(error): "Refused: \(error)"
        case let .httpStatus(status): "The server answered \(status) instead of an image; check the URL and the server."
        case let .network(failure): "The network failed: \(failure)"
        case let .bodyTooLarge(limit): "The image is larger than the \(limit)-byte limit; raise maxBodyBytes to accept it."
        case let .notCached(url): "\(url.absoluteString) is not cached and the network is not allowed for this request."
        case .cancelled: "The load was cancelled."
        case let .storage(failure): "The disk cache failed: \(failure.message)"
        case let .decodingFailed(error): "\(error)"
        }
    }

    public var errorDescription: String? { description }
}
