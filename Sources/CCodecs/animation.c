// Animated GIF (giflib, one frame at a time, composited here) and animated WebP (libwebp's
// WebPAnimDecoder, which composites itself). Neither library reports errors by longjmp.
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gif_lib.h>
#include <webp/decode.h>
#include <webp/demux.h>

enum { FORMAT_GIF = 0, FORMAT_WEBP = 1 };

struct ccodecs_animation {
    int format;
    /// The whole file, owned.
    uint8_t *data;
    size_t size;
    int width;
    int height;
    int frame_count;
    int loop_count;
    /// The frame last returned (-1 before the first, and after a rewind).
    int index;
    /// The canvas the next call returns: premultiplied RGBA, width * 4 bytes a row (GIF: ours;
    /// WebP: the last buffer WebPAnimDecoder returned).
    uint8_t *canvas;

    // GIF
    GifFileType *gif;
    /// Where giflib's next read starts in `data`.
    size_t offset;
    /// The canvas under the last frame, kept for a frame whose disposal restores it.
    uint8_t *saved;
    /// A row of colour indices.
    GifPixelType *line;
    /// How the last frame goes before the next one is drawn, and where it lies (clipped).
    int last_disposal;
    int last_left, last_top, last_width, last_height;

    // WebP
    WebPAnimDecoder *webp;
    int last_timestamp;
};

/// Browsers show a frame of 10 ms or less for 100 ms (old GIFs meant "as fast as possible"), and
/// so do we: a 0 ms frame would otherwise spin.
static int shown_duration(int milliseconds) { return milliseconds <= 10 ? 100 : milliseconds; }

// MARK: GIF

static int little16(const uint8_t *bytes) { return bytes[0] | bytes[1] << 8; }

/// Skips a chain of sub-blocks at `*at` up to its terminator; 0, or -1 at the end of the data.
static int skip_sub_blocks(const uint8_t *data, size_t size, size_t *at) {
    while (*at < size) {
        uint8_t length = data[(*at)++];
        if (length == 0) return 0;
        if (size - *at < length) return -1;
        *at += length;
    }
    return -1;
}

/// Walks a GIF's blocks without decoding anything: counts its complete frames and reads its
/// NETSCAPE2.0 loop count (plays in all: 1 without the extension, 0 for forever). A file cut
/// short, or with an unknown block, ends the walk: the frames before are the animation.
static int gif_scan(const uint8_t *data, size_t size, int *frames, int *loops, ccodecs_error *error) {
    *frames = 0;
    *loops = 1;
    if (size < 13 || (memcmp(data, "GIF87a", 6) != 0 && memcmp(data, "GIF89a", 6) != 0)) {
        ccodecs_set_error(error, size < 13 ? CCODECS_TRUNCATED : CCODECS_CORRUPT, "no GIF header");
        return -1;
    }
    size_t at = 13;
    if (data[10] & 0x80) at += 3u << ((data[10] & 7) + 1);
    while (at < size) {
        uint8_t introducer = data[at++];
        if (introducer == 0x21) {
            if (at >= size) break;
            uint8_t label = data[at++];
            // NETSCAPE2.0: an 11-byte block naming it, then a 3-byte block: 1, loop count (16 bits).
            if (label == 0xFF && size - at >= 16 && data[at] == 11 && memcmp(data + at + 1, "NETSCAPE2.0", 11) == 0 &&
                data[at + 12] == 3 && data[at + 13] == 1) {
                int count = little16(data + at + 14);
                *loops = count == 0 ? 0 : (count >= INT_MAX - 1 ? INT_MAX : count + 1);
            }
            if (skip_sub_blocks(data, size, &at) != 0) break;
        } else if (introducer == 0x2C) {
            if (size - at < 9) break;
            uint8_t flags = data[at + 8];
            at += 9;
            if (flags & 0x80) at += 3u << ((flags & 7) + 1);
            if (at >= size) break;
            at += 1;  // the LZW code size
            if (skip_sub_blocks(data, size, &at) != 0) break;
            *frames += 1;
        } else {
            break;  // the trailer (0x3B), or damage
        }
    }
    if (*frames == 0) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "the GIF holds no complete image");
        return -1;
    }
    return 0;
}

