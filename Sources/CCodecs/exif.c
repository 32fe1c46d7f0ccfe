// EXIF metadata through libexif: the orientation tag and the embedded thumbnail.
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include <libexif/exif-data.h>

/// The six bytes that start a JPEG APP1 EXIF segment's payload, before the TIFF header.
static const unsigned char exif_prefix[6] = {'E', 'x', 'i', 'f', 0, 0};

/// libexif wants its data to start with "Exif\0\0" (or with JPEG markers). PNG's eXIf and WebP's
/// EXIF chunks hold the TIFF data alone (some writers add the prefix anyway): loads either.
static ExifData *load(const uint8_t *data, size_t size) {
    if (data == NULL || size < 8 || size > CCODECS_EXIF_MAXIMUM) return NULL;
    ExifData *exif = exif_data_new();
    if (exif == NULL) return NULL;
    // Read what is there: no tags added to "follow the specification", no maker notes parsed.
    exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_unset_option(exif, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    exif_data_set_option(exif, EXIF_DATA_OPTION_DONT_CHANGE_MAKER_NOTE);
    if (memcmp(data, exif_prefix, sizeof exif_prefix) == 0) {
        exif_data_load_data(exif, data, (unsigned int)size);
        return exif;
    }
    unsigned char *prefixed = malloc(size + sizeof exif_prefix);
    if (prefixed == NULL) {
        exif_data_unref(exif);
        return NULL;
    }
    memcpy(prefixed, exif_prefix, sizeof exif_prefix);
    memcpy(prefixed + sizeof exif_prefix, data, size);
    exif_data_load_data(exif, prefixed, (unsigned int)(size + sizeof exif_prefix));
    free(prefixed);
    return exif;
}

int ccodecs_exif_orientation(const uint8_t *data, size_t size) {
    ExifData *exif = load(data, size);
    if (exif == NULL) return 1;
    int orientation = 1;
    ExifEntry *entry = exif_content_get_entry(exif->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (entry != NULL && entry->data != NULL && entry->components >= 1) {
        ExifByteOrder order = exif_data_get_byte_order(exif);
        unsigned value = 0;
        if (entry->format == EXIF_FORMAT_SHORT && entry->size >= 2) {
            value = exif_get_short(entry->data, order);
        } else if (entry->format == EXIF_FORMAT_LONG && entry->size >= 4) {
            value = exif_get_long(entry->data, order);  // wrong type, seen in the wild
        }
        if (value >= 1 && value <= 8) orientation = (int)value;
    }
    exif_data_unref(exif);
    return orientation;
}

int ccodecs_exif_thumbnail(const uint8_t *data, size_t size, uint8_t **thumbnail, size_t *thumbnail_size) {
    ExifData *exif = load(data, size);
    if (exif == NULL) return -1;
    int result = -1;
    // libexif keeps IFD1's JPEGInterchangeFormat bytes as `data`: a JPEG of its own.
    if (exif->data != NULL && exif->size >= 4 && exif->data[0] == 0xFF && exif->data[1] == 0xD8) {
        uint8_t *copy = malloc(exif->size);
        if (copy != NULL) {
            memcpy(copy, exif->data, exif->size);
            *thumbnail = copy;
            *thumbnail_size = exif->size;
            result = 0;
        }
    }
    exif_data_unref(exif);
    return result;
}
