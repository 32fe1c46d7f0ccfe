// Colour management through Little CMS 2: embedded ICC profiles converted to sRGB.
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include <lcms2.h>

struct ccodecs_color_transform {
    cmsHTRANSFORM transform;
    int input;
};

/// Whether the profile's description names sRGB: such a profile is (close enough to) the output
/// profile itself, and converting would only cost time. Cameras and editors embed it often.
static int describes_srgb(cmsHPROFILE profile) {
    char text[256];
    cmsUInt32Number got = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", text, sizeof text);
    if (got == 0) return 0;
    text[sizeof text - 1] = 0;
    return strstr(text, "sRGB") != NULL && strstr(text, "Linear") == NULL && strstr(text, "linear") == NULL;
}

ccodecs_color_transform *ccodecs_color_transform_create(const uint8_t *icc, size_t size, int input,
                                                        ccodecs_error *error) {
    if (icc == NULL || size < 128 || size > CCODECS_ICC_MAXIMUM) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "an ICC profile of %zu bytes", size);
        return NULL;
    }
    cmsHPROFILE source = cmsOpenProfileFromMem(icc, (cmsUInt32Number)size);
    if (source == NULL) {
        ccodecs_set_error(error, CCODECS_CORRUPT, "an ICC profile Little CMS cannot read");
        return NULL;
    }
    cmsColorSpaceSignature space = cmsGetColorSpace(source);
    int cmyk = input == CCODECS_COLOR_CMYK || input == CCODECS_COLOR_CMYK_INVERTED;
    if ((cmyk && space != cmsSigCmykData) || (!cmyk && space != cmsSigRgbData)) {
        cmsCloseProfile(source);
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "an ICC profile for another colour space");
        return NULL;
    }
    if (!cmyk && describes_srgb(source)) {
        cmsCloseProfile(source);
        ccodecs_set_error(error, CCODECS_OK, "sRGB");
        return NULL;
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    cmsUInt32Number in_format, out_format, flags = cmsFLAGS_NOCACHE;  // NOCACHE: any thread at once
    switch (input) {
    case CCODECS_COLOR_CMYK:
        // CMYK profiles are tables: a finer precalculated grid keeps the result within a level
        // or two of the exact conversion (the default grid was 10 levels off on some colours).
        flags |= cmsFLAGS_HIGHRESPRECALC;
        in_format = TYPE_CMYK_8;
        out_format = TYPE_RGBA_8;
        break;
    case CCODECS_COLOR_CMYK_INVERTED:
        flags |= cmsFLAGS_HIGHRESPRECALC;
        in_format = TYPE_CMYK_8_REV;
        out_format = TYPE_RGBA_8;
        break;
    case CCODECS_COLOR_RGBA_OPAQUE:
        // Straight RGBA: with every alpha at 255 the same as premultiplied, and Little CMS
        // converts it about twice as fast (1.3 against 0.7 ms for a 320 x 180 card photo).
        in_format = TYPE_RGBA_8;
        out_format = TYPE_RGBA_8;
        flags |= cmsFLAGS_COPY_ALPHA;
        break;
    default:
        in_format = TYPE_RGBA_8_PREMUL;
        out_format = TYPE_RGBA_8_PREMUL;
        flags |= cmsFLAGS_COPY_ALPHA;
        break;
    }
    cmsHTRANSFORM transform =
        srgb != NULL ? cmsCreateTransform(source, in_format, srgb, out_format, INTENT_PERCEPTUAL, flags) : NULL;
    cmsCloseProfile(source);
    if (srgb != NULL) cmsCloseProfile(srgb);
    if (transform == NULL) {
        ccodecs_set_error(error, CCODECS_UNSUPPORTED, "no conversion from this ICC profile to sRGB");
        return NULL;
    }
    struct ccodecs_color_transform *result = calloc(1, sizeof *result);
    if (result == NULL) {
        cmsDeleteTransform(transform);
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    result->transform = transform;
    result->input = input;
    return result;
}

void ccodecs_color_transform_apply(const ccodecs_color_transform *transform, const uint8_t *input,
                                   uint8_t *output, size_t count) {
    while (count > 0) {
        cmsUInt32Number chunk = count > 1u << 20 ? 1u << 20 : (cmsUInt32Number)count;
        cmsDoTransform(transform->transform, input, output, chunk);
        if (transform->input == CCODECS_COLOR_CMYK || transform->input == CCODECS_COLOR_CMYK_INVERTED) {
            // CMYK in, RGBA out: lcms leaves the alpha bytes alone.
            for (cmsUInt32Number i = 0; i < chunk; i++) output[i * 4 + 3] = 255;
        }
        input += (size_t)chunk * 4;
        output += (size_t)chunk * 4;
        count -= chunk;
    }
}

void ccodecs_color_transform_free(ccodecs_color_transform *transform) {
    if (transform == NULL) return;
    cmsDeleteTransform(transform->transform);
    free(transform);
}