static int gif_read(GifFileType *gif, GifByteType *bytes, int count) {
    struct ccodecs_animation *animation = gif->UserData;
    size_t left = animation->size - animation->offset;
    size_t n = count < 0 ? 0 : (size_t)count < left ? (size_t)count : left;
    memcpy(bytes, animation->data + animation->offset, n);
    animation->offset += n;
    return (int)n;
}

/// Fills `error` for a giflib error code. giflib also says "read failed" for some damage (an
/// LZW code size over 8): the data ending early is told by where the reading stopped.
static void gif_report(const struct ccodecs_animation *animation, int code, ccodecs_error *error) {
    if (code == D_GIF_ERR_EOF_TOO_SOON || code == D_GIF_ERR_READ_FAILED) {
        if (animation->offset >= animation->size) {
            ccodecs_set_error(error, CCODECS_TRUNCATED, "the GIF data ends early");
        } else {
            ccodecs_set_error(error, CCODECS_CORRUPT, "invalid GIF data near byte %zu", animation->offset);
        }
        return;
    }
    const char *text = GifErrorString(code);
    int status = code == D_GIF_ERR_NOT_ENOUGH_MEM ? CCODECS_OUT_OF_MEMORY : CCODECS_CORRUPT;
    ccodecs_set_error(error, status, "GIF: %s", text != NULL ? text : "unknown giflib error");
}

/// Starts giflib over the data from the beginning, the canvas cleared.
static int gif_restart(struct ccodecs_animation *animation, ccodecs_error *error) {
    if (animation->gif != NULL) DGifCloseFile(animation->gif, NULL);
    animation->gif = NULL;
    animation->offset = 0;
    int code = 0;
    animation->gif = DGifOpen(animation, gif_read, &code);
    if (animation->gif == NULL) {
        gif_report(animation, code, error);
        return -1;
    }
    memset(animation->canvas, 0, (size_t)animation->width * (size_t)animation->height * 4);
    animation->last_disposal = DISPOSAL_UNSPECIFIED;
    animation->index = -1;
    return 0;
}

/// Clears or restores the last frame's rect as its disposal says, before the next frame.
static void gif_dispose(struct ccodecs_animation *animation) {
    size_t stride = (size_t)animation->width * 4;
    size_t span = (size_t)animation->last_width * 4;
    for (int y = 0; y < animation->last_height; y++) {
        size_t at = (size_t)(animation->last_top + y) * stride + (size_t)animation->last_left * 4;
        if (animation->last_disposal == DISPOSE_BACKGROUND) {
            memset(animation->canvas + at, 0, span);  // transparent, as browsers do
        } else if (animation->last_disposal == DISPOSE_PREVIOUS) {
            memcpy(animation->canvas + at, animation->saved + at, span);
        }
    }
    animation->last_disposal = DISPOSAL_UNSPECIFIED;
}

