/* BSLZ4_API: what the shared library exports. The library is compiled with hidden visibility
 * (-fvisibility=hidden -fvisibility-inlines-hidden), so a name is part of libbslz4.so only when
 * its declaration carries this mark: the C functions of bslz4.h, and the C++ classes and
 * functions of the bslz4/ headers. Everything else (bslz4::detail, the driver layer, the C
 * API's glue) stays inside the library, where a program cannot come to depend on it. Plain C,
 * included by the C header and the C++ headers alike. */
#ifndef BSLZ4_EXPORT_H
#define BSLZ4_EXPORT_H

#if defined(_WIN32)
#if defined(BSLZ4_BUILDING_LIBRARY)
#define BSLZ4_API __declspec(dllexport)
#else
#define BSLZ4_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define BSLZ4_API __attribute__((visibility("default")))
#else
#define BSLZ4_API
#endif

#endif /* BSLZ4_EXPORT_H */
