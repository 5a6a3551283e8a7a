// bslz4_options (the C struct every class takes) read and turned into the CPU classes' options.
#pragma once
#include "bslz4/bslz4.h"
#include "bslz4/chunk2sparse.hpp"

namespace bslz4::c_api {

// The caller's options, or the defaults for NULL; checks struct_size.
bslz4_options options_or_default(const bslz4_options* options);
Chunk2SparseOptions cpu_options(const bslz4_options* options);
OnError on_error_from(int on_error);

}  // namespace bslz4::c_api
