#pragma once
// glibc's allocator statistics (mallinfo2), which the Glibc module does not bring in.
#include <malloc.h>
