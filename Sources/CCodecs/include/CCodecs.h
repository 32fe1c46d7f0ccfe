// CCodecs: a small C layer over libjpeg(-turbo), libpng, libwebp, giflib, libheif, libexif and Little CMS 2
// for CanopyGraphics.
//
// libjpeg and libpng report fatal errors by longjmp. Swift frames must never be jumped over, so
// every entry point here sets its own setjmp before calling into those libraries and returns an
// error code and a message instead. Handles are independent: any number of threads may decode at
// once, each with its own handle; one handle is used by one thread at a time.
//
// Every decoder delivers premultiplied RGBA, 8 bits a component (R, G, B, A bytes).
#ifndef CCODECS_H
#define CCODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Why a call failed.
typedef enum {
    CCODECS_OK = 0,
    /// No file at the path.
    CCODECS_FILE_MISSING = 1,
    /// The file could not be opened or read (the system's reason is in the message).
    CCODECS_UNREADABLE = 2,
    /// The file ends before the image is complete.
    CCODECS_TRUNCATED = 3,
    /// The data is damaged (bad CRC, bad Huffman code, invalid compressed stream...).
    CCODECS_CORRUPT = 4,
    /// A valid file in a variant this build cannot decode (12-bit JPEG, animated WebP...).
    CCODECS_UNSUPPORTED = 5,
    /// The image needs more memory than the limits allow.
    CCODECS_TOO_LARGE = 6,
    /// An allocation failed.
    CCODECS_OUT_OF_MEMORY = 7,
    /// The caller's cancellation check said stop.
    CCODECS_CANCELLED = 8,
} ccodecs_status;

/// Asked between rows (or chunks of work) of every decode that can take long: a nonzero answer
/// stops it, failing with CCODECS_CANCELLED. A NULL `ccodecs_cancel *` never stops.
typedef struct {
    int (*check)(void *context);
    void *context;
} ccodecs_cancel;

/// The outcome of a failed call: a status and a human message (never empty on failure).
typedef struct {
    int status;
    char message[200];
} ccodecs_error;

typedef struct ccodecs_color_transform ccodecs_color_transform;

// MARK: JPEG

typedef struct ccodecs_jpeg ccodecs_jpeg;

typedef struct {
    /// The image's size in pixels.
    int width;
    int height;
    /// Colour components in the file: 1 grey, 3 YCbCr or RGB, 4 CMYK or YCCK.
    int components;
    /// Nonzero when the file has several scans (progressive, or non-interleaved sequential):
    /// libjpeg then keeps every DCT coefficient of the whole image in memory (about 2 bytes a
    /// sample) whatever the output scale.
    int multiple_scans;
    /// Nonzero for a progressive JPEG.
    int progressive;
    /// Set by ccodecs_jpeg_start: the size of the rows that ccodecs_jpeg_read_rows delivers
    /// (the image scaled in the DCT domain by scale_num / 8).
    int output_width;
    int output_height;
    int scale_num;
    /// Set by ccodecs_jpeg_start: the crop in output pixels (the crop scaled by scale_num / 8,
    /// rounded outward, within output_width x output_height).
    int output_crop_x;
    int output_crop_y;
    int output_crop_width;
    int output_crop_height;
} ccodecs_jpeg_info;

/// Opens a JPEG file and reads its header. Returns NULL and fills `error` on failure.
ccodecs_jpeg *ccodecs_jpeg_open(const char *path, ccodecs_jpeg_info *info, ccodecs_error *error);

/// Lets `cancel` (which must outlive the handle's use; NULL for none) stop the decode: it is asked
/// through libjpeg's progress monitor, once a row of DCT blocks while a multi-scan file is read
/// and as rows are output.
void ccodecs_jpeg_set_cancel(ccodecs_jpeg *jpeg, const ccodecs_cancel *cancel);

/// Chooses the smallest DCT scale (1/8, 1/4, 1/2 or 1) at which the crop (crop_x, crop_y,
/// crop_width, crop_height in image pixels, non-empty and inside the image; the whole image for
/// no crop), scaled and rounded outward to whole output pixels, still covers target_width x
/// target_height, and starts decompression (a multi-scan file is read whole here). Fills
/// info->output_width, output_height, scale_num and output_crop_*. Rows still come whole
/// (output_width wide): the caller keeps the crop's part. Returns 0, or -1 and fills `error`.
int ccodecs_jpeg_start(ccodecs_jpeg *jpeg, int crop_x, int crop_y, int crop_width, int crop_height,
                       int target_width, int target_height, ccodecs_jpeg_info *info, ccodecs_error *error);

