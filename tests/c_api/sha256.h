/* SHA-256 (FIPS 180-4) of a byte string, as lowercase hex: the reference table records each
 * case's decoded pixels by their hash. */
#ifndef BSLZ4_TEST_SHA256_H
#define BSLZ4_TEST_SHA256_H
#include <stddef.h>

/* hex: 65 bytes (64 digits and the terminating zero). */
void sha256_hex(const void* data, size_t bytes, char* hex);

#endif
