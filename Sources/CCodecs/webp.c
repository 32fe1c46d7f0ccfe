// WebP decoding through libwebp (which reports errors by status, never by longjmp).
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <webp/decode.h>
#include <webp/demux.h>

struct ccodecs_webp {
    uint8_t *data;
    size_t size;
    int width;
    int height;
    int lossless;
    /// The ICCP chunk's bytes (inside `data`), or NULL.
    const uint8_t *icc;
    size_t icc_size;
};

/// Fills `error` for a libwebp status other than VP8_STATUS_OK.
static void report_status(VP8StatusCode status, ccodecs_error *error) {
    switch (status) {
    case VP8_STATUS_NOT_ENOUGH_DATA:
    case VP8_STATUS_SUSPENDED:
        ccodecs_set_error(error, CCODECS_TRUNCATED, "the WebP data ends early");
        break;
    case VP8_STATUS_OUT_OF_MEMORY:
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        break;
    case VP8_STATUS_UNSUPPORTED_FEATURE:
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "a WebP feature libwebp %d.%d.%d does not decode",
                          WebPGetDecoderVersion() >> 16, (WebPGetDecoderVersion() >> 8) & 0xFF,
                          WebPGetDecoderVersion() & 0xFF);
        break;
    case VP8_STATUS_BITSTREAM_ERROR:
        ccodecs_set_error(error, CCODECS_CORRUPT, "invalid WebP bitstream");
        break;
    default:
        ccodecs_set_error(error, CCODECS_CORRUPT, "libwebp status %d", (int)status);
        break;
    }
}

/// Finds an extended file's ICCP chunk through libwebp's demuxer (a damaged chunk list, or none,
/// leaves the profile out: the pixels are then taken as sRGB).
static void find_icc_profile(struct ccodecs_webp *webp) {
    WebPData whole = {webp->data, webp->size};
    WebPDemuxer *demuxer = WebPDemux(&whole);
    if (demuxer == NULL) return;
    if (WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & ICCP_FLAG) {
        WebPChunkIterator chunk;
        if (WebPDemuxGetChunk(demuxer, "ICCP", 1, &chunk)) {
            webp->icc = chunk.chunk.bytes;  // points into webp->data
            webp->icc_size = chunk.chunk.size;
            WebPDemuxReleaseChunkIterator(&chunk);
        }
    }
    WebPDemuxDelete(demuxer);
}

ccodecs_webp *ccodecs_webp_open(const char *path, ccodecs_webp_info *info, ccodecs_error *error) {
    size_t size = 0;
    uint8_t *data = ccodecs_read_file(path, SIZE_MAX, &size, error);  // libwebp caps the image itself
    if (data == NULL) return NULL;
    struct ccodecs_webp *webp = calloc(1, sizeof *webp);
    if (webp == NULL) {
        free(data);
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    webp->data = data;
    webp->size = size;
    WebPBitstreamFeatures features;
    VP8StatusCode result = WebPGetFeatures(webp->data, webp->size, &features);
    if (result != VP8_STATUS_OK) {
        report_status(result, error);
        ccodecs_webp_close(webp);
        return NULL;
    }
    if (features.has_animation) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "animated WebP");
        ccodecs_webp_close(webp);
        return NULL;
    }
    webp->width = features.width;
    webp->height = features.height;
    webp->lossless = features.format == 2;
    find_icc_profile(webp);
    info->width = features.width;
    info->height = features.height;
    info->has_alpha = features.has_alpha;
    info->has_animation = features.has_animation;
    info->lossless = features.format == 2;
    return webp;
}

int ccodecs_webp_decode(ccodecs_webp *webp, int crop_x, int crop_y, int crop_width, int crop_height,
                        int output_width, int output_height, uint8_t *buffer, size_t stride,
                        const ccodecs_cancel *cancel, ccodecs_error *error) {
    if (crop_x < 0 || crop_y < 0 || crop_width <= 0 || crop_height <= 0 ||
        crop_x > webp->width - crop_width || crop_y > webp->height - crop_height) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "a crop outside the WebP image");
        return -1;
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "libwebp version mismatch");
        return -1;
    }
    if (!webp->lossless && ((crop_x | crop_y) & 1)) {
        // libwebp would move the crop to even coordinates itself, shifting the picture.
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "a lossy WebP crop must start at even coordinates");
        return -1;
    }
    if (crop_width != webp->width || crop_height != webp->height) {
        config.options.use_cropping = 1;
        config.options.crop_left = crop_x;
        config.options.crop_top = crop_y;
        config.options.crop_width = crop_width;
        config.options.crop_height = crop_height;
    }
    if (output_width != crop_width || output_height != crop_height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = output_width;
        config.options.scaled_height = output_height;
    }
    config.output.colorspace = MODE_rgbA;  // premultiplied RGBA
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = buffer;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * (size_t)output_height;
    // The incremental decoder decodes what the data given so far holds, so feeding it in steps
    // lets the caller stop between them.
    WebPIDecoder *decoder = WebPIDecode(NULL, 0, &config);
    if (decoder == NULL) {
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return -1;
    }
    enum { step = 64 * 1024 };
    VP8StatusCode result = VP8_STATUS_SUSPENDED;
    for (size_t given = 0; given < webp->size && result == VP8_STATUS_SUSPENDED;) {
        if (ccodecs_cancelled(cancel)) {
            WebPIDelete(decoder);
            WebPFreeDecBuffer(&config.output);
            ccodecs_set_error(error, CCODECS_CANCELLED, "cancelled");
            return -1;
        }
        given = webp->size - given > step ? given + step : webp->size;
        result = WebPIUpdate(decoder, webp->data, given);
    }
    WebPIDelete(decoder);
    WebPFreeDecBuffer(&config.output);  // frees nothing of ours: the memory is external
    if (result != VP8_STATUS_OK) {
        report_status(result, error);  // still suspended at the end: the data ends early
        return -1;
    }
    return 0;
}

const uint8_t *ccodecs_webp_icc_profile(ccodecs_webp *webp, size_t *size) {
    *size = webp->icc_size;
    return webp->icc;
}

void ccodecs_webp_close(ccodecs_webp *webp) {
    if (webp == NULL) return;
    free(webp->data);
    free(webp);
}
