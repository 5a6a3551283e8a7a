/* The GPU handles, device arrays and pinned memory given where another class is taken (and
 * CPU handles given to GPU functions): each refused with BSLZ4_E_BAD_ARGUMENT naming both
 * classes, the handles unharmed. */
#ifndef BSLZ4_TEST_GPU_HANDLE_CLASSES_H
#define BSLZ4_TEST_GPU_HANDLE_CLASSES_H
#include <stddef.h>

#include "reference_table.h"

/* With a GPU: c is a case the GPU decodes, chunk its chunk. */
void check_gpu_handle_classes(const reference_case* c, const unsigned char* chunk, size_t chunk_bytes);
/* Without one: the class checks need no device (a library built with the GPU runtime refuses
 * a CPU handle given to a GPU function as such); built without it, every GPU function answers
 * BSLZ4_E_NO_GPU_SUPPORT instead. */
void check_gpu_handle_classes_without_gpu(int built_without_gpu);

#endif
