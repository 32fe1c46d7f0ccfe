// JPEG decoding through libjpeg(-turbo), with libjpeg's longjmp errors kept inside this file.
#include "internal.h"

#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

struct ccodecs_jpeg {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr errors;
    /// Where libjpeg's error_exit jumps: set by every entry point before it calls libjpeg.
    jmp_buf fail;
    FILE *file;
    /// libjpeg warned that the data ended early (JWRN_JPEG_EOF): it pads with grey from there.
    int hit_end;
    /// libjpeg warned about damaged data (and skipped or resynchronised over it).
    int damaged;
    /// The first damage warning's text.
    char damage[JMSG_LENGTH_MAX];
    /// Rows come out as CMYK (4 bytes a pixel) and are converted to RGBA in place.
    int cmyk;
    /// The CMYK values are inverted, as Adobe applications write them (an Adobe marker).
    int inverted;
    /// The embedded ICC profile (jpeg_read_icc_profile's malloc'd copy), or NULL.
    JOCTET *icc;
    unsigned int icc_size;
    /// A CMYK file's conversion through its profile, and a row for its output.
    const ccodecs_color_transform *cmyk_transform;
    uint8_t *cmyk_row;
    /// The caller's cancellation check, asked by the progress monitor.
    struct jpeg_progress_mgr progress;
    const ccodecs_cancel *cancel;
    /// The check said stop (and the progress monitor jumped to `fail`).
    int cancelled;
};

// MARK: libjpeg's message hooks

static void on_error_exit(j_common_ptr cinfo) {
    struct ccodecs_jpeg *jpeg = (struct ccodecs_jpeg *)cinfo->client_data;
    longjmp(jpeg->fail, 1);
}

/// Warnings that mean pixels are damaged (libjpeg fills them with grey or garbage). Others are
/// not errors: stray bytes between segments (JWRN_EXTRANEOUS_DATA), odd but readable scan
/// parameters (JWRN_NOT_SEQUENTIAL), unknown JFIF or Adobe fields, a bad ICC profile: real
/// cameras and editors write such files and they decode fine.
static int is_damage_warning(int code) {
    switch (code) {
    case JWRN_HIT_MARKER:         // Corrupt JPEG data: premature end of data segment
    case JWRN_HUFF_BAD_CODE:      // Corrupt JPEG data: bad Huffman code
    case JWRN_MUST_RESYNC:        // Corrupt JPEG data: found marker instead of RST
    case JWRN_BOGUS_PROGRESSION:  // Inconsistent progression sequence
    case JWRN_ARITH_BAD_CODE:     // Corrupt JPEG data: bad arithmetic code
        return 1;
    default:
        return 0;
    }
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages
    struct ccodecs_jpeg *jpeg = (struct ccodecs_jpeg *)cinfo->client_data;
    int code = cinfo->err->msg_code;
    cinfo->err->num_warnings++;
    if (code == JWRN_JPEG_EOF) {
        jpeg->hit_end = 1;
    } else if (is_damage_warning(code) && !jpeg->damaged) {
        jpeg->damaged = 1;
        cinfo->err->format_message(cinfo, jpeg->damage);
    }
}

static void on_output_message(j_common_ptr cinfo) {
    (void)cinfo;  // never print to stderr
}

// MARK: Errors

/// libjpeg's progress hook: asks the caller whether to stop, and stops by the error path.
static void on_progress(j_common_ptr cinfo) {
    struct ccodecs_jpeg *jpeg = (struct ccodecs_jpeg *)cinfo->client_data;
    if (ccodecs_cancelled(jpeg->cancel)) {
        jpeg->cancelled = 1;
        longjmp(jpeg->fail, 1);
    }
}

