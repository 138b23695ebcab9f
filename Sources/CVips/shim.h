// libvips, for Swift: its header, plus fixed-argument forms of the few variadic calls the
// decoder makes (Swift cannot call C variadic functions). Each passes its options through and
// does nothing else.
#include <vips/vips.h>

/// vips_thumbnail_buffer: shrink-on-load to fit (or, with `crop`, fill) width × height, only ever
/// down unless `exact` (a vector image rendered at a given size); EXIF orientation applied. No
/// "export_profile": with it, libvips 8.14 shifted an untagged sRGB image's colours ((20, 40, 220)
/// came out (75, 30, 221)); the caller converts an embedded profile to sRGB afterwards, as for a
/// whole image. `load_options` go to the loader (for example "fail_on=error").
static inline int siv_thumbnail_buffer(
    const void *buffer, size_t length, VipsImage **out, int width, int height, int crop, int exact,
    const char *load_options) {
    return vips_thumbnail_buffer(
        (void *)buffer, length, out, width, "height", height, "size", exact ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN, "crop",
        crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, "option_string",
        load_options, NULL);
}

/// vips_image_new_from_buffer, for reading a header: nothing is decoded until pixels are asked for.
static inline VipsImage *siv_header_from_buffer(const void *buffer, size_t length, const char *load_options) {
    return vips_image_new_from_buffer(buffer, length, load_options, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/// vips_image_new_from_buffer for decoding whole: random access (turning needs it), loader options
/// as in siv_thumbnail_buffer.
static inline VipsImage *siv_load_buffer(const void *buffer, size_t length, const char *load_options) {
    return vips_image_new_from_buffer(buffer, length, load_options, NULL);
}

/// vips_icc_transform to sRGB through the image's embedded profile.
static inline int siv_icc_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, NULL);
}

static inline int siv_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

static inline int siv_colourspace_srgb(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

static inline int siv_cast_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast_uchar(in, out, NULL);
}

static inline int siv_addalpha(VipsImage *in, VipsImage **out) {
    return vips_addalpha(in, out, NULL);
}

/// A copy of `in` whose pixels are tagged sRGB (raw memory images arrive as multiband).
static inline int siv_copy_as_srgb(VipsImage *in, VipsImage **out) {
    return vips_copy(in, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
}

/// `in` without its alpha channel: the first three bands.
static inline int siv_drop_alpha(VipsImage *in, VipsImage **out) {
    return vips_extract_band(in, out, 0, "n", 3, NULL);
}

static inline int siv_webpsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_webpsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
}

static inline int siv_pngsave_buffer(VipsImage *in, void **buffer, size_t *length) {
    return vips_pngsave_buffer(in, buffer, length, "strip", TRUE, NULL);
}
