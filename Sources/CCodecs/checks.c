// Structure checks for GIF and BMP, which SDL_image decodes without telling a short file apart.
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

// MARK: GIF

/// Reads `count` bytes; returns 0, or -1 with `error` filled (TRUNCATED at the end of the file).
static int read_exactly(FILE *file, uint8_t *bytes, size_t count, ccodecs_error *error) {
    if (fread(bytes, 1, count, file) == count) return 0;
    if (ferror(file)) {
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno != 0 ? errno : EIO));
    } else {
        ccodecs_set_error(error, CCODECS_TRUNCATED, "the GIF data ends early");
    }
    return -1;
}

static int skip(FILE *file, long count, ccodecs_error *error) {
    if (fseek(file, count, SEEK_CUR) == 0) return 0;
    ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno));
    return -1;
}

/// Skips a chain of data sub-blocks up to and including its zero-length terminator.
static int skip_sub_blocks(FILE *file, ccodecs_error *error) {
    for (;;) {
        uint8_t size;
        if (read_exactly(file, &size, 1, error) != 0) return -1;
        if (size == 0) return 0;
        if (skip(file, size, error) != 0) return -1;
    }
}

static int little16(const uint8_t *bytes) { return bytes[0] | bytes[1] << 8; }

int ccodecs_gif_first_frame(const char *path, ccodecs_gif_frame *frame, ccodecs_error *error) {
    FILE *file = ccodecs_open_file(path, error);
    if (file == NULL) return -1;
    int result = -1;
    uint8_t header[13];
    if (read_exactly(file, header, sizeof header, error) != 0) goto done;
    if (memcmp(header, "GIF87a", 6) != 0 && memcmp(header, "GIF89a", 6) != 0) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "no GIF signature");
        goto done;
    }
    frame->screen_width = little16(header + 6);
    frame->screen_height = little16(header + 8);
    if (header[10] & 0x80) {  // a global colour table
        if (skip(file, 3L << ((header[10] & 7) + 1), error) != 0) goto done;
    }
    for (;;) {
        uint8_t introducer;
        if (read_exactly(file, &introducer, 1, error) != 0) goto done;
        if (introducer == 0x21) {  // an extension: a label, then sub-blocks
            uint8_t label;
            if (read_exactly(file, &label, 1, error) != 0) goto done;
            if (skip_sub_blocks(file, error) != 0) goto done;
        } else if (introducer == 0x2C) {  // the image descriptor
            uint8_t descriptor[9];
            if (read_exactly(file, descriptor, sizeof descriptor, error) != 0) goto done;
            frame->left = little16(descriptor);
            frame->top = little16(descriptor + 2);
            frame->width = little16(descriptor + 4);
            frame->height = little16(descriptor + 6);
            if (descriptor[8] & 0x80) {  // a local colour table
                if (skip(file, 3L << ((descriptor[8] & 7) + 1), error) != 0) goto done;
            }
            uint8_t code_size;
            if (read_exactly(file, &code_size, 1, error) != 0) goto done;
            if (code_size < 1 || code_size > 11) {
                ccodecs_set_error(error, CCODECS_CORRUPT, "GIF LZW code size %d", code_size);
                goto done;
            }
            if (skip_sub_blocks(file, error) != 0) goto done;
            if (frame->width == 0 || frame->height == 0) {
                ccodecs_set_error(error, CCODECS_CORRUPT, "the first GIF frame is empty");
                goto done;
            }
            result = 0;
            goto done;
        } else if (introducer == 0x3B) {  // the trailer
            ccodecs_set_error(error, CCODECS_CORRUPT, "the GIF holds no image");
            goto done;
        } else {
            ccodecs_set_error(error, CCODECS_CORRUPT, "unknown GIF block 0x%02X", introducer);
            goto done;
        }
    }
done:
    fclose(file);
    return result;
}

// MARK: BMP

static uint32_t little32(const uint8_t *bytes) {
    return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
}

int ccodecs_bmp_check(const char *path, ccodecs_error *error) {
    FILE *file = ccodecs_open_file(path, error);
    if (file == NULL) return -1;
    int result = -1;
    uint8_t header[34];
    size_t got = fread(header, 1, sizeof header, file);
    struct stat status;
    if (ferror(file) || fstat(fileno(file), &status) != 0) {
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno != 0 ? errno : EIO));
        goto done;
    }
    if (got < 26) {
        ccodecs_set_error(error, CCODECS_TRUNCATED, "the BMP header is cut short");
        goto done;
    }
    uint32_t offset = little32(header + 10);
    uint32_t header_size = little32(header + 14);
    long long width, height, bits;
    uint32_t compression = 0;
    if (header_size == 12) {  // BITMAPCOREHEADER
        width = little16(header + 18);
        height = little16(header + 20);
        bits = little16(header + 24);
    } else {
        if (got < sizeof header) {
            ccodecs_set_error(error, CCODECS_TRUNCATED, "the BMP header is cut short");
            goto done;
        }
        width = (int32_t)little32(header + 18);
        height = (int32_t)little32(header + 22);
        bits = little16(header + 28);
        compression = little32(header + 30);
    }
    if (height < 0) height = -height;
    // BI_RGB, BI_BITFIELDS and BI_ALPHABITFIELDS store whole rows padded to 4 bytes.
    if (compression == 0 || compression == 3 || compression == 6) {
        long long row = (width * bits + 31) / 32 * 4;
        long long needed = (long long)offset + row * height;
        if ((long long)status.st_size < needed) {
            ccodecs_set_error(error, CCODECS_TRUNCATED, "the BMP holds %lld of %lld bytes",
                              (long long)status.st_size, needed);
            goto done;
        }
    }
    result = 0;
done:
    fclose(file);
    return result;
}
