// Writing animated GIF (giflib) and WebP (libwebpmux's WebPAnimEncoder) files: the tests' fixtures
// and the benchmarks' folders of animations.
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gif_lib.h>
#include <webp/encode.h>
#include <webp/mux.h>

// MARK: GIF

/// The colour table of one frame and its pixels as indices: the exact colours when there are at
/// most 255 (index 255 is transparency), otherwise a 6 x 7 x 6 cube (252 colours).
static ColorMapObject *index_frame(const uint8_t *pixels, int count, GifByteType *indices) {
    enum { transparent = 255 };
    GifColorType colors[255];
    int used = 0, exact = 1;
    for (int i = 0; i < count && exact; i++) {
        const uint8_t *p = pixels + (size_t)i * 4;
        if (p[3] < 128) {
            indices[i] = transparent;
            continue;
        }
        int found = -1;
        for (int c = used - 1; c >= 0; c--) {
            if (colors[c].Red == p[0] && colors[c].Green == p[1] && colors[c].Blue == p[2]) {
                found = c;
                break;
            }
        }
        if (found < 0) {
            if (used == 255) {
                exact = 0;
                break;
            }
            colors[used] = (GifColorType){p[0], p[1], p[2]};
            found = used++;
        }
        indices[i] = (GifByteType)found;
    }
    if (!exact) {
        used = 0;
        for (int r = 0; r < 6; r++)
            for (int g = 0; g < 7; g++)
                for (int b = 0; b < 6; b++)
                    colors[used++] = (GifColorType){(GifByteType)(r * 51), (GifByteType)(g * 255 / 6),
                                                    (GifByteType)(b * 51)};
        for (int i = 0; i < count; i++) {
            const uint8_t *p = pixels + (size_t)i * 4;
            if (p[3] < 128) {
                indices[i] = transparent;
                continue;
            }
            int r = (p[0] * 5 + 127) / 255, g = (p[1] * 6 + 127) / 255, b = (p[2] * 5 + 127) / 255;
            indices[i] = (GifByteType)((r * 7 + g) * 6 + b);
        }
    }
    GifColorType table[256];
    memset(table, 0, sizeof table);
    memcpy(table, colors, (size_t)used * sizeof colors[0]);
    return GifMakeMapObject(256, table);
}

int ccodecs_gif_write_animation(const char *path, const uint8_t *const *frames, const int *durations, int count,
                                int width, int height, int loops, ccodecs_error *error) {
    if (count <= 0 || width <= 0 || height <= 0 || width > 65535 || height > 65535) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "no frames, or a size GIF cannot hold");
        return -1;
    }
    int code = 0;
    // giflib's own EGifOpenFileName makes the file 0600: a photo is 0666 less the umask.
    int descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (descriptor < 0) {
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno));
        return -1;
    }
    GifFileType *gif = EGifOpenFileHandle(descriptor, &code);  // closes the descriptor when closed
    if (gif == NULL) {
        close(descriptor);
        ccodecs_set_error(error, CCODECS_UNREADABLE, "GIF: %s", GifErrorString(code));
        return -1;
    }
    int result = -1;
    GifByteType *indices = malloc((size_t)width * (size_t)height);
    if (indices == NULL) {
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    EGifSetGifVersion(gif, true);
    if (EGifPutScreenDesc(gif, width, height, 8, 0, NULL) == GIF_ERROR) goto failed;
    if (loops != 1) {
        // NETSCAPE2.0: loops in all less the first play; 0 is forever.
        int repeats = loops <= 0 ? 0 : loops - 1 > 65535 ? 65535 : loops - 1;
        GifByteType application[11];
        memcpy(application, "NETSCAPE2.0", 11);
        GifByteType data[3] = {1, (GifByteType)(repeats & 0xFF), (GifByteType)(repeats >> 8)};
        if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
            EGifPutExtensionBlock(gif, sizeof application, application) == GIF_ERROR ||
            EGifPutExtensionBlock(gif, sizeof data, data) == GIF_ERROR || EGifPutExtensionTrailer(gif) == GIF_ERROR)
            goto failed;
    }
    for (int frame = 0; frame < count; frame++) {
        ColorMapObject *map = index_frame(frames[frame], width * height, indices);
        if (map == NULL) {
            ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
            goto done;
        }
        GraphicsControlBlock control = {
            .DisposalMode = DISPOSE_BACKGROUND,
            .UserInputFlag = false,
            .DelayTime = (durations[frame] + 5) / 10,
            .TransparentColor = 255,
        };
        GifByteType extension[4];
        size_t length = EGifGCBToExtension(&control, extension);
        int failed = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)length, extension) == GIF_ERROR ||
                     EGifPutImageDesc(gif, 0, 0, width, height, false, map) == GIF_ERROR;
        GifFreeMapObject(map);
        if (failed) goto failed;
        for (int y = 0; y < height; y++) {
            if (EGifPutLine(gif, indices + (size_t)y * width, width) == GIF_ERROR) goto failed;
        }
    }
    result = 0;
    goto done;
