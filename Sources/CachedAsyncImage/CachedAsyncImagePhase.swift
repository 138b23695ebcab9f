#if canImport(SwiftUI)
import ImageCache
import SwiftUI

/// Where a ``CachedAsyncImage`` stands: SwiftUI's `AsyncImagePhase`, with the pipeline's typed error.
public enum CachedAsyncImagePhase {
    /// Nothing loaded yet.
    case empty
    /// The image, decoded off the main thread (downsampled when asked).
    case success(Image)
    /// The load failed.
    case failure(ImageLoadError)

    /// The image, when loaded.
    public var image: Image? {
        if case let .success(image) = self { return image }
        return nil
    }

    /// The error, when the load failed.
    public var error: ImageLoadError? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
#endif
