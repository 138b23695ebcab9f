#if canImport(CVips)
import CVips
import Foundation
import ImageFormats

extension VipsDecoder {
    /// A BMP file or an icon: its pixels decoded and resampled in Swift (``BitmapSource``,
    /// ``PixelResampler``); an icon's PNG entry through libvips' PNG loader.
    static func decodeBitmap(_ data: Data, info: ImageInfo, processing: ImageProcessing) throws(ImageDecodingError) -> DecodedImage {
        switch try BitmapSource.of(data, info: info) {
        case let .png(png): try decodeEncoded(png, target: target(of: processing), frameCount: info.frameCount ?? 1)
        case let .pixels(image): try PixelResampler.resample(image, processing: processing)
        }
    }
}
#endif