/// Reads up to max_rows rows of output_width RGBA pixels into buffer, rows `stride` bytes apart.
/// Grey and CMYK/YCCK files are converted to RGB; alpha is 255. Returns the number of rows read
/// (0 once all have been read), or -1 and fills `error`: a premature end of the file is
/// CCODECS_TRUNCATED, data that libjpeg had to skip or resynchronise over is CCODECS_CORRUPT.
int ccodecs_jpeg_read_rows(ccodecs_jpeg *jpeg, uint8_t *buffer, size_t stride, int max_rows,
                           ccodecs_error *error);

/// The ICC profile embedded in the file's APP2 segments (read with the header), or NULL. The
/// bytes stay valid until the handle is closed.
const uint8_t *ccodecs_jpeg_icc_profile(ccodecs_jpeg *jpeg, size_t *size);

/// For a CMYK or YCCK file: converts its rows through `transform` (made for
/// CCODECS_COLOR_CMYK or CCODECS_COLOR_CMYK_INVERTED, as ccodecs_jpeg_cmyk_input says) instead
/// of the plain formula. The transform must outlive the reads. Call before reading rows.
void ccodecs_jpeg_set_cmyk_transform(ccodecs_jpeg *jpeg, const ccodecs_color_transform *transform);

/// CCODECS_COLOR_CMYK or CCODECS_COLOR_CMYK_INVERTED for a CMYK or YCCK file (inverted when an
/// Adobe marker says so), CCODECS_COLOR_RGBA_PREMULTIPLIED for others.
int ccodecs_jpeg_cmyk_input(ccodecs_jpeg *jpeg);

/// Releases the handle and closes the file. Accepts NULL.
void ccodecs_jpeg_close(ccodecs_jpeg *jpeg);

/// Writes `width` x `height` RGBA pixels (alpha ignored), rows `stride` bytes apart, as a baseline
/// JPEG of `quality` (1 to 100) at `path`, with `exif` (an APP1 payload: "Exif\0\0" and TIFF data;
/// NULL for none) after the JFIF header. Returns 0, or -1 and fills `error`.
int ccodecs_jpeg_write(const char *path, const uint8_t *pixels, int width, int height, size_t stride, int quality,
                       const uint8_t *exif, size_t exif_size, ccodecs_error *error);

// MARK: PNG

typedef struct ccodecs_png ccodecs_png;

typedef struct {
    int width;
    int height;
    /// Nonzero for an Adam7-interlaced file: only ccodecs_png_read_image can read it.
    int interlaced;
    /// Nonzero when the image has an alpha channel or a transparent colour (tRNS).
    int has_alpha;
    /// The file's bit depth and PNG colour type, for information.
    int bit_depth;
    int color_type;
} ccodecs_png_info;

/// Opens a PNG file, reads its header and sets the transforms to 8-bit RGBA (palette, grey,
/// 1/2/4-bit, 16-bit and tRNS expanded). Returns NULL and fills `error` on failure.
ccodecs_png *ccodecs_png_open(const char *path, ccodecs_png_info *info, ccodecs_error *error);

/// Reads the next up to max_rows rows of a non-interlaced PNG as premultiplied RGBA into
/// buffer, rows `stride` bytes apart. Returns the number of rows read (0 at the end), or -1 and
/// fills `error`. Fails for an interlaced file.
int ccodecs_png_read_rows(ccodecs_png *png, uint8_t *buffer, size_t stride, int max_rows,
                          ccodecs_error *error);

/// Reads the whole image (interlaced or not, and no rows may have been read before) as
/// premultiplied RGBA into buffer, which holds height rows `stride` bytes apart.
/// Returns 0, or -1 and fills `error`.
/// Asks `cancel` every 16 rows of each pass.
int ccodecs_png_read_image(ccodecs_png *png, uint8_t *buffer, size_t stride, const ccodecs_cancel *cancel,
                           ccodecs_error *error);

