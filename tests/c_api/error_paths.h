/* Every error path of the C API's CPU functions gives its status and a message naming the
 * function (truncated chunks, outputs too small, NULL pointers, wrong sizes and values), and one
 * handle called from two threads runs or refuses each call, never races. */
#ifndef BSLZ4_TEST_ERROR_PATHS_H
#define BSLZ4_TEST_ERROR_PATHS_H
#include "loaded_case.h"

void check_errors(const loaded* l);
void check_one_call_at_a_time(const loaded* l);

#endif
