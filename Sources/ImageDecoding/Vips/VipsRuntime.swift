#if canImport(CVips)
import CVips
import Foundation

/// libvips, started once per process.
///
/// Its operation cache is switched off: it would keep recently decoded images alive for reuse,
/// and the pipeline keeps its own caches of exactly what it wants kept. Each decode runs on one
/// thread, the caller's: a pipeline decodes many images at once (a feed), one task each, and
/// libvips' default of a pool of threads per image oversubscribed the cores, starving everything
/// else the machine ran. Its warnings ("ignoring nclx profile", a damaged tile) are not printed: a library does not write to an app's standard
/// error, and every failure that matters reaches the caller as an ``ImageDecodingError``.
///
/// Only the loaders in ``allowedLoaders`` may run. libvips chooses a loader by the bytes it is
/// given, from every one it has, and Debian's has many that were never meant for bytes from the
/// network: ImageMagick (which libvips marks untrusted, and which takes BMP, ICO and a hundred
/// other formats), PDF, FITS, OpenEXR, raw matrices. The validator already refuses those formats,
/// so the allowlist is a second wall: no bytes reach a loader the pipeline did not choose.
package enum VipsRuntime {
    /// The loaders libvips may run, by nickname: one for each format the validator accepts that
    /// libvips decodes (BMP and icons are decoded in Swift). SVG's loader is on the list although
    /// libvips marks it untrusted: the validator has weighed what the document would draw.
    package static let allowedLoaders = [
        "jpegload_buffer", "pngload_buffer", "webpload_buffer", "gifload_buffer", "tiffload_buffer", "heifload_buffer",
        "svgload_buffer",
    ]

    private static let started: Result<Void, ImageDecodingError> = {
        guard vips_init("swift-image-cache") == 0 else { return .failure(.decoderUnavailable(VipsRuntime.takeError())) }
        vips_block_untrusted_set(1)
        vips_operation_block_set("VipsForeignLoad", 1)
        for nickname in allowedLoaders {
            // A loader this build lacks (libvips without libheif) stays absent: its format is then
            // "not in a known format", as before.
            let type = vips_type_find("VipsOperation", nickname)
            if type != 0, let name = g_type_name(type) { vips_operation_block_set(name, 0) }
        }
        vips_cache_set_max(0)
        vips_concurrency_set(1)
        let levels = GLogLevelFlags(rawValue: G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_MESSAGE.rawValue | G_LOG_LEVEL_INFO.rawValue)
        g_log_set_handler("VIPS", levels, { _, _, _, _ in }, nil)
        return .success(())
    }()

    /// Starts libvips if it has not been started.
    static func start() throws(ImageDecodingError) {
        try started.get()
    }

    /// Every loader libvips has, by nickname, and whether it is blocked: what the allowlist left
    /// runnable, for the tests that hold it to ``allowedLoaders``.
    package static func loaders() throws(ImageDecodingError) -> [(nickname: String, isBlocked: Bool)] {
        try start()
        var loaders: [(nickname: String, isBlocked: Bool)] = []
        withUnsafeMutablePointer(to: &loaders) { list in
            _ = vips_type_map_all(g_type_from_name("VipsForeignLoad"), { type, list in
                guard g_type_test_flags(type, G_TYPE_FLAG_ABSTRACT.rawValue) == 0, let list, let loader = VipsRuntime.state(of: type)
                else { return nil }
                list.assumingMemoryBound(to: [(nickname: String, isBlocked: Bool)].self).pointee.append(loader)
                return nil
            }, list)
        }
        return loaders
    }

    /// The loader libvips itself would choose for `data`, and whether it is blocked; nil when
    /// none claims the bytes.
    package static func loader(for data: Data) throws(ImageDecodingError) -> (nickname: String, isBlocked: Bool)? {
        try start()
        let name = data.withUnsafeBytes { bytes in vips_foreign_find_load_buffer(bytes.baseAddress, bytes.count) }
        guard let name else {
            vips_error_clear()
            return nil
        }
        return state(of: g_type_from_name(name))
    }

    /// A loader class's nickname and whether it is blocked.
    private static func state(of type: GType) -> (nickname: String, isBlocked: Bool)? {
        guard let operationClass = g_type_class_ref(type)?.assumingMemoryBound(to: VipsOperationClass.self) else { return nil }
        defer { g_type_class_unref(operationClass) }
        let nickname = String(cString: operationClass.pointee.parent_class.nickname)
        return (nickname, operationClass.pointee.flags.rawValue & VIPS_OPERATION_BLOCKED.rawValue != 0)
    }

    /// libvips's error messages since the last call, cleared, as one line.
    static func takeError() -> String {
        let message = vips_error_buffer().map { String(cString: $0) } ?? ""
        vips_error_clear()
        let lines = message.split(whereSeparator: \.isNewline).map(String.init)
        return lines.isEmpty ? "libvips gave no reason" : lines.joined(separator: "; ")
    }
}
#endif
