/* Lists compared bit for bit, and the all-pixels mask the comparisons use. */
#ifndef BSLZ4_TEST_FRAME_LISTS_H
#define BSLZ4_TEST_FRAME_LISTS_H
#include <stddef.h>

#include "bslz4/bslz4.h"

/* Same pixel count, indices and value bytes. */
int same_list(const bslz4_frame* a, const bslz4_frame* b, size_t elem_size);
/* Same as a's, frame by frame, for every frame of two batches. */
int same_batch(const bslz4_batch* a, const bslz4_batch* b, size_t elem_size);
/* n bytes of 1 (malloc'ed): every pixel used. */
unsigned char* mask_of_ones(size_t n);

#endif
