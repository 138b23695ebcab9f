#if canImport(CVips)
import CVips
import Foundation
import ImageFormats

/// Decoding with libvips, the engine behind sharp and imgproxy: shrink-on-load for JPEG and WebP
/// (a thumbnail of a large photo never decodes it whole), HEIF and AVIF through libheif, conversion
/// to sRGB through the embedded ICC profile, EXIF orientation applied, Lanczos resampling.
///
/// The bytes are first validated for decoding (`ImageValidator.validateForDecoding(_:)`: a PNG's
/// zlib stream, a GIF's LZW codes, what an SVG would draw), because libvips' loaders are lenient:
/// they show a damaged image as far as it goes. Loads then run with `fail_on=error`, so a decoder
/// error is an error rather than a grey band where the damage starts.
///
/// libvips has no loader of its own for BMP files and icons, only ImageMagick's, which the
/// runtime's allowlist blocks: their pixels are decoded in Swift, then resampled by libvips as any
/// other image's are.
public struct VipsDecoder: ImageDecoder {
    /// A decoder; libvips starts at the first decode.
    public init() {}

    public func decode(
        _ data: Data, processing: ImageProcessing, maxPixelCount: Int
    ) throws(ImageDecodingError) -> DecodedImage {
        let info = try ImageValidator.forDecoding(data, processing: processing, maxPixelCount: maxPixelCount)
        return try decode(validated: data, info: info, processing: processing)
    }

    /// Decodes bytes already validated for decoding, which `info` describes: what a decode worker
    /// runs for the app, which validated them before it sent them.
    func decode(validated data: Data, info: ImageInfo, processing: ImageProcessing) throws(ImageDecodingError) -> DecodedImage {
        try VipsRuntime.start()
        let target = try Self.target(of: processing)
        switch info.format {
        case .bmp, .ico:
            return try Self.decodeBitmap(data, info: info, processing: processing)
        case .svg:
            return try Self.withBytes(of: data) { base, count throws(ImageDecodingError) in
                try Self.render(base, count: count, target: target, size: info)
            }
        default:
            return try Self.decodeEncoded(data, target: target)
        }
    }

    /// The box an image is fitted into (or, cropping, fills).
    typealias Target = (width: Int32, height: Int32, crop: Bool)

    /// Options for every loader: errors are errors.
    private static let loadOptions = "fail_on=error"

    /// `data` decoded by the libvips loader its bytes call for, processed for `target`.
    static func decodeEncoded(_ data: Data, target: Target, frameCount: Int? = nil) throws(ImageDecodingError) -> DecodedImage {
        try withBytes(of: data) { base, count throws(ImageDecodingError) in
            try decode(base, count: count, target: target, frameCount: frameCount)
        }
    }