/// The ICC profile of the file's iCCP chunk (read with the header), or NULL when it has none or
/// says it is sRGB (an sRGB chunk). The bytes stay valid until the handle is closed.
const uint8_t *ccodecs_png_icc_profile(ccodecs_png *png, size_t *size);

/// Finds the uncompressed text chunk (tEXt) named `key` anywhere in the PNG file at `path`,
/// before or after the image data, walking the chunks without decompressing anything, and copies
/// its text, NUL-terminated, into `value` (`capacity` bytes, the NUL included). Returns 0, or -1
/// when the file cannot be read, is not a PNG, has no such chunk or its text does not fit.
int ccodecs_png_find_text(const char *path, const char *key, char *value, size_t capacity);

/// Writes `width` x `height` straight (not premultiplied) RGBA pixels, rows `stride` bytes apart,
/// as an 8-bit RGBA PNG at `path` (a new file, mode 0600: it must not exist), with `count` uncompressed text chunks
/// (`keys[i]` = `values[i]`, Latin-1) before the image data. Returns 0, or -1 and fills `error`
/// (the file may then be partly written).
int ccodecs_png_write(const char *path, const uint8_t *pixels, int width, int height, size_t stride,
                      const char *const *keys, const char *const *values, int count, ccodecs_error *error);

/// Releases the handle and closes the file. Accepts NULL.
void ccodecs_png_close(ccodecs_png *png);

// MARK: WebP

typedef struct ccodecs_webp ccodecs_webp;

typedef struct {
    int width;
    int height;
    int has_alpha;
    /// Nonzero for an animated file (refused by ccodecs_webp_open).
    int has_animation;
    /// Nonzero for lossless (VP8L) data: its decoder holds the whole image (4 bytes a pixel)
    /// in memory whatever the output size.
    int lossless;
} ccodecs_webp_info;

/// Reads a WebP file into memory and parses its header. Returns NULL and fills `error` on
/// failure (an animated file is CCODECS_UNSUPPORTED).
ccodecs_webp *ccodecs_webp_open(const char *path, ccodecs_webp_info *info, ccodecs_error *error);

/// Decodes the crop (crop_x, crop_y, crop_width, crop_height in image pixels, non-empty and
/// inside the image; the whole image for no crop) as premultiplied RGBA scaled to exactly
/// output_width x output_height (the crop's own size for no scaling) into buffer, rows `stride`
/// bytes apart. Lossy data can only be cropped from even coordinates (its chroma is half size): an
/// odd crop_x or crop_y fails as CCODECS_UNSUPPORTED. Returns 0, or -1 and fills `error`.
/// The data is fed to libwebp's incremental decoder 64 KiB at a time, asking `cancel` between.
int ccodecs_webp_decode(ccodecs_webp *webp, int crop_x, int crop_y, int crop_width, int crop_height,
                        int output_width, int output_height, uint8_t *buffer, size_t stride,
                        const ccodecs_cancel *cancel, ccodecs_error *error);

/// The ICC profile of an extended file's ICCP chunk, or NULL. The bytes stay valid until the
/// handle is closed.
const uint8_t *ccodecs_webp_icc_profile(ccodecs_webp *webp, size_t *size);

/// Releases the handle and its copy of the file. Accepts NULL.
void ccodecs_webp_close(ccodecs_webp *webp);

// MARK: HEIF and AVIF

typedef struct ccodecs_heif ccodecs_heif;

typedef struct {
    /// The primary image's size as shown (libheif applies the file's rotation and mirroring).
    int width;
    int height;
    int has_alpha;
} ccodecs_heif_info;

/// Opens a HEIF (HEIC) or AVIF file and reads its primary image's description (not its pixels).
/// Returns NULL and fills `error` on failure.
ccodecs_heif *ccodecs_heif_open(const char *path, ccodecs_heif_info *info, ccodecs_error *error);

/// The same for a file's bytes in memory, which must outlive the handle.
ccodecs_heif *ccodecs_heif_open_memory(const uint8_t *data, size_t size, ccodecs_heif_info *info,
                                       ccodecs_error *error);

