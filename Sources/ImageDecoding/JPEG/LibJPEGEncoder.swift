#if canImport(CJPEG)
import CJPEG
import Foundation

/// JPEG encoding with libjpeg-turbo called directly: pixels in, a baseline JPEG out, no metadata.
/// A thumbnail is small, and libvips' per-operation setup (an image object, its copy to sRGB, the
/// band extraction, its saver's options) cost several times the compression itself.
///
/// It encodes only pixels this process made, so it runs in the caller's process; libjpeg's
/// errors come back as ``ImageDecodingError`` (``CJPEG`` lands its `error_exit` in the shim).
struct LibJPEGEncoder {
    /// `image`'s pixels, tightly packed RGBA, as a JPEG of `quality` (clamped to 1...100); alpha is
    /// dropped. What JPEG cannot hold (an empty image, a side over 65,500 pixels) is libjpeg's to
    /// refuse, with its own message.
    func encode(_ image: DecodedImage, quality: Int) throws(ImageDecodingError) -> Data {
        guard image.pixelFormat == .rgba8, image.bytesPerRow == image.pixelWidth * 4,
            image.pixels.count == image.bytesPerRow * image.pixelHeight,
            image.pixelWidth <= Int32.max, image.pixelHeight <= Int32.max
        else { throw .invalidProcessing("only tightly packed RGBA pixels are encoded as JPEG") }
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = image.pixels.withUnsafeBytes { bytes in
            sij_encode_rgba(
                bytes.bindMemory(to: UInt8.self).baseAddress, Int32(image.pixelWidth), Int32(image.pixelHeight),
                Int32(min(max(quality, 1), 100)), &output, &length, &message, message.count)
        }
        guard status == 0, let output else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .invalidProcessing("libjpeg could not encode the image: \(reason)")
        }
        return Data(bytesNoCopy: output, count: Int(length), deallocator: .free)
    }
}
#endif
