/* The C API's limits on the GPU functions (BSLZ4_MAX_BYTES for counts, sizes and rooms,
 * BSLZ4_MAX_THREADS in the options every class takes, reserve's frames): past each,
 * BSLZ4_E_BAD_ARGUMENT naming the parameter, never BSLZ4_E_INTERNAL. */
#ifndef BSLZ4_TEST_GPU_SIZE_LIMITS_H
#define BSLZ4_TEST_GPU_SIZE_LIMITS_H
#include <stddef.h>

#include "reference_table.h"

/* With a GPU: c is a case the GPU decodes, chunk its chunk. */
void check_gpu_size_limits(const reference_case* c, const unsigned char* chunk, size_t chunk_bytes);
/* Without one: the limits are checked before the device is looked for (built without the GPU
 * runtime, every GPU function answers BSLZ4_E_NO_GPU_SUPPORT instead). */
void check_gpu_size_limits_without_gpu(int built_without_gpu);

#endif
