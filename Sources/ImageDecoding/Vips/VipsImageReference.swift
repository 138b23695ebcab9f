#if canImport(CVips)
import CVips

/// One libvips image, released when this goes.
final class VipsImageReference {
    let pointer: UnsafeMutablePointer<CVips.VipsImage>

    init(_ pointer: UnsafeMutablePointer<CVips.VipsImage>) {
        self.pointer = pointer
    }

    deinit {
        g_object_unref(pointer)
    }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var pageCount: Int { Int(vips_image_get_n_pages(pointer)) }

    /// The result of an operation that writes a new image to `out`, or libvips's error.
    static func making(
        _ operation: (UnsafeMutablePointer<UnsafeMutablePointer<CVips.VipsImage>?>) -> Int32,
        failure: (String) -> ImageDecodingError
    ) throws(ImageDecodingError) -> VipsImageReference {
        var out: UnsafeMutablePointer<CVips.VipsImage>?
        guard operation(&out) == 0, let out else { throw failure(VipsRuntime.takeError()) }
        return VipsImageReference(out)
    }
}
#endif
