// A kernel with its argument struct (kernel_abi.h): a Kernel<Args> is launched with an Args
// and nothing else, the struct passed as the launch's parameter buffer. Loading one checks
// (drivers for CUDA 12.4 and newer) that the kernel's first parameters lie where Args's fields
// do, so a fatbin built from other sources (-Dprebuilt_fatbin) is refused by name rather than
// handed arguments out of place.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "driver_objects.hpp"
#include "kernel_abi.h"
#include "kernel_image.hpp"

namespace bslz4::cuda::detail {

struct Grid {
    unsigned x = 1, y = 1;
    unsigned threads = 32;
    unsigned shared_bytes = 0;
};

// Where one parameter lies in a kernel's parameter buffer.
struct ParamSpan {
    std::size_t offset, size;
};

// Args's fields, in the order of its list: one specialisation for each struct of kernel_abi.h.
template <class Args>
struct ArgsLayout;
#define BSLZ4_PARAM_SPAN(type, name) ParamSpan{offsetof(Args, name), sizeof(type)},
#define BSLZ4_ARGS_LAYOUT(Name, list, ...)                                                                \
    template <>                                                                                           \
    struct ArgsLayout<bslz4_abi::Name> {                                                                  \
        using Args = bslz4_abi::Name;                                                                     \
        static std::vector<ParamSpan> spans() { return {list(BSLZ4_PARAM_SPAN, BSLZ4_PARAM_SPAN, __VA_ARGS__)}; } \
    };
#define BSLZ4_ARGS_LAYOUT_OF(Name, list) BSLZ4_ARGS_LAYOUT(Name, list, void)
BSLZ4_KERNEL_ARGS(BSLZ4_ARGS_LAYOUT_OF)
BSLZ4_ARGS_LAYOUT(IntegrateTilesArgs, BSLZ4_INTEGRATE_TILES_ARGS, void, void, void)
BSLZ4_ARGS_LAYOUT(ReduceTilesArgs, BSLZ4_REDUCE_TILES_ARGS, void, void)
#undef BSLZ4_ARGS_LAYOUT_OF
#undef BSLZ4_ARGS_LAYOUT
#undef BSLZ4_PARAM_SPAN

// The bytes of `name`'s parameter buffer, after checking (where the driver can tell:
// cuFuncGetParamInfo, drivers for CUDA 12.4 and newer) that its parameters begin with `spans`.
std::size_t checked_param_bytes(CUfunction f, const std::string& name, const std::vector<ParamSpan>& spans);

template <class Args>
class Kernel {
    static_assert(std::is_trivially_copyable_v<Args> && std::is_standard_layout_v<Args>,
                  "a parameter buffer is the struct's bytes");

public:
    Kernel() = default;
    // The module's kernel `name` (e.g. "bslz4_decode_u16"), whose parameters must be Args's.
    Kernel(const Module& module, const std::string& name)
        : f_(kernel(module, name)), name_(name), launch_call_("cuLaunchKernel(" + name + ")"),
          bytes_(checked_param_bytes(f_, name, ArgsLayout<Args>::spans())) {}

    CUfunction get() const { return f_; }
    const std::string& name() const { return name_; }
    std::size_t param_bytes() const { return bytes_; }
    // "cuLaunchKernel(<name>)", made once: a launch's error names the kernel without a string a launch.
    const char* launch_call() const { return launch_call_.c_str(); }

private:
    CUfunction f_ = nullptr;
    std::string name_;
    std::string launch_call_;
    std::size_t bytes_ = 0;
};

template <class Args>
void launch(const Kernel<Args>& k, Grid g, CUstream stream, const Args& args) {
    Args buffer = args;  // the driver copies the buffer at the call; its pointer is not const
    std::size_t bytes = k.param_bytes();
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes, CU_LAUNCH_PARAM_END};
    check(driver().cuLaunchKernel(k.get(), g.x, g.y, 1, g.threads, 1, 1, g.shared_bytes, stream, nullptr, extra),
          k.launch_call());
}

}  // namespace bslz4::cuda::detail
