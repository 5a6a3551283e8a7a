// The one translation unit nvcc -fatbin compiles into bslz4_kernels.fatbin (a fatbin is one
// module, and a module is one translation unit). Each kernel family lives in its own file.
#include "gather.cu"
#include "unblock.cu"
#include "lz4_parse.cu"
#include "lz4_parse_warp.cu"
#include "decode.cu"
#include "collect.cu"
#include "top_pixels.cu"
#include "integrate_tiles.cu"
#include "peak_labels.cu"
