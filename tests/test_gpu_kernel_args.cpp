// The kernels' arguments (kernel_abi.h's lists): every kernel in the embedded fatbin takes its
// struct's fields where the struct has them, and a kernel loaded with another kernel's struct is
// refused by name, whether it takes fewer parameters or others; the decode kernels fit 4 blocks
// of 7 warps in a multiprocessor's registers; the module they come from is loaded once for a
// device's objects. Part of test_gpu.
#include <catch2/catch.hpp>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bslz4/cuda/device.hpp"
#include "bslz4/error.hpp"
#include "context.hpp"
#include "driver_api.hpp"
#include "kernel_abi.h"
#include "kernel_image.hpp"
#include "kernel_launch.hpp"

using namespace bslz4;
namespace abi = bslz4_abi;
using cuda::detail::Kernel;

namespace {

const std::vector<std::string> kPixelTypes = {"u8", "u16", "u32", "i8", "i16", "i32", "f32"};

struct LoadedKernels {
    cuda::detail::PrimaryContext ctx{0};
    cuda::detail::ScopedContext scope{ctx};
    cuda::detail::Module module;
    LoadedKernels() {
        const cuda::DeviceInfo info = cuda::device_info(0);
        module = cuda::detail::load_kernels(info.sm, info.name);
    }
};

// Loads each named kernel with Args (which checks the parameters Args has), then asks for one
// past them, which the driver must refuse: the kernel takes no more. (That question is a CUDA
// API error by design, which compute-sanitizer reports: run it with ~[kernel-args].) Returns
// how many kernels.
template <class Args>
std::size_t load_all(const cuda::detail::Module& module, const std::vector<std::string>& names) {
    const std::size_t params = cuda::detail::ArgsLayout<Args>::spans().size();
    for (const std::string& name : names) {
        INFO(name);
        CHECK_NOTHROW(Kernel<Args>(module, name));
        std::size_t offset = 0, size = 0;
        CHECK(cuda::detail::driver().cuFuncGetParamInfo(cuda::detail::kernel(module, name), params, &offset, &size) ==
              CUDA_ERROR_INVALID_VALUE);
    }
    return names.size();
}

std::vector<std::string> per_type(const std::string& family) {
    std::vector<std::string> names;
    for (const std::string& t : kPixelTypes) names.push_back(family + t);
    return names;
}

// integrate_tiles: f32 and f64 sums of float weights, i64 of fixed-point ones (integer pixels),
// staged 16 bytes an entry or packed in 8.
std::vector<std::string> integrate_tiles_kernels() {
    std::vector<std::string> names;
    for (const std::string& t : kPixelTypes)
        for (const std::string sums : {"f32", "f64", "i64", "i64_packed"})
            if (t != "f32" || sums.rfind("i64", 0) != 0) names.push_back("bslz4_integrate_tiles_" + t + "_" + sums);
    return names;
}

template <class Args>
void require_refused(const cuda::detail::Module& module, const std::string& name, const std::string& why) {
    INFO(name);
    try {
        (void)Kernel<Args>(module, name);
        FAIL("loaded with another kernel's arguments");
    } catch (const Error& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find("kernel " + name + ": ") != std::string::npos);
        CHECK(what.find(why) != std::string::npos);
        CHECK(what.find("kernel_abi.h") != std::string::npos);
    }
}

}  // namespace

TEST_CASE("every kernel in the fatbin takes its argument struct's fields where the struct has them, and no more",
          "[gpu][kernel-args]") {
    // The driver here (CUDA 12.4 or newer) can say where parameters lie: without it this would pass unchecked.
    REQUIRE(cuda::detail::driver().cuFuncGetParamInfo != nullptr);
    const LoadedKernels k;
    std::size_t n = 0;
    n += load_all<abi::GatherArgs>(k.module, {"bslz4_gather_chunks"});
    n += load_all<abi::UnblockArgs>(k.module, {"bslz4_unblock"});
    n += load_all<abi::ParseArgs>(k.module, {"bslz4_lz4_parse", "bslz4_lz4_parse_warp"});
    n += load_all<abi::DecodeArgs>(k.module, per_type("bslz4_decode_"));
    n += load_all<abi::ScanTilesArgs>(k.module, {"bslz4_scan_tiles"});
    n += load_all<abi::FrameOffsetsArgs>(k.module, {"bslz4_frame_offsets"});
    n += load_all<abi::WriteArgs>(k.module, per_type("bslz4_write_"));
    n += load_all<abi::TopLevelsArgs>(k.module, per_type("bslz4_top_levels_"));
    n += load_all<abi::TopChooseArgs>(k.module, {"bslz4_top_choose"});
    n += load_all<abi::IntegrateTilesArgs>(k.module, integrate_tiles_kernels());
    n += load_all<abi::ReduceTilesArgs>(k.module, {"bslz4_reduce_tiles_f32", "bslz4_reduce_tiles_f64", "bslz4_reduce_tiles_i64",
                                                   "bslz4_reduce_tiles_f64_fixed"});
    n += load_all<abi::PeaksIdentityArgs>(k.module, {"bslz4_peaks_identity"});
    n += load_all<abi::PeaksSmoothArgs>(k.module, {"bslz4_peaks_smooth"});
    n += load_all<abi::PeaksUphillArgs>(k.module, {"bslz4_peaks_uphill"});
    n += load_all<abi::PeaksJoinArgs>(k.module, {"bslz4_peaks_join"});
    n += load_all<abi::PeaksRootsArgs>(k.module, {"bslz4_peaks_roots"});
    n += load_all<abi::PeaksNumberArgs>(k.module, {"bslz4_peaks_number"});
    n += load_all<abi::PeaksFirstArgs>(k.module, {"bslz4_peaks_first"});
    n += load_all<abi::PeaksMeasureArgs>(k.module, {"bslz4_peaks_measure"});
    CHECK(n == 66);  // every kernel module.cu defines
}

