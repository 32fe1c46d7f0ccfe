// PNG decoding through libpng, with libpng's longjmp errors kept inside this file.
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

struct ccodecs_png {
    png_structp png;
    png_infop info;
    /// Where our libpng error handler jumps: set by every entry point before it calls libpng.
    jmp_buf fail;
    FILE *file;
    /// The file ended before libpng had what it asked for.
    int hit_end;
    /// errno of a failed read, or 0.
    int read_error;
    int has_alpha;
    int interlaced;
    png_uint_32 width;
    png_uint_32 height;
    /// Rows handed out so far (non-interlaced reading).
    png_uint_32 next_row;
    /// Row pointers for ccodecs_png_read_image, freed by close.
    png_bytepp rows;
    char message[200];
};

// MARK: libpng's hooks

static void on_error(png_structp png, png_const_charp message) {
    struct ccodecs_png *handle = (struct ccodecs_png *)png_get_error_ptr(png);
    snprintf(handle->message, sizeof handle->message, "%s", message);
    longjmp(handle->fail, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;  // ancillary-chunk trouble (a bad iCCP, say): the image itself is fine
    (void)message;
}

static void on_read(png_structp png, png_bytep data, size_t length) {
    struct ccodecs_png *handle = (struct ccodecs_png *)png_get_io_ptr(png);
    size_t got = fread(data, 1, length, handle->file);
    if (got != length) {
        if (ferror(handle->file)) {
            handle->read_error = errno != 0 ? errno : EIO;
        } else {
            handle->hit_end = 1;
        }
        png_error(png, "the PNG data ends early");
    }
}

/// Fills `error` after libpng jumped to `fail`.
static void report_failure(struct ccodecs_png *handle, ccodecs_error *error) {
    if (handle->read_error != 0) {
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(handle->read_error));
    } else if (handle->hit_end) {
        ccodecs_set_error(error, CCODECS_TRUNCATED, "the PNG data ends early");
    } else if (strstr(handle->message, "memory") != NULL) {
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "%s", handle->message);
    } else {
        ccodecs_set_error(error, CCODECS_CORRUPT, "%s", handle->message);
    }
}

// MARK: Entry points

ccodecs_png *ccodecs_png_open(const char *path, ccodecs_png_info *info, ccodecs_error *error) {
    FILE *file = ccodecs_open_file(path, error);
    if (file == NULL) return NULL;
    struct ccodecs_png *handle = calloc(1, sizeof *handle);
    if (handle == NULL) {
        fclose(file);
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    handle->file = file;
    handle->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, handle, on_error, on_warning);
    if (handle->png != NULL) handle->info = png_create_info_struct(handle->png);
    if (handle->png == NULL || handle->info == NULL) {
        ccodecs_png_close(handle);
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    if (setjmp(handle->fail)) {
        report_failure(handle, error);
        ccodecs_png_close(handle);
        return NULL;
    }
    png_structp png = handle->png;
    png_infop pinfo = handle->info;
    png_set_read_fn(png, handle, on_read);
    png_read_info(png, pinfo);

    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, pinfo, &handle->width, &handle->height, &bit_depth, &color_type, &interlace, NULL, NULL);
    handle->has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, pinfo, PNG_INFO_tRNS) != 0;
    handle->interlaced = interlace != PNG_INTERLACE_NONE;

    // Everything to 8-bit RGBA: palette to RGB, grey under 8 bits to 8, tRNS to alpha,
    // 16 bits scaled (rounded) to 8, grey to RGB, and an opaque alpha where there is none.
    png_set_expand(png);
    png_set_scale_16(png);
    if ((color_type & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
    if (!handle->has_alpha) png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    if (handle->interlaced) png_set_interlace_handling(png);
    png_read_update_info(png, pinfo);
    if (png_get_rowbytes(png, pinfo) != (size_t)handle->width * 4) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "PNG colour type %d at %d bits does not convert to RGBA",
                          color_type, bit_depth);
        ccodecs_png_close(handle);
        return NULL;
    }
    info->width = (int)handle->width;
    info->height = (int)handle->height;
    info->interlaced = handle->interlaced;
    info->has_alpha = handle->has_alpha;
    info->bit_depth = bit_depth;
    info->color_type = color_type;
    return handle;
}

int ccodecs_png_read_rows(ccodecs_png *handle, uint8_t *buffer, size_t stride, int max_rows,
                          ccodecs_error *error) {
    if (handle->interlaced) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "an interlaced PNG must be read whole");
        return -1;
    }
    if (setjmp(handle->fail)) {
        report_failure(handle, error);
        return -1;
    }
    int done = 0;
    while (done < max_rows && handle->next_row < handle->height) {
        uint8_t *row = buffer + (size_t)done * stride;
        png_read_row(handle->png, row, NULL);
        if (handle->has_alpha) ccodecs_premultiply(row, handle->width);
        handle->next_row++;
        done++;
    }
    return done;
}

int ccodecs_png_read_image(ccodecs_png *handle, uint8_t *buffer, size_t stride, const ccodecs_cancel *cancel,
                           ccodecs_error *error) {
    if (handle->next_row != 0) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "rows were already read");
        return -1;
    }
    if (handle->rows == NULL) {
        handle->rows = malloc((size_t)handle->height * sizeof *handle->rows);
        if (handle->rows == NULL) {
            ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
            return -1;
        }
    }
    for (png_uint_32 y = 0; y < handle->height; y++) handle->rows[y] = buffer + (size_t)y * stride;
    if (setjmp(handle->fail)) {
        report_failure(handle, error);
        return -1;
    }
    // png_read_image's own loop, row by row, so that the caller can stop it: each of an
    // interlaced file's passes updates every row of the image.
    int passes = handle->interlaced ? png_set_interlace_handling(handle->png) : 1;
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < handle->height; y++) {
            if ((y & 15) == 0 && ccodecs_cancelled(cancel)) {
                ccodecs_set_error(error, CCODECS_CANCELLED, "cancelled");
                return -1;
            }
            png_read_row(handle->png, handle->rows[y], NULL);
        }
    }
    handle->next_row = handle->height;
    if (handle->has_alpha) {
        for (png_uint_32 y = 0; y < handle->height; y++) ccodecs_premultiply(handle->rows[y], handle->width);
    }
    return 0;
}

