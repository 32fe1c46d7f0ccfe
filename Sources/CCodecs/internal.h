// Helpers shared by the CCodecs decoders (not part of the public header).
#ifndef CCODECS_INTERNAL_H
#define CCODECS_INTERNAL_H

#include "CCodecs.h"
#include <stdio.h>

/// Fills `error` (if not NULL) with a status and a printf-style message.
void ccodecs_set_error(ccodecs_error *error, int status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/// Opens `path` for reading, refusing directories; fills `error` with FILE_MISSING or UNREADABLE.
FILE *ccodecs_open_file(const char *path, ccodecs_error *error);

/// Reads the whole file at `path` (refusing directories and files over `maximum` bytes, which is
/// CCODECS_TOO_LARGE) into memory the caller frees; sets `*size`. Returns NULL and fills `error`
/// on failure.
uint8_t *ccodecs_read_file(const char *path, size_t maximum, size_t *size, ccodecs_error *error);

/// Whether `cancel` (maybe NULL) says stop.
static inline int ccodecs_cancelled(const ccodecs_cancel *cancel) {
    return cancel != NULL && cancel->check != NULL && cancel->check(cancel->context) != 0;
}

/// round(x * y / 255) for x, y in 0...255.
static inline uint8_t ccodecs_mul255(unsigned x, unsigned y) {
    unsigned t = x * y + 128;
    return (uint8_t)((t + (t >> 8)) >> 8);
}

#endif
