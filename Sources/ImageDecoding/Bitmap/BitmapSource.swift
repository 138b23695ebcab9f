import Foundation
import ImageFormats

/// What a BMP file or an icon shows, before any processing: pixels decoded here, or an icon's PNG
/// entry, for the PNG decoder.
enum BitmapSource {
    /// A bitmap's pixels, at its own size.
    case pixels(DecodedImage)
    /// An icon whose largest image is a PNG: that PNG's bytes.
    case png(Data)

    /// What the validated BMP or icon `data` (`info` is the validator's verdict) shows: for an
    /// icon, its largest image, the one whose size the validator reports.
    static func of(_ data: Data, info: ImageInfo) throws(ImageDecodingError) -> BitmapSource {
        let bytes = [UInt8](data)
        switch info.format {
        case .bmp:
            return .pixels(try BitmapDecoder.decode(bytes, try validated { () throws(ImageValidationError) in try BMPParser.layout(of: bytes) }))
        case .ico:
            switch try validated({ () throws(ImageValidationError) in try ICOParser.largestImage(in: bytes) }) {
            case let .png(range): return .png(Data(bytes[range]))
            case let .bitmap(layout): return .pixels(try BitmapDecoder.decode(bytes, layout, frameCount: info.frameCount ?? 1))
            }
        default:
            throw .unsupportedFormat("\(info.format.rawValue) is not a bitmap format")
        }
    }

    /// `read`'s result, its refusal as the decoder's error.
    private static func validated<Value>(_ read: () throws(ImageValidationError) -> Value) throws(ImageDecodingError) -> Value {
        do {
            return try read()
        } catch {
            throw .invalidImage(error)
        }
    }
}
