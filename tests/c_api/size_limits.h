/* The C API's limits (BSLZ4_MAX_BYTES, BSLZ4_MAX_THREADS, BSLZ4_MAX_THRESHOLDS, 32-bit frames
 * and matrices) on the CPU functions: past each, BSLZ4_E_BAD_ARGUMENT naming the parameter
 * before anything is read, allocated or started; within them but not to be had,
 * BSLZ4_E_OUT_OF_MEMORY; never BSLZ4_E_INTERNAL. */
#ifndef BSLZ4_TEST_SIZE_LIMITS_H
#define BSLZ4_TEST_SIZE_LIMITS_H
#include <stddef.h>

#include "reference_table.h"

/* c: a case whose chunk (chunk_bytes) decodes to pixels (its frame's bytes). */
void check_cpu_size_limits(const reference_case* c, const unsigned char* chunk, size_t chunk_bytes,
                           const unsigned char* pixels);

#endif