/// Fills `error` after libjpeg jumped to `fail`.
static void report_failure(struct ccodecs_jpeg *jpeg, ccodecs_error *error) {
    if (jpeg->cancelled) {
        ccodecs_set_error(error, CCODECS_CANCELLED, "cancelled");
        return;
    }
    char text[JMSG_LENGTH_MAX];
    jpeg->cinfo.err->format_message((j_common_ptr)&jpeg->cinfo, text);
    int code = jpeg->cinfo.err->msg_code;
    if (code == JERR_INPUT_EMPTY || jpeg->hit_end) {
        if (ferror(jpeg->file)) {
            ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno));
        } else {
            ccodecs_set_error(error, CCODECS_TRUNCATED, "the JPEG data ends early");
        }
        return;
    }
    int status;
    switch (code) {
    case JERR_OUT_OF_MEMORY:
        status = CCODECS_OUT_OF_MEMORY;
        break;
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
    case JERR_NO_BACKING_STORE:
        status = CCODECS_TOO_LARGE;
        break;
    case JERR_FILE_READ:
        status = CCODECS_UNREADABLE;
        break;
    case JERR_SOF_UNSUPPORTED:     // lossless and hierarchical JPEG
    case JERR_EMPTY_IMAGE:         // a height given later by a DNL marker
    case JERR_BAD_PRECISION:       // 12- or 16-bit samples
    case JERR_ARITH_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:  // an unknown colour space
    case JERR_CCIR601_NOTIMPL:
        status = CCODECS_UNSUPPORTED;
        break;
    default:
        status = CCODECS_CORRUPT;
        break;
    }
    ccodecs_set_error(error, status, "%s", text);
}

/// After a libjpeg call returned: turns a recorded warning into an error. Returns -1 if it did.
static int check_warnings(struct ccodecs_jpeg *jpeg, ccodecs_error *error) {
    if (jpeg->hit_end) {
        if (ferror(jpeg->file)) {
            ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno));
        } else {
            ccodecs_set_error(error, CCODECS_TRUNCATED, "the JPEG data ends early");
        }
        return -1;
    }
    if (jpeg->damaged) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "%s", jpeg->damage);
        return -1;
    }
    return 0;
}

// MARK: Entry points

ccodecs_jpeg *ccodecs_jpeg_open(const char *path, ccodecs_jpeg_info *info, ccodecs_error *error) {
    FILE *file = ccodecs_open_file(path, error);
    if (file == NULL) return NULL;
    struct ccodecs_jpeg *jpeg = calloc(1, sizeof *jpeg);
    if (jpeg == NULL) {
        fclose(file);
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    jpeg->file = file;
    jpeg->cinfo.err = jpeg_std_error(&jpeg->errors);
    jpeg->errors.error_exit = on_error_exit;
    jpeg->errors.emit_message = on_emit_message;
    jpeg->errors.output_message = on_output_message;
    jpeg->cinfo.client_data = jpeg;
    if (setjmp(jpeg->fail)) {
        report_failure(jpeg, error);
        ccodecs_jpeg_close(jpeg);
        return NULL;
    }
    jpeg_create_decompress(&jpeg->cinfo);
    jpeg_stdio_src(&jpeg->cinfo, file);
    jpeg_save_markers(&jpeg->cinfo, JPEG_APP0 + 2, 0xFFFF);  // ICC profiles live in APP2
    jpeg_read_header(&jpeg->cinfo, TRUE);
    if (check_warnings(jpeg, error) != 0) {
        ccodecs_jpeg_close(jpeg);
        return NULL;
    }
    J_COLOR_SPACE space = jpeg->cinfo.jpeg_color_space;
    if (space == JCS_CMYK || space == JCS_YCCK) {
        jpeg->cmyk = 1;
        jpeg->inverted = jpeg->cinfo.saw_Adobe_marker;
        jpeg->cinfo.out_color_space = JCS_CMYK;
    } else {
        jpeg->cinfo.out_color_space = JCS_EXT_RGBA;  // grey and RGB too; alpha is 0xFF
    }
    if (!jpeg_read_icc_profile(&jpeg->cinfo, &jpeg->icc, &jpeg->icc_size)) {
        jpeg->icc = NULL;  // none, or damaged: the pixels are taken as sRGB
        jpeg->icc_size = 0;
    }
    memset(info, 0, sizeof *info);
    info->width = (int)jpeg->cinfo.image_width;
    info->height = (int)jpeg->cinfo.image_height;
    info->components = jpeg->cinfo.num_components;
    info->multiple_scans = jpeg_has_multiple_scans(&jpeg->cinfo) ? 1 : 0;
    info->progressive = jpeg->cinfo.progressive_mode ? 1 : 0;
    return jpeg;
}

/// floor(value * eighths / 8) and its ceiling, for non-negative values.
static unsigned scaled_down(unsigned value, unsigned eighths) { return value * eighths / 8; }
static unsigned scaled_up(unsigned value, unsigned eighths) { return (value * eighths + 7) / 8; }

int ccodecs_jpeg_start(ccodecs_jpeg *jpeg, int crop_x, int crop_y, int crop_width, int crop_height,
                       int target_width, int target_height, ccodecs_jpeg_info *info, ccodecs_error *error) {
    if (setjmp(jpeg->fail)) {
        report_failure(jpeg, error);
        return -1;
    }
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (crop_x < 0 || crop_y < 0 || crop_width <= 0 || crop_height <= 0 ||
        (unsigned)crop_x + (unsigned)crop_width > cinfo->image_width ||
        (unsigned)crop_y + (unsigned)crop_height > cinfo->image_height) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "a crop outside the JPEG image");
        return -1;
    }
    unsigned wanted_width = target_width > 0 ? (unsigned)target_width : 1;
    unsigned wanted_height = target_height > 0 ? (unsigned)target_height : 1;
    unsigned left = (unsigned)crop_x, top = (unsigned)crop_y;
    unsigned right = left + (unsigned)crop_width, bottom = top + (unsigned)crop_height;
    unsigned x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    cinfo->scale_denom = 8;
    cinfo->scale_num = 8;
    // Only 1/8, 1/4, 1/2 and 1: libjpeg-turbo has SIMD code for these, and what follows them
    // (our area average) then comes closer to an exact area average than after 3/8, 5/8...
    // Sides are at most 65500, so value * 8 cannot overflow.
    for (unsigned eighths = 1; eighths <= 8; eighths *= 2) {
        cinfo->scale_num = eighths;
        jpeg_calc_output_dimensions(cinfo);
        x0 = scaled_down(left, eighths);
        y0 = scaled_down(top, eighths);
        x1 = scaled_up(right, eighths);
        y1 = scaled_up(bottom, eighths);
        if (x1 > cinfo->output_width) x1 = cinfo->output_width;
        if (y1 > cinfo->output_height) y1 = cinfo->output_height;
        if (x1 - x0 >= wanted_width && y1 - y0 >= wanted_height) break;
    }
    jpeg_start_decompress(cinfo);  // a multi-scan file is read whole here
    if (check_warnings(jpeg, error) != 0) return -1;
    if (cinfo->output_components != 4) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "JPEG output of %d components", cinfo->output_components);
        return -1;
    }
    info->output_width = (int)cinfo->output_width;
    info->output_height = (int)cinfo->output_height;
    info->scale_num = (int)cinfo->scale_num * 8 / (int)cinfo->scale_denom;
    info->output_crop_x = (int)x0;
    info->output_crop_y = (int)y0;
    info->output_crop_width = (int)(x1 - x0);
    info->output_crop_height = (int)(y1 - y0);
    return 0;
}

