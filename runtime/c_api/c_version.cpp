// The library's version, for a program to compare with the header it was built against
// (runtime/c_api/meson.build keeps the header's version equal to the project's).
#include "bslz4/bslz4.h"

const char* bslz4_version(void) { return BSLZ4_VERSION_STRING; }

int bslz4_version_number(void) { return BSLZ4_VERSION_NUMBER; }
