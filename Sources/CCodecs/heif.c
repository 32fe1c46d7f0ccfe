// HEIF (HEIC) and AVIF decoding through libheif, which brings its own HEVC (libde265) and AV1
// (dav1d, libaom) decoders. libheif reports errors by value, never by longjmp.
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

struct ccodecs_heif {
    struct heif_context *context;
    struct heif_image_handle *handle;
    struct heif_image *image;
    uint8_t *icc;
    size_t icc_size;
};

/// Fills `error` from a libheif error.
static void report(struct heif_error failure, ccodecs_error *error) {
    int status;
    switch (failure.code) {
    case heif_error_Input_does_not_exist:
        status = CCODECS_FILE_MISSING;
        break;
    case heif_error_Unsupported_filetype:
    case heif_error_Unsupported_feature:
        status = CCODECS_UNSUPPORTED;
        break;
    case heif_error_Memory_allocation_error:
        status = CCODECS_OUT_OF_MEMORY;
        break;
    case heif_error_Invalid_input:
        status = failure.subcode == heif_suberror_End_of_data ? CCODECS_TRUNCATED : CCODECS_CORRUPT;
        break;
    default:
        status = CCODECS_CORRUPT;
        break;
    }
    ccodecs_set_error(error, status, "%s", failure.message != NULL ? failure.message : "libheif failed");
}

static void load_plugins(void) { heif_init(NULL); }

/// libheif's plugins are loaded once for the process, before any thread uses it.
static void initialize(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_plugins);
}

static ccodecs_heif *open_context(struct heif_context *context, struct heif_error failure,
                                  ccodecs_heif_info *info, ccodecs_error *error) {
    if (failure.code != heif_error_Ok) {
        report(failure, error);
        heif_context_free(context);
        return NULL;
    }
    struct ccodecs_heif *heif = calloc(1, sizeof *heif);
    if (heif == NULL) {
        heif_context_free(context);
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    heif->context = context;
    failure = heif_context_get_primary_image_handle(context, &heif->handle);
    if (failure.code != heif_error_Ok) {
        report(failure, error);
        ccodecs_heif_close(heif);
        return NULL;
    }
    // The size as shown: libheif applies the file's rotation and mirroring (irot, imir).
    info->width = heif_image_handle_get_width(heif->handle);
    info->height = heif_image_handle_get_height(heif->handle);
    info->has_alpha = heif_image_handle_has_alpha_channel(heif->handle);
    if (heif_image_handle_get_color_profile_type(heif->handle) == heif_color_profile_type_prof ||
        heif_image_handle_get_color_profile_type(heif->handle) == heif_color_profile_type_rICC) {
        size_t size = heif_image_handle_get_raw_color_profile_size(heif->handle);
        if (size > 0 && size <= CCODECS_ICC_MAXIMUM && (heif->icc = malloc(size)) != NULL) {
            if (heif_image_handle_get_raw_color_profile(heif->handle, heif->icc).code == heif_error_Ok) {
                heif->icc_size = size;
            } else {
                free(heif->icc);
                heif->icc = NULL;
            }
        }
    }
    return heif;
}

ccodecs_heif *ccodecs_heif_open(const char *path, ccodecs_heif_info *info, ccodecs_error *error) {
    // Refuse what is not a regular file before libheif opens it (a FIFO would block it).
    FILE *check = ccodecs_open_file(path, error);
    if (check == NULL) return NULL;
    fclose(check);
    initialize();
    struct heif_context *context = heif_context_alloc();
    if (context == NULL) {
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    return open_context(context, heif_context_read_from_file(context, path, NULL), info, error);
}

ccodecs_heif *ccodecs_heif_open_memory(const uint8_t *data, size_t size, ccodecs_heif_info *info,
                                       ccodecs_error *error) {
    initialize();
    struct heif_context *context = heif_context_alloc();
    if (context == NULL) {
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    return open_context(context, heif_context_read_from_memory_without_copy(context, data, size, NULL), info, error);
}

uint8_t *ccodecs_heif_decode(ccodecs_heif *heif, size_t *stride, ccodecs_error *error) {
    if (heif->image == NULL) {
        struct heif_error failure = heif_decode_image(heif->handle, &heif->image, heif_colorspace_RGB,
                                                      heif_chroma_interleaved_RGBA, NULL);
        if (failure.code != heif_error_Ok) {
            report(failure, error);
            return NULL;
        }
    }
    int bytes_per_line = 0;
    uint8_t *plane = heif_image_get_plane(heif->image, heif_channel_interleaved, &bytes_per_line);
    if (plane == NULL || bytes_per_line <= 0) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "libheif gave no RGBA plane");
        return NULL;
    }
    // The decoded image must be the size its description gave (what the caller reads).
    int width = heif_image_get_width(heif->image, heif_channel_interleaved);
    int height = heif_image_get_height(heif->image, heif_channel_interleaved);
    if (width != heif_image_handle_get_width(heif->handle) || height != heif_image_handle_get_height(heif->handle) ||
        (size_t)bytes_per_line < (size_t)width * 4) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "the decoded image is %d x %d, not the size the file gives", width,
                          height);
        return NULL;
    }
    *stride = (size_t)bytes_per_line;
    return plane;
}

const uint8_t *ccodecs_heif_icc_profile(ccodecs_heif *heif, size_t *size) {
    *size = heif->icc_size;
    return heif->icc;
}

void ccodecs_heif_close(ccodecs_heif *heif) {
    if (heif == NULL) return;
    if (heif->image != NULL) heif_image_release(heif->image);
    if (heif->handle != NULL) heif_image_handle_release(heif->handle);
    if (heif->context != NULL) heif_context_free(heif->context);
    free(heif->icc);
    free(heif);
}