const uint8_t *ccodecs_png_icc_profile(ccodecs_png *handle, size_t *size) {
    *size = 0;
    // png_get_* raise no errors. An sRGB chunk wins over an iCCP chunk (the specification).
    if (png_get_valid(handle->png, handle->info, PNG_INFO_sRGB)) return NULL;
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 length = 0;
    if (!png_get_iCCP(handle->png, handle->info, &name, &compression, &profile, &length)) return NULL;
    *size = length;
    return profile;
}

int ccodecs_png_find_text(const char *path, const char *key, char *value, size_t capacity) {
    FILE *file = ccodecs_open_file(path, NULL);
    if (file == NULL) return -1;
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    unsigned char head[8];
    int found = -1;
    size_t key_length = strlen(key);
    if (fread(head, 1, 8, file) != 8 || memcmp(head, signature, 8) != 0) goto done;
    // Chunk by chunk, reading only the headers (and the text chunks), seeking past the rest.
    for (int chunks = 0; chunks < 100000 && fread(head, 1, 8, file) == 8; chunks++) {
        uint32_t length = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
        if (length > 0x7FFFFFFF) break;
        if (memcmp(head + 4, "IEND", 4) == 0) break;
        if (memcmp(head + 4, "tEXt", 4) == 0 && length > key_length && length - key_length - 1 < capacity) {
            char *text = malloc(length);
            if (text == NULL) break;
            if (fread(text, 1, length, file) != length) {
                free(text);
                break;
            }
            if (memcmp(text, key, key_length) == 0 && text[key_length] == 0) {
                size_t size = length - key_length - 1;
                memcpy(value, text + key_length + 1, size);
                value[size] = 0;
                free(text);
                found = 0;
                break;
            }
            free(text);
            if (fseek(file, 4, SEEK_CUR) != 0) break;  // the CRC
        } else if (fseek(file, (long)length + 4, SEEK_CUR) != 0) {
            break;
        }
    }
done:
    fclose(file);
    return found;
}

/// What ccodecs_png_write's libpng error handler needs.
struct png_writer {
    jmp_buf fail;
    char message[200];
};

static void on_write_error(png_structp png, png_const_charp message) {
    struct png_writer *writer = (struct png_writer *)png_get_error_ptr(png);
    snprintf(writer->message, sizeof writer->message, "%s", message);
    longjmp(writer->fail, 1);
}

int ccodecs_png_write(const char *path, const uint8_t *pixels, int width, int height, size_t stride,
                      const char *const *keys, const char *const *values, int count, ccodecs_error *error) {
    // A new file, the user's alone from the start (a thumbnail says which files they have).
    int descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    FILE *file = descriptor >= 0 ? fdopen(descriptor, "wb") : NULL;
    if (file == NULL) {
        if (descriptor >= 0) close(descriptor);
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno));
        return -1;
    }
    // Volatile: read after a longjmp back into this frame.
    struct png_writer writer;
    png_structp volatile png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &writer, on_write_error, on_warning);
    png_infop volatile info = png != NULL ? png_create_info_struct(png) : NULL;
    png_textp volatile texts = count > 0 ? calloc((size_t)count, sizeof *texts) : NULL;
    if (png == NULL || info == NULL || (count > 0 && texts == NULL)) {
        png_structp p = png;
        png_infop i = info;
        if (p != NULL) png_destroy_write_struct(&p, i != NULL ? &i : NULL);
        free(texts);
        fclose(file);
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return -1;
    }
    if (setjmp(writer.fail)) {
        png_structp p = png;
        png_infop i = info;
        png_destroy_write_struct(&p, &i);
        free(texts);
        fclose(file);
        ccodecs_set_error(error, CCODECS_CORRUPT, "%s", writer.message);
        return -1;
    }
    png_init_io(png, file);
    // Fast rather than small: zlib's level 1 and the Sub filter write a thumbnail three to four
    // times faster than the defaults, for files about a fifth larger.
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    for (int i = 0; i < count; i++) {
        texts[i].compression = PNG_TEXT_COMPRESSION_NONE;
        texts[i].key = (png_charp)keys[i];
        texts[i].text = (png_charp)values[i];
    }
    if (count > 0) png_set_text(png, info, texts, count);  // before the image data, where readers look
    png_write_info(png, info);
    for (int y = 0; y < height; y++) png_write_row(png, pixels + (size_t)y * stride);
    png_write_end(png, info);
    png_structp p = png;
    png_infop i = info;
    png_destroy_write_struct(&p, &i);
    free(texts);
    if (fclose(file) != 0) {
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno));
        return -1;
    }
    return 0;
}

void ccodecs_png_close(ccodecs_png *handle) {
    if (handle == NULL) return;
    // png_destroy_read_struct raises no errors, so no setjmp is needed here.
    if (handle->png != NULL) png_destroy_read_struct(&handle->png, handle->info != NULL ? &handle->info : NULL, NULL);
    free(handle->rows);
    if (handle->file != NULL) fclose(handle->file);
    free(handle);
}
