#include "frame_lists.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int same_list(const bslz4_frame* a, const bslz4_frame* b, size_t elem_size) {
    return a->npixels == b->npixels && memcmp(a->indices, b->indices, a->npixels * sizeof(uint32_t)) == 0 &&
           memcmp(a->values, b->values, a->npixels * elem_size) == 0;
}

int same_batch(const bslz4_batch* a, const bslz4_batch* b, size_t elem_size) {
    bslz4_frame fa, fb;
    size_t f;
    if (a->nframes != b->nframes) return 0;
    for (f = 0; f < a->nframes; ++f)
        if (bslz4_batch_frame(a, f, &fa) != BSLZ4_OK || bslz4_batch_frame(b, f, &fb) != BSLZ4_OK ||
            !same_list(&fa, &fb, elem_size) || a->status[f] != b->status[f])
            return 0;
    return 1;
}

unsigned char* mask_of_ones(size_t n) {
    unsigned char* m = (unsigned char*)malloc(n ? n : 1);
    if (m) memset(m, 1, n);
    return m;
}