failed:
    ccodecs_set_error(error, CCODECS_UNREADABLE, "GIF: %s", GifErrorString(gif->Error));
done:
    free(indices);
    if (EGifCloseFile(gif, &code) == GIF_ERROR && result == 0) {
        ccodecs_set_error(error, CCODECS_UNREADABLE, "GIF: %s", GifErrorString(code));
        result = -1;
    }
    return result;
}

// MARK: WebP

int ccodecs_webp_write_animation(const char *path, const uint8_t *const *frames, const int *durations, int count,
                                 int width, int height, int loops, int quality, ccodecs_error *error) {
    WebPAnimEncoderOptions options;
    WebPConfig config;
    if (count <= 0 || !WebPAnimEncoderOptionsInit(&options) || !WebPConfigInit(&config)) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "no frames, or a libwebp version mismatch");
        return -1;
    }
    options.anim_params.loop_count = loops < 0 ? 0 : loops;
    config.lossless = quality >= 100;
    config.quality = quality >= 100 ? 75 : (float)quality;
    WebPAnimEncoder *encoder = WebPAnimEncoderNew(width, height, &options);
    if (encoder == NULL) {
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "cannot make a WebP encoder");
        return -1;
    }
    int result = -1;
    WebPData assembled;
    WebPDataInit(&assembled);
    int timestamp = 0;
    for (int frame = 0; frame < count; frame++) {
        WebPPicture picture;
        if (!WebPPictureInit(&picture)) goto failed;
        picture.use_argb = 1;
        picture.width = width;
        picture.height = height;
        int imported = WebPPictureImportRGBA(&picture, frames[frame], width * 4);
        int added = imported && WebPAnimEncoderAdd(encoder, &picture, timestamp, &config);
        WebPPictureFree(&picture);
        if (!added) goto failed;
        timestamp += durations[frame];
    }
    if (!WebPAnimEncoderAdd(encoder, NULL, timestamp, NULL) || !WebPAnimEncoderAssemble(encoder, &assembled))
        goto failed;
    FILE *file = fopen(path, "wb");
    if (file == NULL || fwrite(assembled.bytes, 1, assembled.size, file) != assembled.size) {
        if (file != NULL) fclose(file);
        ccodecs_set_error(error, CCODECS_UNREADABLE, "cannot write %s", path);
        goto done;
    }
    if (fclose(file) != 0) {
        ccodecs_set_error(error, CCODECS_UNREADABLE, "cannot write %s", path);
        goto done;
    }
    result = 0;
    goto done;
failed: {
    const char *message = WebPAnimEncoderGetError(encoder);
    ccodecs_set_error(error, CCODECS_UNSUPPORTED, "WebP: %s", message != NULL && message[0] ? message : "encoding failed");
}
done:
    WebPDataClear(&assembled);
    WebPAnimEncoderDelete(encoder);
    return result;
}
