#include "kernel_launch.hpp"

#include "bslz4/error.hpp"

namespace bslz4::cuda::detail {

namespace {

std::string span_text(const ParamSpan& s) {
    return "offset " + std::to_string(s.offset) + ", " + std::to_string(s.size) + " bytes";
}

}  // namespace

std::size_t checked_param_bytes(CUfunction f, const std::string& name, const std::vector<ParamSpan>& spans) {
    const ParamSpan& last = spans.back();
    const std::size_t bytes = last.offset + last.size;
    const auto info = driver().cuFuncGetParamInfo;
    if (!info) return bytes;  // a driver older than CUDA 12.4 cannot tell: the list alone vouches
    const auto refuse = [&](const std::string& what) {
        throw Error(ErrorCode::gpu_fault, "kernel " + name + ": " + what +
                                              ": the embedded kernels were not built from this library's kernel_abi.h");
    };
    for (std::size_t i = 0; i < spans.size(); ++i) {
        ParamSpan k{};
        if (const CUresult r = info(f, i, &k.offset, &k.size); r != CUDA_SUCCESS)
            refuse("it takes " + std::to_string(i) + " parameters, the runtime passes " + std::to_string(spans.size()) +
                   " (cuFuncGetParamInfo(" + std::to_string(i) + "): " + result_name(r) + ")");
        if (k.offset != spans[i].offset || k.size != spans[i].size)
            refuse("parameter " + std::to_string(i) + " is at " + span_text(k) + ", the runtime's at " + span_text(spans[i]));
    }
    // Not asked: whether it takes more. The driver has no parameter count, and asking for a
    // parameter past the last is an API error, which compute-sanitizer reports on every load.
    return bytes;
}

}  // namespace bslz4::cuda::detail
