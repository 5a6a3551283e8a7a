#include "c_gpu_setup.hpp"

#include <string>

#include "bslz4/cuda/device.hpp"
#include "c_arguments.hpp"
#include "c_options.hpp"
#include "c_status.hpp"

namespace bslz4::c_api {

void require_gpu() {
    if (!cuda::available()) throw CFailure(BSLZ4_E_NO_GPU, "no usable GPU: " + cuda::unavailable_reason());
}

cuda::Chunk2SparseOptions gpu_options(const bslz4_options* options) {
    const bslz4_options o = options_or_default(options);
    if (o.unblock != BSLZ4_UNBLOCK_GPU && o.unblock != BSLZ4_UNBLOCK_CPU)
        throw Error(ErrorCode::bad_argument, "unblock " + std::to_string(o.unblock) +
                                                 " is none of BSLZ4_UNBLOCK_GPU (0), BSLZ4_UNBLOCK_CPU (1)");
    cuda::Chunk2SparseOptions out;
    out.batch = o.batch;
    out.group = o.group;
    out.unblock = o.unblock == BSLZ4_UNBLOCK_GPU ? cuda::Unblock::gpu : cuda::Unblock::cpu;
    out.device = o.device;
    out.codec = codec_from(o.codec);
    out.on_error = on_error_from(o.on_error);
    out.howmany = howmany_from(o.howmany);
    out.thresholds = thresholds_from(o.thresholds, o.nthresholds);
    return out;
}

}  // namespace bslz4::c_api