/// Converts a row of CMYK (or inverted CMYK) to opaque RGB in place.
static void cmyk_to_rgba(uint8_t *row, size_t count, int inverted) {
    uint8_t *end = row + count * 4;
    for (uint8_t *p = row; p < end; p += 4) {
        unsigned c = p[0], m = p[1], y = p[2], k = p[3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        // Inverted values are the amounts of light left: red = (1 - cyan) * (1 - black).
        p[0] = ccodecs_mul255(c, k);
        p[1] = ccodecs_mul255(m, k);
        p[2] = ccodecs_mul255(y, k);
        p[3] = 255;
    }
}

int ccodecs_jpeg_read_rows(ccodecs_jpeg *jpeg, uint8_t *buffer, size_t stride, int max_rows,
                           ccodecs_error *error) {
    if (setjmp(jpeg->fail)) {
        report_failure(jpeg, error);
        return -1;
    }
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    enum { batch = 16 };
    JSAMPROW rows[batch];
    int done = 0;
    while (done < max_rows && cinfo->output_scanline < cinfo->output_height) {
        int count = max_rows - done < batch ? max_rows - done : batch;
        for (int i = 0; i < count; i++) rows[i] = buffer + (size_t)(done + i) * stride;
        JDIMENSION got = jpeg_read_scanlines(cinfo, rows, (JDIMENSION)count);
        if (check_warnings(jpeg, error) != 0) return -1;
        if (jpeg->cmyk && jpeg->cmyk_transform != NULL) {
            if (jpeg->cmyk_row == NULL) {
                jpeg->cmyk_row = malloc((size_t)cinfo->output_width * 4);
                if (jpeg->cmyk_row == NULL) {
                    ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
                    return -1;
                }
            }
            for (JDIMENSION i = 0; i < got; i++) {
                ccodecs_color_transform_apply(jpeg->cmyk_transform, rows[i], jpeg->cmyk_row, cinfo->output_width);
                memcpy(rows[i], jpeg->cmyk_row, (size_t)cinfo->output_width * 4);
            }
        } else if (jpeg->cmyk) {
            for (JDIMENSION i = 0; i < got; i++) cmyk_to_rgba(rows[i], cinfo->output_width, jpeg->inverted);
        }
        done += (int)got;
        if (got == 0) break;
    }
    return done;
}

void ccodecs_jpeg_set_cancel(ccodecs_jpeg *jpeg, const ccodecs_cancel *cancel) {
    jpeg->cancel = cancel;
    if (cancel != NULL) {
        jpeg->progress.progress_monitor = on_progress;
        jpeg->cinfo.progress = &jpeg->progress;
    } else {
        jpeg->cinfo.progress = NULL;
    }
}

const uint8_t *ccodecs_jpeg_icc_profile(ccodecs_jpeg *jpeg, size_t *size) {
    *size = jpeg->icc_size;
    return jpeg->icc;
}

void ccodecs_jpeg_set_cmyk_transform(ccodecs_jpeg *jpeg, const ccodecs_color_transform *transform) {
    jpeg->cmyk_transform = transform;
}

int ccodecs_jpeg_cmyk_input(ccodecs_jpeg *jpeg) {
    if (!jpeg->cmyk) return CCODECS_COLOR_RGBA_PREMULTIPLIED;
    return jpeg->inverted ? CCODECS_COLOR_CMYK_INVERTED : CCODECS_COLOR_CMYK;
}

void ccodecs_jpeg_close(ccodecs_jpeg *jpeg) {
    if (jpeg == NULL) return;
    free(jpeg->icc);
    free(jpeg->cmyk_row);
    // jpeg_destroy never raises an error, so no setjmp is needed here.
    jpeg_destroy_decompress(&jpeg->cinfo);
    if (jpeg->file != NULL) fclose(jpeg->file);
    free(jpeg);
}

// MARK: Writing

/// What ccodecs_jpeg_write's error handler needs.
struct jpeg_writer {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr errors;
    jmp_buf fail;
};

static void on_write_error_exit(j_common_ptr cinfo) {
    struct jpeg_writer *writer = (struct jpeg_writer *)cinfo->client_data;
    longjmp(writer->fail, 1);
}

int ccodecs_jpeg_write(const char *path, const uint8_t *pixels, int width, int height, size_t stride, int quality,
                       const uint8_t *exif, size_t exif_size, ccodecs_error *error) {
    FILE *file = fopen(path, "wb");
    if (file == NULL) {
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno));
        return -1;
    }
    struct jpeg_writer *writer = calloc(1, sizeof *writer);
    if (writer == NULL) {
        fclose(file);
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return -1;
    }
    writer->cinfo.err = jpeg_std_error(&writer->errors);
    writer->errors.error_exit = on_write_error_exit;
    writer->errors.output_message = on_output_message;
    writer->cinfo.client_data = writer;
    if (setjmp(writer->fail)) {
        char text[JMSG_LENGTH_MAX];
        writer->cinfo.err->format_message((j_common_ptr)&writer->cinfo, text);
        jpeg_destroy_compress(&writer->cinfo);
        free(writer);
        fclose(file);
        ccodecs_set_error(error, CCODECS_CORRUPT, "%s", text);
        return -1;
    }
    jpeg_create_compress(&writer->cinfo);
    jpeg_stdio_dest(&writer->cinfo, file);
    writer->cinfo.image_width = (JDIMENSION)width;
    writer->cinfo.image_height = (JDIMENSION)height;
    writer->cinfo.input_components = 4;
    writer->cinfo.in_color_space = JCS_EXT_RGBA;  // alpha ignored
    jpeg_set_defaults(&writer->cinfo);
    jpeg_set_quality(&writer->cinfo, quality, TRUE);
    jpeg_start_compress(&writer->cinfo, TRUE);
    if (exif != NULL && exif_size > 0 && exif_size <= 65533) {
        jpeg_write_marker(&writer->cinfo, JPEG_APP0 + 1, exif, (unsigned int)exif_size);
    }
    while (writer->cinfo.next_scanline < writer->cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)writer->cinfo.next_scanline * stride);
        jpeg_write_scanlines(&writer->cinfo, &row, 1);
    }
    jpeg_finish_compress(&writer->cinfo);
    jpeg_destroy_compress(&writer->cinfo);
    free(writer);
    if (fclose(file) != 0) {
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno));
        return -1;
    }
    return 0;
}
