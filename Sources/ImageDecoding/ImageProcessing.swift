/// What to make of an image's bytes: the image as it is, or a smaller one for the view that shows it.
///
/// Each has a stable ``identifier``, which names it in cache keys: a variant stored under it is found
/// again by a later process.
public enum ImageProcessing: Sendable, Hashable {
    /// The whole image, at its own size.
    case original
    /// At most `maxPixelSize` pixels on its longer side, aspect ratio kept; never enlarged.
    case thumbnail(maxPixelSize: Int)
    /// Scaled to `width` × `height` pixels as `mode` says; never enlarged.
    case resized(width: Int, height: Int, mode: ContentMode)

    /// How an image meets a target size.
    public enum ContentMode: String, Sendable, Hashable {
        /// Inside the size, aspect ratio kept: one side may come out shorter.
        case fit
        /// Covering the size, aspect ratio kept, centred and cropped to it.
        case fill
    }

    /// A target given in points, as a view knows it: `width` × `height` points at `scale` pixels per
    /// point, rounded up to whole pixels.
    public static func resized(toPoints width: Double, _ height: Double, scale: Double, mode: ContentMode) -> Self {
        .resized(width: Int((width * scale).rounded(.up)), height: Int((height * scale).rounded(.up)), mode: mode)
    }

    /// Throws when the processing cannot be done: a size of zero or less.
    func checkPossible() throws(ImageDecodingError) {
        switch self {
        case .original:
            return
        case let .thumbnail(maxPixelSize):
            guard maxPixelSize > 0 else { throw .invalidProcessing("a thumbnail's maximum pixel size must be positive") }
        case let .resized(width, height, _):
            guard width > 0, height > 0 else { throw .invalidProcessing("a size of \(width) × \(height) pixels") }
        }
    }

    /// A short name that says exactly what the processing is: `original`, `max256`, `fit120x80`,
    /// `fill120x80`. Stable across versions: stored variants are keyed by it.
    public var identifier: String {
        switch self {
        case .original: "original"
        case let .thumbnail(maxPixelSize): "max\(maxPixelSize)"
        case let .resized(width, height, mode): "\(mode.rawValue)\(width)x\(height)"
        }
    }
}
