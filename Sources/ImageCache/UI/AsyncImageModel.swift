import Foundation
import Observation

/// What `CachedAsyncImage` shows, decided without SwiftUI: which request a view's URL, policy and
/// size make, when a new layout size is worth a new decode, and the phase to draw. The SwiftUI view
/// (Apple platforms only) draws ``phase`` and reports its URL and size here; everything it decides
/// lives in this type and is tested on every platform.
///
/// A view's size changes during layout and animation. A decode per change would thrash, so the
/// model asks for a new size only when the view has grown past what the loaded image covers;
/// a smaller view keeps the image it has (the renderer scales it down). Until the view has a size,
/// a downsampling model loads nothing: the size decides what is decoded.
///
/// ```swift
/// let model = AsyncImageModel(pipeline: .shared)
/// model.show(url, scale: 2, downsampling: .fill, pointSize: (width: 120, height: 80))
/// if case .success(let image, _) = model.phase { draw(image) }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
@Observable
public final class AsyncImageModel {
    /// What the view shows: SwiftUI `AsyncImagePhase`'s three cases, with the pipeline's types.
    public enum Phase: Sendable, Equatable {
        /// Nothing yet: no URL, no size to decode for, or loading.
        case empty
        /// The decoded image, with the response it came in.
        case success(DecodedImage, ImageResponse)
        /// The load failed.
        case failure(ImageLoadError)
    }

    /// The phase to draw.
    public var phase: Phase {
        switch state.phase {
        case .idle, .loading: .empty
        case let .success(response):
            // A processed request's response always carries its pixels.
            response.decoded.map { .success($0, response) } ?? .failure(.decodingFailed(.decoderUnavailable("no pixels")))
        case let .failure(error): .failure(error)
        }
    }

    /// The request being shown; nil before the first ``show(_:scale:policy:downsampling:pointSize:)``
    /// with a URL and, when downsampling, a size.
    public var request: ImageRequest? { state.request }

    @ObservationIgnored private let state: ImageLoadState
    /// The pixel box the current request decodes to, when downsampling.
    @ObservationIgnored private var loadedBox: (width: Int, height: Int)?

    /// A model that loads through `pipeline`.
    public init(pipeline: ImagePipeline) {
        state = ImageLoadState(pipeline: pipeline)
    }

    /// Shows `url`, decoded, under `policy`: at its own size, or with `downsampling` to the view's
    /// `pointSize` at `scale` pixels per point. Called on every render; it loads only when the
    /// request would change (another URL or policy, or a view grown past the image it has).
    public func show(
        _ url: URL?, scale: Double = 1, policy: CachePolicy = .persistent(),
        downsampling: ImageProcessing.ContentMode? = nil, pointSize: (width: Double, height: Double)? = nil
    ) {
        guard let url else {
            loadedBox = nil
            state.load(nil)
            return
        }
        guard let mode = downsampling else {
            loadedBox = nil
            state.load(Self.request(url, policy: policy, processing: .original))
            return
        }
        guard let box = Self.pixelBox(pointSize, scale: scale) else { return }  // no layout yet
        if let current = state.request, current.url == url, current.policy == policy, let loadedBox,
            case let .resized(_, _, loadedMode)? = current.processing, loadedMode == mode,
            box.width <= loadedBox.width, box.height <= loadedBox.height
        {
            state.load(current)  // covered already: keeps it (and retries it after a failure)
            return
        }
        loadedBox = box
        state.load(Self.request(url, policy: policy, processing: .resized(width: box.width, height: box.height, mode: mode)))
    }

    /// Loads the current request again (after a failure).
    public func retry() {
        state.retry()
    }

    /// The request a view makes for `url`: decoded as `processing` says, under `policy`.
    static func request(_ url: URL, policy: CachePolicy, processing: ImageProcessing) -> ImageRequest {
        var request = ImageRequest(url: url, policy: policy)
        request.processing = processing
        return request
    }

    /// `pointSize` at `scale` in whole pixels, rounded up; nil while a side is zero or unknown (a
    /// view before layout), or not a finite positive number.
    static func pixelBox(_ pointSize: (width: Double, height: Double)?, scale: Double) -> (width: Int, height: Int)? {
        guard let pointSize, scale.isFinite, scale > 0 else { return nil }
        let width = pointSize.width * scale
        let height = pointSize.height * scale
        guard width.isFinite, height.isFinite, width >= 1, height >= 1, max(width, height) <= 1e6 else { return nil }
        return (Int(width.rounded(.up)), Int(height.rounded(.up)))
    }
}
