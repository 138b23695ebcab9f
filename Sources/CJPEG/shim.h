#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H

// libjpeg-turbo's compressor behind one call, for encoding pixels this process made (never bytes
// from the network). libjpeg reports an error by calling `error_exit`, which must not return: it
// jumps back here, so a failure is a return value with libjpeg's message, not an exit.

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

/// Everything the compressor touches, on the heap: what the jump back reads must not be a local
/// changed since `setjmp` (C leaves those indeterminate).
struct sij_state {
    struct jpeg_compress_struct info;
    struct jpeg_error_mgr manager;
    jmp_buf landing;
    char message[JMSG_LENGTH_MAX];
    unsigned char *destination;
    unsigned long size;
};

static void sij_error_exit(j_common_ptr info) {
    struct sij_state *state = (struct sij_state *)info->client_data;
    (*info->err->format_message)(info, state->message);
    longjmp(state->landing, 1);
}

static void sij_output_message(j_common_ptr info) {
    (void)info; // warnings are not printed to the app's standard error
}

/// Encodes `height` rows of `width` RGBA pixels (alpha ignored) as a baseline JPEG at `quality`
/// (1...100, chroma subsampled 2 × 2), with no metadata. On success returns 0 and sets `*output`
/// (free it with `free`) and `*length`; on failure returns -1 and copies libjpeg's message into
/// `message` (at most `capacity` bytes, terminated).
static inline int sij_encode_rgba(
    const unsigned char *pixels, int width, int height, int quality, unsigned char **output, unsigned long *length,
    char *message, size_t capacity
) {
#ifdef JCS_EXTENSIONS
    struct sij_state *const state = calloc(1, sizeof(struct sij_state));
    if (state == NULL) {
        if (capacity > 0) {
            strncpy(message, "out of memory", capacity - 1);
            message[capacity - 1] = 0;
        }
        return -1;
    }
    state->info.err = jpeg_std_error(&state->manager);
    state->manager.error_exit = sij_error_exit;
    state->manager.output_message = sij_output_message;
    state->info.client_data = state;
    if (setjmp(state->landing)) {
        jpeg_destroy_compress(&state->info);
        if (capacity > 0) {
            strncpy(message, state->message, capacity - 1);
            message[capacity - 1] = 0;
        }
        free(state->destination);
        free(state);
        return -1;
    }
    // It clears the structure but for the error manager and the client data.
    jpeg_create_compress(&state->info);
    jpeg_mem_dest(&state->info, &state->destination, &state->size);
    state->info.image_width = (JDIMENSION)width;
    state->info.image_height = (JDIMENSION)height;
    state->info.input_components = 4;
    state->info.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&state->info);
    jpeg_set_quality(&state->info, quality, TRUE);
    jpeg_start_compress(&state->info, TRUE);
    while (state->info.next_scanline < state->info.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)state->info.next_scanline * (size_t)width * 4);
        jpeg_write_scanlines(&state->info, &row, 1);
    }
    jpeg_finish_compress(&state->info);
    jpeg_destroy_compress(&state->info);
    *output = state->destination;
    *length = state->size;
    free(state);
    return 0;
#else
    (void)pixels; (void)width; (void)height; (void)quality; (void)output; (void)length;
    if (capacity > 0) {
        strncpy(message, "this libjpeg has no RGBA input (libjpeg-turbo's JCS_EXTENSIONS)", capacity - 1);
        message[capacity - 1] = 0;
    }
    return -1;
#endif
}

#endif