TEST_CASE("a kernel loaded with another kernel's argument struct is refused, naming the kernel and the difference",
          "[gpu][kernel-args]") {
    REQUIRE(cuda::detail::driver().cuFuncGetParamInfo != nullptr);
    const LoadedKernels k;
    // gather's 6 parameters against unblock's (its 4th a count, not a pointer) and against
    // identity's 2. (A kernel taking more than its struct's is not asked about when loaded, see
    // kernel_launch.cpp; the test above shows that none of ours does.)
    require_refused<abi::GatherArgs>(k.module, "bslz4_unblock",
                                     "parameter 3 is at offset 24, 4 bytes, the runtime's at offset 24, 8 bytes");
    require_refused<abi::GatherArgs>(k.module, "bslz4_peaks_identity", "it takes 2 parameters, the runtime passes 6 (cuFuncGetParamInfo(2): CUDA_ERROR_");
}

namespace {

// Whether the toolkit that built the fatbin (BSLZ4_CUDA_TOOLKIT: "13.0", or "13.x" for a
// prebuilt one; its major as the build read it) has __maxnreg__ (CUDA 12.4), which holds the
// 4-byte decode kernels at 72 registers.
bool toolkit_caps_registers() {
    if (BSLZ4_CUDA_TOOLKIT_MAJOR != 12) return BSLZ4_CUDA_TOOLKIT_MAJOR > 12;
    const std::string v = BSLZ4_CUDA_TOOLKIT;
    const std::size_t dot = v.find('.');
    return dot != std::string::npos && std::isdigit(static_cast<unsigned char>(v[dot + 1])) && std::atoi(v.c_str() + dot + 1) >= 4;
}

}  // namespace

TEST_CASE("every decode kernel takes at most 72 registers a thread: a multiprocessor of 65,536 holds 4 of its blocks of 7 "
          "warps, as many as its shared memory does",
          "[gpu][kernel-args]") {
    if (!toolkit_caps_registers()) {
        WARN("the kernels were built with CUDA " BSLZ4_CUDA_TOOLKIT ", which has no __maxnreg__ (12.4): not checked");
        return;
    }
    const LoadedKernels k;
    for (const std::string& name : per_type("bslz4_decode_")) {
        INFO(name);
        int regs = 0;
        REQUIRE(cuda::detail::driver().cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, cuda::detail::kernel(k.module, name)) ==
                CUDA_SUCCESS);
        CHECK(regs > 0);
        CHECK(regs <= 72);
        CHECK(4 * 7 * 32 * regs <= 65536);
    }
}

TEST_CASE("a device's objects share one loaded module while any of them holds it, and it is loaded anew after the last",
          "[gpu][kernel-args]") {
    cuda::detail::PrimaryContext ctx{0};
    cuda::detail::ScopedContext scope{ctx};
    const cuda::DeviceInfo info = cuda::device_info(0);
    auto a = cuda::detail::shared_kernels(0, info.sm, info.name);
    auto b = cuda::detail::shared_kernels(0, info.sm, info.name);
    REQUIRE(a == b);
    REQUIRE(a->get() != nullptr);
    CHECK(cuda::detail::kernel(*a, "bslz4_decode_u16") == cuda::detail::kernel(*b, "bslz4_decode_u16"));
    a.reset();
    CHECK(cuda::detail::shared_kernels(0, info.sm, info.name) == b);  // b still holds it
    const std::weak_ptr<const cuda::detail::Module> gone = b;
    {
        const auto last = std::move(b);
    }
    REQUIRE(gone.expired());  // unloaded with its last holder
    const auto again = cuda::detail::shared_kernels(0, info.sm, info.name);
    CHECK(again.use_count() == 1);
    CHECK(cuda::detail::kernel(*again, "bslz4_decode_u16") != nullptr);
}
