/* Handles of one class cast and passed to another class's functions (the CPU classes and
 * matrices): each refused with BSLZ4_E_BAD_ARGUMENT naming both classes, the handles unharmed. */
#ifndef BSLZ4_TEST_HANDLE_CLASSES_H
#define BSLZ4_TEST_HANDLE_CLASSES_H
#include <stddef.h>

#include "reference_table.h"

/* c: a case whose chunk (chunk_bytes) every call here decodes. */
void check_cpu_handle_classes(const reference_case* c, const unsigned char* chunk, size_t chunk_bytes);

#endif
