#include "c_check.h"

#include <string.h>

int c_check_failures = 0;
int c_check_count = 0;

int expect_failure(int got, int status, const char* function, const char* what, const char* file, int line) {
    const char* message = bslz4_last_error();
    const size_t n = strlen(function);
    ++c_check_count;
    if (got == status && strncmp(message, function, n) == 0 && message[n] == ':' && strlen(message) > n + 2) return 1;
    ++c_check_failures;
    fprintf(stderr, "%s:%d: FAILED: %s: status %d (%s), expected %d (%s), with a message from %s; last error: %s\n", file,
            line, what, got, bslz4_status_name(got), status, bslz4_status_name(status), function, message);
    return 0;
}

int expect_class_refused(int got, const char* function, const char* parameter, const char* given, const char* expected,
                         const char* what, const char* file, int line) {
    char named[256];
    if (given)
        snprintf(named, sizeof named, ": %s is a %s, not the %s ", parameter, given, expected);
    else
        snprintf(named, sizeof named, ": %s is not a %s: it is no bslz4 handle", parameter, expected);
    if (!expect_failure(got, BSLZ4_E_BAD_ARGUMENT, function, what, file, line)) return 0;
    ++c_check_count;
    if (strstr(bslz4_last_error(), named)) return 1;
    ++c_check_failures;
    fprintf(stderr, "%s:%d: FAILED: %s: the message does not say \"%s\"; last error: %s\n", file, line, what, named,
            bslz4_last_error());
    return 0;
}