/// Decodes the primary image whole (libheif cannot decode part of it, nor stop midway) as
/// straight RGBA, turned and mirrored as the file says, and returns its pixels (valid until the
/// handle is closed; they may be changed in place), rows `*stride` bytes apart. Returns NULL and
/// fills `error` on failure.
uint8_t *ccodecs_heif_decode(ccodecs_heif *heif, size_t *stride, ccodecs_error *error);

/// The primary image's ICC profile, or NULL. Valid until the handle is closed.
const uint8_t *ccodecs_heif_icc_profile(ccodecs_heif *heif, size_t *size);

/// Releases the handle. Accepts NULL.
void ccodecs_heif_close(ccodecs_heif *heif);

// MARK: Animations (GIF and WebP)

typedef struct ccodecs_animation ccodecs_animation;

/// The largest animation file opened (it is read into memory whole): 256 MiB.
#define CCODECS_ANIMATION_FILE_MAXIMUM ((size_t)256 << 20)

typedef struct {
    /// The canvas (a GIF's logical screen, a WebP's canvas) in pixels.
    int width;
    int height;
    /// The frames in the file (a GIF's counted by walking its blocks: a file cut short ends with
    /// its last complete frame).
    int frame_count;
    /// How many times the whole animation plays: 0 for forever. A GIF without a NETSCAPE2.0
    /// extension plays once; with one, its count plus the first play, as browsers do.
    int loop_count;
} ccodecs_animation_info;

/// Opens an animated (or still) GIF or WebP, read into memory whole, and reads its description
/// (not its frames). A canvas of more than `max_pixels`, or a file over
/// CCODECS_ANIMATION_FILE_MAXIMUM, is CCODECS_TOO_LARGE; a GIF frame of more than four times its
/// screen's pixels fails as CCODECS_CORRUPT when it comes. Returns NULL and fills `error` on
/// failure.
ccodecs_animation *ccodecs_animation_open(const char *path, long long max_pixels, ccodecs_animation_info *info,
                                          ccodecs_error *error);

/// The same for bytes in memory (copied).
ccodecs_animation *ccodecs_animation_open_memory(const uint8_t *bytes, size_t size, long long max_pixels,
                                                 ccodecs_animation_info *info, ccodecs_error *error);

/// Decodes the next frame onto the canvas (after the last frame, the first again, on a clean
/// canvas) and returns the whole canvas as premultiplied RGBA, width * 4 bytes a row, valid until
/// the next call; sets `*index` (from 0) and `*duration` in milliseconds (10 ms or less shows for
/// 100, as in browsers). Asks `cancel` every 16 rows of a GIF frame (a WebP frame cannot be
/// stopped inside). Returns NULL and fills `error` on failure; the next call then starts over.
const uint8_t *ccodecs_animation_next(ccodecs_animation *animation, int *index, int *duration,
                                      const ccodecs_cancel *cancel, ccodecs_error *error);

/// Releases the handle and its copy of the file. Accepts NULL.
void ccodecs_animation_close(ccodecs_animation *animation);

/// Writes `count` frames of `width` x `height` straight RGBA pixels (rows packed), shown
/// `durations[i]` milliseconds each (in GIF's hundredths), as an animated GIF playing `loops`
/// times in all (0: forever): each frame whole, with its own colour table (its exact colours when
/// it has at most 255, else a 6 x 7 x 6 cube); alpha under 128 is transparent. Returns 0, or -1
/// and fills `error`.
int ccodecs_gif_write_animation(const char *path, const uint8_t *const *frames, const int *durations, int count,
                                int width, int height, int loops, ccodecs_error *error);

/// The same as an animated WebP, lossy at `quality` (0 to 99) or lossless for 100.
int ccodecs_webp_write_animation(const char *path, const uint8_t *const *frames, const int *durations, int count,
                                 int width, int height, int loops, int quality, ccodecs_error *error);

// MARK: Checks for the formats SDL_image decodes

/// Where the first frame of a GIF lies on its logical screen.
typedef struct {
    int screen_width;
    int screen_height;
    int left;
    int top;
    int width;
    int height;
} ccodecs_gif_frame;

