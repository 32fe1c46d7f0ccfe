#include "CColorReference.h"

#include <lcms2.h>

size_t color_reference_display_p3(uint8_t *buffer, size_t capacity) {
    cmsCIExyY white = {0.3127, 0.3290, 1.0};
    cmsCIExyYTRIPLE primaries = {{0.680, 0.320, 1.0}, {0.265, 0.690, 1.0}, {0.150, 0.060, 1.0}};
    // The sRGB curve: IEC 61966-2-1, as a parametric curve of type 4.
    cmsFloat64Number srgb[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, srgb);
    if (curve == NULL) return 0;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &primaries, curves);
    cmsFreeToneCurve(curve);
    if (profile == NULL) return 0;
    cmsMLU *description = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(description, "en", "US", "Display P3 (made by the tests)");
    cmsWriteTag(profile, cmsSigProfileDescriptionTag, description);
    cmsMLUfree(description);
    cmsUInt32Number size = 0;
    if (!cmsSaveProfileToMem(profile, NULL, &size) || size > capacity ||
        !cmsSaveProfileToMem(profile, buffer, &size)) {
        size = 0;
    }
    cmsCloseProfile(profile);
    return size;
}

int color_reference_to_srgb(const uint8_t *icc, size_t size, int cmyk, const uint8_t *input,
                            uint8_t *output, size_t count) {
    cmsHPROFILE source = cmsOpenProfileFromMem(icc, (cmsUInt32Number)size);
    if (source == NULL) return -1;
    cmsHPROFILE srgb = cmsCreate_sRGBProfile();
    cmsHTRANSFORM transform = cmsCreateTransform(source, cmyk ? TYPE_CMYK_8 : TYPE_RGB_8, srgb, TYPE_RGB_8,
                                                 INTENT_PERCEPTUAL, cmsFLAGS_HIGHRESPRECALC);
    cmsCloseProfile(source);
    cmsCloseProfile(srgb);
    if (transform == NULL) return -1;
    cmsDoTransform(transform, input, output, (cmsUInt32Number)count);
    cmsDeleteTransform(transform);
    return 0;
}
