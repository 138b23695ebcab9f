#if canImport(SwiftUI)
import ImageCache
import SwiftUI

/// SwiftUI's `AsyncImage` with a cache behind it: the same initialisers, plus the cache `policy`
/// and the `pipeline` to load through (``ImagePipeline/shared`` by default), and optionally
/// `downsampling` to the view's size, so a photo shown in a small cell is decoded small.
///
/// An image in the pipeline's memory tier is drawn in the first frame, without a placeholder. All
/// of the view's decisions (the request, when a new size needs a new decode, the phase) are made by
/// `AsyncImageModel`, which is platform-neutral and tested on Linux; this view only draws.
///
/// ```swift
/// CachedAsyncImage(url: avatarURL, downsampling: .fill) { image in
///     image.resizable().scaledToFill()
/// } placeholder: {
///     Color.gray.opacity(0.2)
/// }
/// .frame(width: 48, height: 48)
/// .clipShape(Circle())
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public struct CachedAsyncImage<Content: View>: View {
    @State private var model: AsyncImageModel
    @State private var pointSize: CGSize = .zero
    private let url: URL?
    private let scale: CGFloat
    private let policy: CachePolicy
    private let downsampling: ImageProcessing.ContentMode?
    private let transaction: Transaction
    private let content: (CachedAsyncImagePhase) -> Content

    /// The image at `url`, or a grey placeholder until it loads.
    public init(
        url: URL?, scale: CGFloat = 1, policy: CachePolicy = .persistent(), pipeline: ImagePipeline = .shared,
        downsampling: ImageProcessing.ContentMode? = nil
    ) where Content == _ConditionalContent<Image, Color> {
        self.init(url: url, scale: scale, policy: policy, pipeline: pipeline, downsampling: downsampling) { image in
            image
        } placeholder: {
            Color.gray.opacity(0.2)
        }
    }

    /// The image at `url` as `content` shows it, `placeholder` until it loads (and after a failure).
    public init<I: View, P: View>(
        url: URL?, scale: CGFloat = 1, policy: CachePolicy = .persistent(), pipeline: ImagePipeline = .shared,
        downsampling: ImageProcessing.ContentMode? = nil, @ViewBuilder content: @escaping (Image) -> I,
        @ViewBuilder placeholder: @escaping () -> P
    ) where Content == _ConditionalContent<I, P> {
        self.init(url: url, scale: scale, transaction: Transaction(), policy: policy, pipeline: pipeline, downsampling: downsampling) {
            phase in
            if let image = phase.image {
                content(image)
            } else {
                placeholder()
            }
        }
    }

    /// The image at `url`, each phase shown as `content` says; a phase change is applied with
    /// `transaction` (its animation, say).
    public init(
        url: URL?, scale: CGFloat = 1, transaction: Transaction = Transaction(), policy: CachePolicy = .persistent(),
        pipeline: ImagePipeline = .shared, downsampling: ImageProcessing.ContentMode? = nil,
        @ViewBuilder content: @escaping (CachedAsyncImagePhase) -> Content
    ) {
        _model = State(initialValue: AsyncImageModel(pipeline: pipeline))
        self.url = url
        self.scale = scale
        self.policy = policy
        self.downsampling = downsampling
        self.transaction = transaction
        self.content = content
    }

    public var body: some View {
        content(phase)
            .animation(transaction.animation, value: phaseIdentity)
            .background {
                if downsampling != nil {
                    GeometryReader { proxy in
                        Color.clear
                            .onAppear { pointSize = proxy.size }
                            .onChange(of: proxy.size) { _, size in pointSize = size }
                    }
                }
            }
            .onAppear(perform: show)
            .onChange(of: url) { show() }
            .onChange(of: pointSize) { show() }
    }

    private func show() {
        model.show(
            url, scale: Double(scale), policy: policy, downsampling: downsampling,
            pointSize: downsampling == nil ? nil : (Double(pointSize.width), Double(pointSize.height)))
    }

    /// The model's phase as SwiftUI draws it.
    private var phase: CachedAsyncImagePhase {
        switch model.phase {
        case .empty: .empty
        case let .success(decoded, _):
            // `scale` pixels per point: a downsampled decode was made at the view's size × scale.
            decoded.cgImage.map { .success(Image(decorative: $0, scale: scale)) }
                ?? .failure(.decodingFailed(.decoderUnavailable("the pixels could not be wrapped as a CGImage")))
        case let .failure(error): .failure(error)
        }
    }

    /// Changes whenever the phase changes kind or image: what the transaction animates.
    private var phaseIdentity: Int {
        var hasher = Hasher()
        hasher.combine(model.request)
        switch model.phase {
        case .empty: hasher.combine(0)
        case .success: hasher.combine(1)
        case .failure: hasher.combine(2)
        }
        return hasher.finalize()
    }
}
#endif
