// What the colour tests compare the decoder with: Little CMS 2 used directly, at its most
// precise, on known colours, and a wide-gamut profile made here.
#ifndef CCOLOR_REFERENCE_H
#define CCOLOR_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/// Writes a Display P3 profile (DCI-P3 primaries, D65 white, the sRGB tone curve) into buffer.
/// Returns its size, or 0 when it does not fit or cannot be made.
size_t color_reference_display_p3(uint8_t *buffer, size_t capacity);

/// Converts `count` pixels from the profile's space (RGB: 3 bytes a pixel; CMYK: 4, 0 for no ink)
/// to sRGB (3 bytes a pixel), perceptual intent, through 16-bit values rounded once.
/// Returns 0, or -1 when the profile cannot be used.
int color_reference_to_srgb(const uint8_t *icc, size_t size, int cmyk, const uint8_t *input,
                            uint8_t *output, size_t count);

#endif
