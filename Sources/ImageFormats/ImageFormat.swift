/// An image format the cache recognises from its bytes, whatever the URL or `Content-Type` claims.
public enum ImageFormat: String, Sendable, CaseIterable {
    /// Portable Network Graphics, including animated PNG.
    case png
    /// JPEG (JFIF or EXIF), baseline or progressive.
    case jpeg
    /// GIF87a or GIF89a, still or animated.
    case gif
    /// WebP: lossy (VP8), lossless (VP8L) or extended (VP8X, possibly animated).
    case webp
    /// HEIF images coded with HEVC (`.heic`).
    case heic
    /// HEIF images coded with AV1 (`.avif`).
    case avif
    /// Windows bitmap.
    case bmp
    /// Tagged Image File Format (classic TIFF, not BigTIFF).
    case tiff
    /// Windows icon: a directory of BMP or PNG images.
    case ico
    /// Scalable Vector Graphics, plain or gzip-compressed (SVGZ).
    case svg

    /// The usual file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        default: rawValue
        }
    }

    /// The registered media type, as a server should send it in `Content-Type`.
    public var mimeType: String {
        switch self {
        case .ico: "image/vnd.microsoft.icon"
        case .svg: "image/svg+xml"
        default: "image/\(rawValue)"
        }
    }

    /// The name people write, for messages ("PNG", "WebP").
    var displayName: String {
        switch self {
        case .webp: "WebP"
        default: rawValue.uppercased()
        }
    }
}