    /// `body` given the address and count of `data`'s bytes, which libvips reads lazily while the
    /// pixels are written out: all of it happens inside.
    private static func withBytes(
        of data: Data, _ body: (UnsafeRawPointer, Int) throws(ImageDecodingError) -> DecodedImage
    ) throws(ImageDecodingError) -> DecodedImage {
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageDecodingError) -> DecodedImage in
                guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .corrupt("no bytes") }
                return try body(base, bytes.count)
            }
        }
        return try result.get()
    }

    /// The box libvips' thumbnail fits (or, cropping, fills); the original is a box no image reaches.
    static func target(of processing: ImageProcessing) throws(ImageDecodingError) -> Target {
        try processing.checkPossible()
        let unbounded = Int32(VIPS_MAX_COORD)
        switch processing {
        case .original:
            return (unbounded, unbounded, false)
        case let .thumbnail(maxPixelSize):
            let side = Int32(clamping: maxPixelSize)
            return (side, side, false)
        case let .resized(width, height, mode):
            return (Int32(clamping: width), Int32(clamping: height), mode == .fill)
        }
    }

    /// `frameCount` replaces the loader's page count (an icon's PNG entry counts the icon's entries).
    private static func decode(
        _ base: UnsafeRawPointer, count: Int, target: Target, frameCount: Int?
    ) throws(ImageDecodingError) -> DecodedImage {
        // The header (the validator has held its size to the pixel limit already), for the
        // orientation and the page count: nothing is decoded yet.
        guard let headerPointer = siv_header_from_buffer(base, count, loadOptions) else { throw classify(VipsRuntime.takeError()) }
        let header = VipsImageReference(headerPointer)
        // What the image measures upright; a target it already fits is decoded whole, not resampled.
        let swaps = vips_image_get_orientation_swap(header.pointer) != 0
        let upright = swaps ? (width: header.height, height: header.width) : (width: header.width, height: header.height)
        var image: VipsImageReference
        if upright.width <= Int(target.width), upright.height <= Int(target.height) {
            image = try whole(base, count: count)
        } else {
            image = try toSRGB(
                VipsImageReference.making(
                    { siv_thumbnail_buffer(base, count, $0, target.width, target.height, target.crop ? 1 : 0, 0, loadOptions) },
                    failure: classify))
        }
        return try pixels(of: image, frameCount: frameCount ?? header.pageCount)
    }

    /// An SVG rendered at the size the validator gives it (CSS pixels, 96 per inch, as browsers
    /// size it), or within the target when that is smaller: librsvg's own default (72 per inch)
    /// would disagree with the size the pipeline reports for absolute units.
    private static func render(
        _ base: UnsafeRawPointer, count: Int, target: Target, size: ImageInfo
    ) throws(ImageDecodingError) -> DecodedImage {
        let scale = min(1, Double(target.width) / Double(size.pixelWidth), Double(target.height) / Double(size.pixelHeight))
        let fitted = target.crop ? (width: min(Int(target.width), size.pixelWidth), height: min(Int(target.height), size.pixelHeight))
            : (width: max(1, Int((Double(size.pixelWidth) * scale).rounded())), height: max(1, Int((Double(size.pixelHeight) * scale).rounded())))
        let image = try VipsImageReference.making(
            { siv_thumbnail_buffer(base, count, $0, Int32(fitted.width), Int32(fitted.height), target.crop ? 1 : 0, 1, loadOptions) },
            failure: classify)
        return try pixels(of: image, frameCount: 1)
    }

    /// `image`'s pixels as 8-bit sRGB RGBA, computed now (the load and every step run here).
    static func pixels(of image: VipsImageReference, frameCount: Int) throws(ImageDecodingError) -> DecodedImage {
        let image = try rgba8(image)
        var size = 0
        guard let memory = vips_image_write_to_memory(image.pointer, &size) else { throw classify(VipsRuntime.takeError()) }
        let bytes = Data(bytesNoCopy: memory, count: size, deallocator: .custom { pointer, _ in g_free(pointer) })
        guard size == image.width * image.height * 4 else {
            throw .corrupt("libvips wrote \(size) bytes for \(image.width) × \(image.height) pixels")
        }
        return DecodedImage(
            pixelWidth: image.width, pixelHeight: image.height, pixelFormat: .rgba8, bytesPerRow: image.width * 4,
            pixels: bytes, frameCount: max(1, frameCount))
    }

    /// The image decoded at its own size: its embedded ICC profile converted to sRGB, EXIF
    /// orientation applied.
    private static func whole(_ base: UnsafeRawPointer, count: Int) throws(ImageDecodingError) -> VipsImageReference {
        guard let pointer = siv_load_buffer(base, count, loadOptions) else { throw classify(VipsRuntime.takeError()) }
        let image = try toSRGB(VipsImageReference(pointer))
        return try VipsImageReference.making({ siv_autorot(image.pointer, $0) }, failure: classify)
    }

    /// `image` converted to sRGB through its embedded ICC profile, when it has one.
    private static func toSRGB(_ image: VipsImageReference) throws(ImageDecodingError) -> VipsImageReference {
        guard vips_image_get_typeof(image.pointer, VIPS_META_ICC_NAME) != 0 else { return image }
        return try VipsImageReference.making({ siv_icc_to_srgb(image.pointer, $0) }, failure: classify)
    }

    /// `image` as 8-bit sRGB with alpha: grey, 16-bit and CMYK images converted, opaque ones given
    /// an alpha channel.
    private static func rgba8(_ image: VipsImageReference) throws(ImageDecodingError) -> VipsImageReference {
        var image = try VipsImageReference.making({ siv_colourspace_srgb(image.pointer, $0) }, failure: classify)
        if vips_image_get_format(image.pointer) != VIPS_FORMAT_UCHAR {
            image = try VipsImageReference.making({ siv_cast_uchar(image.pointer, $0) }, failure: classify)
        }
        if image.bands == 3 {
            image = try VipsImageReference.making({ siv_addalpha(image.pointer, $0) }, failure: classify)
        }
        guard image.bands == 4 else { throw .corrupt("\(image.bands) channels after conversion to sRGB") }
        return image
    }

    /// libvips' message as the error it is: an unknown format, or damage.
    static func classify(_ message: String) -> ImageDecodingError {
        message.contains("not in a known format") ? .unsupportedFormat(message) : .corrupt(message)
    }
}
#endif
