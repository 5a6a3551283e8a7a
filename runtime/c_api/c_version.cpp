// The library's version, for a program to compare with the header it was built against.
#include "bslz4/bslz4.h"

#ifndef BSLZ4_PROJECT_VERSION
#error "runtime/c_api/meson.build passes the project's version as BSLZ4_PROJECT_VERSION"
#endif

const char* bslz4_version(void) { return BSLZ4_PROJECT_VERSION; }

int bslz4_version_number(void) { return BSLZ4_VERSION_NUMBER; }
