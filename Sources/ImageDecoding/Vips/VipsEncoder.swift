#if canImport(CVips)
import CVips
import Foundation

/// Encoding on Linux: WebP and PNG with libvips, JPEG with libjpeg-turbo directly
/// (`LibJPEGEncoder`), metadata stripped.
public struct VipsEncoder: ImageEncoder {
    /// An encoder; libvips starts at the first encode.
    public init() {}

    public func encode(_ image: DecodedImage, as format: EncodedFormat, quality: Int) throws(ImageDecodingError) -> Data {
        if format == .jpeg { return try LibJPEGEncoder().encode(image, quality: quality) }
        try VipsRuntime.start()
        guard image.pixelFormat == .rgba8, image.bytesPerRow == image.pixelWidth * 4,
            image.pixels.count == image.bytesPerRow * image.pixelHeight
        else { throw .invalidProcessing("only tightly packed RGBA pixels are encoded here") }
        let quality = Int32(min(max(quality, 1), 100))
        let result = image.pixels.withUnsafeBytes { bytes in
            Result { () throws(ImageDecodingError) -> Data in
                guard let pointer = vips_image_new_from_memory_copy(
                    bytes.baseAddress, bytes.count, Int32(image.pixelWidth), Int32(image.pixelHeight), 4, VIPS_FORMAT_UCHAR)
                else { throw .corrupt(VipsRuntime.takeError()) }
                var source = VipsImageReference(pointer)
                source = try VipsImageReference.making(
                    { siv_copy_as_srgb(source.pointer, $0) }, failure: ImageDecodingError.corrupt)
                // An opaque image loses nothing without its alpha, and WebP then stores none.
                if format == .webp && image.isOpaque {
                    source = try VipsImageReference.making({ siv_drop_alpha(source.pointer, $0) }, failure: ImageDecodingError.corrupt)
                }
                var buffer: UnsafeMutableRawPointer?
                var length = 0
                let status: Int32 =
                    switch format {
                    case .webp: siv_webpsave_buffer(source.pointer, &buffer, &length, quality)
                    case .jpeg: -1  // encoded above
                    case .png: siv_pngsave_buffer(source.pointer, &buffer, &length)
                    }
                guard status == 0, let buffer else { throw .corrupt(VipsRuntime.takeError()) }
                return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in g_free(pointer) })
            }
        }
        return try result.get()
    }
}
#endif