/// Reads the image at the giflib handle's position and draws it on the canvas.
static int gif_draw(struct ccodecs_animation *animation, int disposal, int transparent, const ccodecs_cancel *cancel,
                    ccodecs_error *error) {
    GifFileType *gif = animation->gif;
    if (DGifGetImageDesc(gif) == GIF_ERROR) {
        gif_report(animation, gif->Error, error);
        return -1;
    }
    GifImageDesc *image = &gif->Image;
    const ColorMapObject *map = image->ColorMap != NULL ? image->ColorMap : gif->SColorMap;
    if (map == NULL || map->Colors == NULL) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "a GIF frame without a colour table");
        return -1;
    }
    int frame_width = image->Width, frame_height = image->Height;
    // A frame may reach past the screen, but one far larger than it would be decoded (all its
    // LZW data) for nothing: refused.
    long long screen = (long long)animation->width * animation->height;
    if (frame_width <= 0 || frame_height <= 0 || frame_width > 65535 || frame_height > 65535 ||
        (long long)frame_width * frame_height > 4 * screen + 65536) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "a GIF frame of %d x %d on a screen of %d x %d", frame_width,
                          frame_height, animation->width, animation->height);
        return -1;
    }
    // The part of the frame on the canvas (a frame may reach past the logical screen).
    int left = image->Left, top = image->Top;
    int visible_left = left < animation->width ? left : animation->width;
    int visible_top = top < animation->height ? top : animation->height;
    int visible_right = left + frame_width < animation->width ? left + frame_width : animation->width;
    int visible_bottom = top + frame_height < animation->height ? top + frame_height : animation->height;
    if (disposal == DISPOSE_PREVIOUS) {
        if (animation->saved == NULL) {
            animation->saved = malloc((size_t)animation->width * (size_t)animation->height * 4);
            if (animation->saved == NULL) {
                ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
                return -1;
            }
        }
        memcpy(animation->saved, animation->canvas, (size_t)animation->width * (size_t)animation->height * 4);
    }
    GifPixelType *line = realloc(animation->line, (size_t)frame_width);
    if (line == NULL) {
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return -1;
    }
    animation->line = line;
    // Rows come in interlaced order when the frame is interlaced: four passes.
    static const int pass_start[4] = {0, 4, 2, 1};
    static const int pass_step[4] = {8, 8, 4, 2};
    int passes = image->Interlace ? 4 : 1;
    int rows = 0;
    size_t stride = (size_t)animation->width * 4;
    for (int pass = 0; pass < passes; pass++) {
        int start = image->Interlace ? pass_start[pass] : 0, step = image->Interlace ? pass_step[pass] : 1;
        for (int row = start; row < frame_height; row += step) {
            if ((rows++ & 15) == 0 && ccodecs_cancelled(cancel)) {
                ccodecs_set_error(error, CCODECS_CANCELLED, "cancelled");
                return -1;
            }
            if (DGifGetLine(gif, line, frame_width) == GIF_ERROR) {
                gif_report(animation, gif->Error, error);
                return -1;
            }
            int y = top + row;
            if (y >= visible_bottom || left >= visible_right) continue;
            uint8_t *out = animation->canvas + (size_t)y * stride + (size_t)left * 4;
            for (int x = 0; x < visible_right - left; x++, out += 4) {
                int index = line[x];
                if (index == transparent) continue;
                if (index >= map->ColorCount) {
                    out[0] = out[1] = out[2] = 0;  // as browsers draw a colour past the table: black
                } else {
                    out[0] = map->Colors[index].Red;
                    out[1] = map->Colors[index].Green;
                    out[2] = map->Colors[index].Blue;
                }
                out[3] = 255;
            }
        }
    }
    animation->last_disposal = disposal;
    animation->last_left = visible_left;
    animation->last_top = visible_top;
    animation->last_width = visible_right > visible_left ? visible_right - visible_left : 0;
    animation->last_height = visible_bottom > visible_top ? visible_bottom - visible_top : 0;
    return 0;
}

