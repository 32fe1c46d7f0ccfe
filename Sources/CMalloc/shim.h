#pragma once
// glibc's allocator: its statistics (mallinfo2, malloc_info), settings (mallopt) and trim, which the Glibc module does not bring in.
#include <malloc.h>
