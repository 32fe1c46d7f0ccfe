// GNU FriBiDi, the Unicode Bidirectional Algorithm, for CanopyGraphics' text layout: one call
// that resolves a paragraph's embedding levels (its macros do not reach Swift).
#ifndef CANOPY_FRIBIDI_SHIM_H
#define CANOPY_FRIBIDI_SHIM_H

#include <fribidi.h>
#include <stdint.h>
#include <stdlib.h>

/// The embedding level of each of `length` code points of one paragraph (no paragraph separator
/// inside), into `levels` (even: left to right, odd: right to left), by the Unicode
/// Bidirectional Algorithm with bracket pairs (UAX #9, FriBiDi). `base`: 0 takes the paragraph's
/// direction from its first strong character (left to right without one), 1 left to right, 2
/// right to left. Returns 1 when the paragraph runs right to left, 0 left to right, -1 when
/// FriBiDi fails (out of memory); the levels are then all the base's.
static inline int canopy_bidi_levels(const uint32_t *text, int length, int base, int8_t *levels) {
    FriBidiParType direction = base == 2 ? FRIBIDI_PAR_RTL : base == 1 ? FRIBIDI_PAR_LTR : FRIBIDI_PAR_ON;
    if (length <= 0) return base == 2 ? 1 : 0;
    FriBidiCharType *types = malloc((size_t)length * sizeof *types);
    FriBidiBracketType *brackets = malloc((size_t)length * sizeof *brackets);
    FriBidiLevel highest = 0;
    if (types != NULL && brackets != NULL) {
        fribidi_get_bidi_types(text, length, types);
        fribidi_get_bracket_types(text, length, types, brackets);
        highest = fribidi_get_par_embedding_levels_ex(types, brackets, length, &direction, (FriBidiLevel *)levels);
    }
    free(types);
    free(brackets);
    if (highest == 0) {
        int8_t fallback = base == 2 ? 1 : 0;
        for (int i = 0; i < length; i++) levels[i] = fallback;
        return -1;
    }
    return FRIBIDI_IS_RTL(direction) ? 1 : 0;
}

#endif