/// The next GIF frame: its extensions read, its disposal kept, its image drawn.
static const uint8_t *gif_next(struct ccodecs_animation *animation, int *duration, const ccodecs_cancel *cancel,
                               ccodecs_error *error) {
    if (animation->index + 1 >= animation->frame_count) {
        if (gif_restart(animation, error) != 0) return NULL;
    } else {
        gif_dispose(animation);
    }
    int delay = 0, transparent = NO_TRANSPARENT_COLOR, disposal = DISPOSAL_UNSPECIFIED;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(animation->gif, &type) == GIF_ERROR) {
            gif_report(animation, animation->gif->Error, error);
            return NULL;
        }
        if (type == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *extension = NULL;
            if (DGifGetExtension(animation->gif, &code, &extension) == GIF_ERROR) {
                gif_report(animation, animation->gif->Error, error);
                return NULL;
            }
            if (code == GRAPHICS_EXT_FUNC_CODE && extension != NULL && extension[0] >= 4) {
                GraphicsControlBlock control;
                if (DGifExtensionToGCB(extension[0], extension + 1, &control) == GIF_OK) {
                    delay = control.DelayTime * 10;
                    transparent = control.TransparentColor;
                    disposal = control.DisposalMode;
                }
            }
            while (extension != NULL) {
                if (DGifGetExtensionNext(animation->gif, &extension) == GIF_ERROR) {
                    gif_report(animation, animation->gif->Error, error);
                    return NULL;
                }
            }
        } else if (type == IMAGE_DESC_RECORD_TYPE) {
            if (gif_draw(animation, disposal, transparent, cancel, error) != 0) return NULL;
            // giflib keeps every descriptor it read (SavedImages) until it is closed; an
            // animation read over and over must not grow: drop them as they come.
            GifFreeSavedImages(animation->gif);
            animation->gif->ImageCount = 0;  // GifFreeSavedImages leaves the count, which indexes the next one
            animation->index += 1;
            *duration = shown_duration(delay);
            return animation->canvas;
        } else {
            // The trailer before the counted frames: the scan and giflib disagree.
            ccodecs_set_error(error, CCODECS_CORRUPT, "the GIF ends before frame %d", animation->index + 2);
            return NULL;
        }
    }
}

static int gif_open(struct ccodecs_animation *animation, long long max_pixels, ccodecs_error *error) {
    if (gif_scan(animation->data, animation->size, &animation->frame_count, &animation->loop_count, error) != 0)
        return -1;
    animation->width = little16(animation->data + 6);
    animation->height = little16(animation->data + 8);
    if (animation->width == 0 || animation->height == 0) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "a GIF screen of %d x %d", animation->width, animation->height);
        return -1;
    }
    if ((long long)animation->width * animation->height > max_pixels) {
        ccodecs_set_error(error, CCODECS_TOO_LARGE, "a GIF screen of %d x %d", animation->width, animation->height);
        return -1;
    }
    animation->canvas = malloc((size_t)animation->width * (size_t)animation->height * 4);
    if (animation->canvas == NULL) {
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return -1;
    }
    return gif_restart(animation, error);
}

// MARK: WebP

static int webp_open(struct ccodecs_animation *animation, long long max_pixels, ccodecs_error *error) {
    WebPData data = {animation->data, animation->size};
    // The canvas size first, from the demuxer: the decoder allocates two canvases at once.
    WebPDemuxer *demuxer = WebPDemux(&data);
    if (demuxer == NULL) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "an invalid WebP container");
        return -1;
    }
    long long width = WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH);
    long long height = WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT);
    WebPDemuxDelete(demuxer);
    if (width <= 0 || height <= 0 || width * height > max_pixels) {
        ccodecs_set_error(error, width <= 0 || height <= 0 ? CCODECS_CORRUPT : CCODECS_TOO_LARGE,
                          "a WebP canvas of %lld x %lld", width, height);
        return -1;
    }
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "libwebp version mismatch");
        return -1;
    }
    options.color_mode = MODE_rgbA;  // premultiplied RGBA
    options.use_threads = 0;         // it runs on a display worker already
    animation->webp = WebPAnimDecoderNew(&data, &options);
    if (animation->webp == NULL) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "an invalid animated WebP");
        return -1;
    }
    WebPAnimInfo info;
    if (!WebPAnimDecoderGetInfo(animation->webp, &info) || info.frame_count == 0) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "a WebP animation without frames");
        return -1;
    }
    animation->width = (int)info.canvas_width;
    animation->height = (int)info.canvas_height;
    animation->frame_count = (int)info.frame_count;
    animation->loop_count = info.loop_count > INT_MAX ? INT_MAX : (int)info.loop_count;
    animation->index = -1;
    return 0;
}

