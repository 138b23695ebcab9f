// What a cold thumbnail costs libvips at the least, in one process and one thread, with nothing
// around it: `vips_thumbnail_buffer` (shrink-on-load, Lanczos) and a JPEG save at quality 85, ten
// times per size; then, from pixels decoded once at each shrink-on-load scale, a resize and save
// to the sizes that scale can serve (what keeping decoded pixels per original would cost instead).
// Prints processor milliseconds per thumbnail.
//   cc -O2 floor.c -o floor $(pkg-config --cflags --libs vips) && ./floor photo.jpg
#include <stdio.h>
#include <time.h>
#include <vips/vips.h>

static double processor_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec + now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2 || VIPS_INIT(argv[0])) return 2;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    gchar *bytes;
    gsize count;
    if (!g_file_get_contents(argv[1], &bytes, &count, NULL)) return 2;
    const int sizes[] = {128, 256, 640, 1160};
    for (int s = 0; s < 4; s++) {
        double start = processor_seconds();
        for (int i = 0; i < 10; i++) {
            VipsImage *thumbnail;
            void *jpeg;
            size_t length;
            if (vips_thumbnail_buffer(bytes, count, &thumbnail, sizes[s], "height", sizes[s], NULL)) vips_error_exit(NULL);
            if (vips_jpegsave_buffer(thumbnail, &jpeg, &length, "Q", 85, NULL)) vips_error_exit(NULL);
            g_free(jpeg);
            g_object_unref(thumbnail);
        }
        printf("thumbnail to %d px: %.1f ms\n", sizes[s], (processor_seconds() - start) * 100);
    }
    const int shrinks[] = {2, 4, 8};
    const int targets[] = {100, 256, 627, 1160};
    for (int k = 0; k < 3; k++) {
        VipsImage *loaded;
        double start = processor_seconds();
        if (vips_jpegload_buffer(bytes, count, &loaded, "shrink", shrinks[k], NULL)) vips_error_exit(NULL);
        size_t length;
        void *pixels = vips_image_write_to_memory(loaded, &length);
        int width = loaded->Xsize, height = loaded->Ysize, bands = loaded->Bands;
        printf("decode at 1/%d (%d x %d): %.1f ms\n", shrinks[k], width, height, (processor_seconds() - start) * 1000);
        for (int t = 0; t < 4; t++) {
            // The smallest scale that still covers the target: the one a base at this scale serves.
            if (targets[t] > width || targets[t] * 2 <= width) continue;
            double begin = processor_seconds();
            for (int i = 0; i < 10; i++) {
                VipsImage *base = vips_image_new_from_memory(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
                VipsImage *resized;
                void *jpeg;
                size_t size;
                double scale = (double)targets[t] / (width > height ? width : height);
                if (vips_resize(base, &resized, scale, NULL)) vips_error_exit(NULL);
                if (vips_jpegsave_buffer(resized, &jpeg, &size, "Q", 85, NULL)) vips_error_exit(NULL);
                g_free(jpeg);
                g_object_unref(resized);
                g_object_unref(base);
            }
            printf("  from those pixels to %d px: %.1f ms\n", targets[t], (processor_seconds() - begin) * 100);
        }
        g_free(pixels);
        g_object_unref(loaded);
    }
    return 0;
}
