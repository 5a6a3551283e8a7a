/* The reference chunks (../shared/testdata, or the subset in tests/data) read in C: the table
 * cases.tsv and the files it names, as tools/reference_cases reads them for the C++ tests. */
#ifndef BSLZ4_TEST_REFERENCE_TABLE_H
#define BSLZ4_TEST_REFERENCE_TABLE_H
#include <stddef.h>

typedef struct reference_case {
    char name[128];
    int pixel_type; /* BSLZ4_U8 ... */
    size_t elem_size, ni, nj;
    int codec;
    size_t block_bytes, chunk_bytes;
    char sha256[65];
    int has_raw;
} reference_case;

/* Reads DIR/cases.tsv into *cases (malloc'ed); returns the count, or 0 when the table is
 * missing (*why says so) or malformed (*why names the line). */
size_t read_reference_table(const char* dir, reference_case** cases, char* why, size_t why_bytes);

/* The whole file DIR/chunks/NAME.EXT (malloc'ed) and its size; NULL when it cannot be read. */
unsigned char* read_case_file(const char* dir, const char* name, const char* ext, size_t* bytes);

/* BSLZ4_U8 ... for "u8" ... "f64"; -1 for another name. */
int pixel_type_named(const char* name);

#endif