static const uint8_t *webp_next(struct ccodecs_animation *animation, int *duration, ccodecs_error *error) {
    if (animation->index + 1 >= animation->frame_count || !WebPAnimDecoderHasMoreFrames(animation->webp)) {
        WebPAnimDecoderReset(animation->webp);
        animation->index = -1;
        animation->last_timestamp = 0;
    }
    uint8_t *buffer = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(animation->webp, &buffer, &timestamp) || buffer == NULL) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "WebP frame %d cannot be decoded", animation->index + 2);
        return NULL;
    }
    *duration = shown_duration(timestamp - animation->last_timestamp);
    animation->last_timestamp = timestamp;
    animation->index += 1;
    animation->canvas = buffer;
    return buffer;
}

// MARK: The interface

static ccodecs_animation *open_data(uint8_t *data, size_t size, long long max_pixels, ccodecs_animation_info *info,
                                    ccodecs_error *error) {
    struct ccodecs_animation *animation = calloc(1, sizeof *animation);
    if (animation == NULL) {
        free(data);
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    animation->data = data;
    animation->size = size;
    animation->index = -1;
    int opened;
    if (size >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0)) {
        animation->format = FORMAT_GIF;
        opened = gif_open(animation, max_pixels, error);
    } else if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) {
        animation->format = FORMAT_WEBP;
        opened = webp_open(animation, max_pixels, error);
    } else {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "not a GIF or WebP file");
        opened = -1;
    }
    if (opened != 0) {
        ccodecs_animation_close(animation);
        return NULL;
    }
    info->width = animation->width;
    info->height = animation->height;
    info->frame_count = animation->frame_count;
    info->loop_count = animation->loop_count;
    return animation;
}

ccodecs_animation *ccodecs_animation_open(const char *path, long long max_pixels, ccodecs_animation_info *info,
                                          ccodecs_error *error) {
    size_t size = 0;
    uint8_t *data = ccodecs_read_file(path, CCODECS_ANIMATION_FILE_MAXIMUM, &size, error);
    if (data == NULL) return NULL;
    return open_data(data, size, max_pixels, info, error);
}

ccodecs_animation *ccodecs_animation_open_memory(const uint8_t *bytes, size_t size, long long max_pixels,
                                                 ccodecs_animation_info *info, ccodecs_error *error) {
    uint8_t *data = malloc(size > 0 ? size : 1);
    if (data == NULL) {
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    if (size > 0) memcpy(data, bytes, size);
    return open_data(data, size, max_pixels, info, error);
}

const uint8_t *ccodecs_animation_next(ccodecs_animation *animation, int *index, int *duration,
                                      const ccodecs_cancel *cancel, ccodecs_error *error) {
    if (ccodecs_cancelled(cancel)) {
        ccodecs_set_error(error, CCODECS_CANCELLED, "cancelled");
        return NULL;
    }
    const uint8_t *canvas = animation->format == FORMAT_GIF ? gif_next(animation, duration, cancel, error)
                                                            : webp_next(animation, duration, error);
    if (canvas == NULL) {
        // The next call starts over from the first frame, on a clean canvas.
        animation->index = animation->frame_count;
        return NULL;
    }
    *index = animation->index;
    return canvas;
}

void ccodecs_animation_close(ccodecs_animation *animation) {
    if (animation == NULL) return;
    if (animation->gif != NULL) DGifCloseFile(animation->gif, NULL);
    if (animation->format == FORMAT_GIF) free(animation->canvas);  // WebP's belongs to its decoder
    WebPAnimDecoderDelete(animation->webp);
    free(animation->saved);
    free(animation->line);
    free(animation->data);
    free(animation);
}
