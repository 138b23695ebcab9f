#if canImport(CVips)
import CVips

/// libvips, started once per process.
///
/// Its operation cache is switched off: it would keep recently decoded images alive for reuse,
/// and the pipeline keeps its own caches of exactly what it wants kept. Each decode runs on one
/// thread, the caller's: a pipeline decodes many images at once (a feed), one task each, and
/// libvips' default of a pool of threads per image oversubscribed the cores, starving everything
/// else the machine ran. Its warnings ("ignoring nclx profile", a damaged tile) are not printed: a library does not write to an app's standard
/// error, and every failure that matters reaches the caller as an ``ImageDecodingError``.
enum VipsRuntime {
    private static let started: Result<Void, ImageDecodingError> = {
        guard vips_init("swift-image-cache") == 0 else { return .failure(.decoderUnavailable(VipsRuntime.takeError())) }
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

    /// libvips's error messages since the last call, cleared, as one line.
    static func takeError() -> String {
        let message = vips_error_buffer().map { String(cString: $0) } ?? ""
        vips_error_clear()
        let lines = message.split(whereSeparator: \.isNewline).map(String.init)
        return lines.isEmpty ? "libvips gave no reason" : lines.joined(separator: "; ")
    }
}
#endif
