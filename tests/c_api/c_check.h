/* Checks for the C API's test programs: a failed check prints where and what (with the
 * library's last message) and counts; the program's exit status says whether any failed. */
#ifndef BSLZ4_TEST_C_CHECK_H
#define BSLZ4_TEST_C_CHECK_H
#include <stdio.h>

#include "bslz4/bslz4.h"

extern int c_check_failures;
extern int c_check_count;

#define CHECK(cond, what)                                                                                   \
    do {                                                                                                    \
        ++c_check_count;                                                                                    \
        if (!(cond)) {                                                                                      \
            ++c_check_failures;                                                                             \
            fprintf(stderr, "%s:%d: FAILED: %s (%s); last error: %s\n", __FILE__, __LINE__, #cond, what,    \
                    bslz4_last_error());                                                                    \
        }                                                                                                   \
    } while (0)

/* A call that must succeed. */
#define CHECK_OK(call, what) CHECK((call) == BSLZ4_OK, what)

/* A call that must fail with `status` and leave a message naming `function`. */
int expect_failure(int got, int status, const char* function, const char* what, const char* file, int line);
#define CHECK_FAILS(call, status, function, what) expect_failure((call), (status), (function), (what), __FILE__, __LINE__)

/* A call given a handle of the wrong class: BSLZ4_E_BAD_ARGUMENT from `function`, its message
 * naming `parameter`, the class `given` ("PARAMETER is a GIVEN, not the EXPECTED ...") or, for
 * given NULL, memory that is no handle ("PARAMETER is not a EXPECTED: it is no bslz4 handle"). */
int expect_class_refused(int got, const char* function, const char* parameter, const char* given, const char* expected,
                         const char* what, const char* file, int line);
#define CHECK_CLASS_REFUSED(call, function, parameter, given, expected, what) \
    expect_class_refused((call), (function), (parameter), (given), (expected), (what), __FILE__, __LINE__)

#endif
