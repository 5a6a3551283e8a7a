/* A case of the reference table with its chunk and its decoded frame, as the C API's CPU checks
 * take it (test_c_api.c loads it). */
#ifndef BSLZ4_TEST_LOADED_CASE_H
#define BSLZ4_TEST_LOADED_CASE_H
#include <stddef.h>

#include "reference_table.h"

typedef struct loaded {
    reference_case c;
    unsigned char* chunk;
    size_t chunk_bytes;
    unsigned char* pixels;
} loaded;

#endif
