#if canImport(CVips)
import CVips
import Foundation
import ImageFormats

extension VipsDecoder {
    /// A BMP file or an icon: its pixels decoded in Swift (``BitmapSource``), then resampled by
    /// libvips as every other format is; an icon's PNG entry through libvips' PNG loader.
    static func decodeBitmap(_ data: Data, info: ImageInfo, target: Target) throws(ImageDecodingError) -> DecodedImage {
        switch try BitmapSource.of(data, info: info) {
        case let .png(png): try decodeEncoded(png, target: target, frameCount: info.frameCount ?? 1)
        case let .pixels(image): try resampled(image, target: target)
        }
    }

    /// `image` fitted into (or, cropping, filling) `target` by libvips' thumbnail, never enlarged;
    /// as it is when it already fits.
    private static func resampled(_ image: DecodedImage, target: Target) throws(ImageDecodingError) -> DecodedImage {
        guard image.pixelWidth > Int(target.width) || image.pixelHeight > Int(target.height) else { return image }
        let result = image.pixels.withUnsafeBytes { bytes in
            Result { () throws(ImageDecodingError) -> DecodedImage in
                guard let pointer = vips_image_new_from_memory_copy(
                    bytes.baseAddress, bytes.count, Int32(image.pixelWidth), Int32(image.pixelHeight), 4, VIPS_FORMAT_UCHAR)
                else { throw classify(VipsRuntime.takeError()) }
                let memory = VipsImageReference(pointer)
                // Tagged sRGB, the fourth band is alpha: the thumbnail premultiplies it while it
                // resamples, in floating point. An opaque image leaves its alpha out, and is
                // given it back after.
                var source = try VipsImageReference.making({ siv_copy_as_srgb(memory.pointer, $0) }, failure: classify)
                if image.isOpaque {
                    source = try VipsImageReference.making({ [source] in siv_drop_alpha(source.pointer, $0) }, failure: classify)
                }
                let thumbnail = try VipsImageReference.making(
                    { siv_thumbnail_image(source.pointer, $0, target.width, target.height, target.crop ? 1 : 0) }, failure: classify)
                return try pixels(of: thumbnail, frameCount: image.frameCount)
            }
        }
        return try result.get()
    }
}
#endif