/// Walks a GIF's blocks up to the end of its first image's data, which SDL_image does not check:
/// a file that ends before then is CCODECS_TRUNCATED. Fills `frame`. Returns 0, or -1 and fills
/// `error`.
int ccodecs_gif_first_frame(const char *path, ccodecs_gif_frame *frame, ccodecs_error *error);

/// Checks that an uncompressed BMP file holds all the pixel rows its header promises (a shorter
/// one is CCODECS_TRUNCATED). Compressed BMPs pass unchecked. Returns 0, or -1 and fills `error`.
int ccodecs_bmp_check(const char *path, ccodecs_error *error);

// MARK: EXIF

/// The most EXIF bytes the EXIF functions accept (a JPEG APP1 segment holds at most 65,533).
#define CCODECS_EXIF_MAXIMUM (1024 * 1024)

/// The orientation tag (1 to 8, as TIFF defines them) of EXIF data through libexif: the payload
/// of a JPEG APP1 segment ("Exif\0\0" then TIFF data) or of a PNG eXIf or WebP EXIF chunk (the
/// TIFF data alone, or with that prefix). 1 (stored order) when the data holds no valid tag,
/// is damaged or is larger than CCODECS_EXIF_MAXIMUM. Any thread.
int ccodecs_exif_orientation(const uint8_t *data, size_t size);

/// The thumbnail embedded in EXIF data (IFD1, as cameras and phones write one: a JPEG of about
/// 160 x 120), copied into memory the caller releases with `ccodecs_free`. Returns 0 and sets
/// `*thumbnail` and `*thumbnail_size`, or -1 when there is none (or the data is damaged). Any
/// thread.
int ccodecs_exif_thumbnail(const uint8_t *data, size_t size, uint8_t **thumbnail, size_t *thumbnail_size);

/// Releases memory CCodecs allocated for the caller. Accepts NULL.
void ccodecs_free(void *pointer);

// MARK: Colour

/// The largest ICC profile accepted (real ones are a few hundred bytes to a few hundred KB).
#define CCODECS_ICC_MAXIMUM 4194304  // 4 MiB

/// What a colour transform takes in.
enum {
    /// Premultiplied RGBA (R, G, B, A bytes); alpha is kept.
    CCODECS_COLOR_RGBA_PREMULTIPLIED = 0,
    /// CMYK bytes, 0 for no ink (out: opaque RGBA).
    CCODECS_COLOR_CMYK = 1,
    /// CMYK bytes inverted, 255 for no ink, as Adobe applications write JPEGs (out: opaque RGBA).
    CCODECS_COLOR_CMYK_INVERTED = 2,
    /// RGBA whose every alpha is 255 (converted faster than premultiplied pixels).
    CCODECS_COLOR_RGBA_OPAQUE = 3,
};

/// A Little CMS transform from an embedded ICC profile (an RGB profile for the RGBA inputs, a
/// CMYK one for the CMYK inputs) to sRGB, perceptual intent.
/// Returns NULL and fills `error` when there is nothing to do or it cannot be done: status
/// CCODECS_OK for a profile that describes sRGB itself (no conversion needed), otherwise
/// CCODECS_CORRUPT or CCODECS_UNSUPPORTED with the reason. Any thread; the transform may then be
/// applied by any number of threads at once.
ccodecs_color_transform *ccodecs_color_transform_create(const uint8_t *icc, size_t size, int input,
                                                        ccodecs_error *error);

/// Converts `count` pixels of 4 bytes from `input` to sRGB RGBA in `output` (not overlapping
/// `input`).
void ccodecs_color_transform_apply(const ccodecs_color_transform *transform, const uint8_t *input,
                                   uint8_t *output, size_t count);

/// Releases a transform. Accepts NULL.
void ccodecs_color_transform_free(ccodecs_color_transform *transform);

// MARK: Checksums

/// The MD5 digest of `size` bytes (OpenSSL's libcrypto), as the thumbnail standard names files.
/// Returns 0, or -1 when libcrypto cannot compute it.
int ccodecs_md5(const void *data, size_t size, uint8_t digest[16]);

// MARK: Pixels

/// Premultiplies `count` straight RGBA pixels in place: c' = round(c * a / 255).
void ccodecs_premultiply(uint8_t *pixels, size_t count);

#ifdef __cplusplus
}
#endif

#endif
