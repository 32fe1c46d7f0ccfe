#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

void ccodecs_set_error(ccodecs_error *error, int status, const char *format, ...) {
    if (error == NULL) return;
    error->status = status;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error->message, sizeof error->message, format, arguments);
    va_end(arguments);
}

FILE *ccodecs_open_file(const char *path, ccodecs_error *error) {
    // Non-blocking, so that a FIFO put where the file was (after its header was read) cannot
    // hang a decoding thread; refused below like any file that is not a regular one.
    int descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (descriptor < 0) {
        int code = errno;
        ccodecs_set_error(error, code == ENOENT ? CCODECS_FILE_MISSING : CCODECS_UNREADABLE, "%s", strerror(code));
        return NULL;
    }
    struct stat status;
    if (fstat(descriptor, &status) != 0) {
        int code = errno;
        close(descriptor);
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(code));
        return NULL;
    }
    if (!S_ISREG(status.st_mode)) {
        close(descriptor);
        if (S_ISDIR(status.st_mode)) {
            ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(EISDIR));
        } else {
            ccodecs_set_error(error, CCODECS_UNREADABLE, "not a regular file");
        }
        return NULL;
    }
    // Ordinary blocking reads from here on.
    int flags = fcntl(descriptor, F_GETFL);
    if (flags >= 0) fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK);
    FILE *file = fdopen(descriptor, "rb");
    if (file == NULL) {
        int code = errno;
        close(descriptor);
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(code));
        return NULL;
    }
    return file;
}

uint8_t *ccodecs_read_file(const char *path, size_t maximum, size_t *size, ccodecs_error *error) {
    FILE *file = ccodecs_open_file(path, error);
    if (file == NULL) return NULL;
    struct stat status;
    if (fstat(fileno(file), &status) != 0) {
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(errno));
        fclose(file);
        return NULL;
    }
    size_t wanted = (size_t)status.st_size;
    if (wanted > maximum) {
        fclose(file);
        ccodecs_set_error(error, CCODECS_TOO_LARGE, "a file of %zu MB", wanted >> 20);
        return NULL;
    }
    uint8_t *data = malloc(wanted > 0 ? wanted : 1);
    if (data == NULL) {
        fclose(file);
        ccodecs_set_error(error, CCODECS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    size_t got = wanted > 0 ? fread(data, 1, wanted, file) : 0;
    int failed = ferror(file);
    int code = errno;
    fclose(file);
    if (failed) {
        free(data);
        ccodecs_set_error(error, CCODECS_UNREADABLE, "%s", strerror(code != 0 ? code : EIO));
        return NULL;
    }
    *size = got;
    return data;
}

void ccodecs_premultiply(uint8_t *pixels, size_t count) {
    uint8_t *p = pixels;
    uint8_t *end = pixels + count * 4;
    for (; p < end; p += 4) {
        unsigned a = p[3];
        if (a == 255) continue;
        if (a == 0) {
            p[0] = p[1] = p[2] = 0;
        } else {
            p[0] = ccodecs_mul255(p[0], a);
            p[1] = ccodecs_mul255(p[1], a);
            p[2] = ccodecs_mul255(p[2], a);
        }
    }
}

int ccodecs_md5(const void *data, size_t size, uint8_t digest[16]) {
    unsigned int length = 0;
    return EVP_Digest(data, size, digest, &length, EVP_md5(), NULL) == 1 && length == 16 ? 0 : -1;
}

void ccodecs_free(void *pointer) { free(pointer); }
