#include "cli/gpu_report.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#if BSLZ4_HAVE_CUDA
#include <cctype>
#include <cstring>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/encode.hpp"
#include "bslz4/error.hpp"
#include "cli/kernel_fit.hpp"
#endif

namespace bslz4::tool {

#if BSLZ4_HAVE_CUDA
namespace {

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// The kernel module's version, which admins know the driver by: the first word of
// /proc/driver/nvidia/version shaped like 580.159.04 ("NVRM version: NVIDIA UNIX Open Kernel
// Module for x86_64  580.159.04  Release Build ..."; the proprietary module's line has no
// "for"). "" when unreadable.
std::string kernel_module_version() {
    std::ifstream in("/proc/driver/nvidia/version");
    std::string word;
    for (int words = 0; in >> word && words < 16; ++words) {
        const bool digits_and_dots = word.find_first_not_of("0123456789.") == std::string::npos;
        if (digits_and_dots && word.find('.') != std::string::npos && std::isdigit(static_cast<unsigned char>(word[0])))
            return word;
    }
    return "";
}

// A 64 x 64 u16 frame through the GPU class on `device` and the CPU class: "" when the lists
// are the same, else what differed or the error.
std::string decode_check(int device) {
    const std::size_t ni = 64, nj = 64;
    std::vector<std::uint16_t> frame(ni * nj);
    for (std::size_t k = 0; k < frame.size(); ++k) frame[k] = static_cast<std::uint16_t>((k * 37) % 50);
    const auto chunk = encode_chunk(ByteView(frame.data(), frame.size() * 2), 2);
    const std::vector<std::uint8_t> mask(ni * nj, 1);
    try {
        Chunk2Sparse cpu(mask, ni, nj, PixelType::u16);
        cuda::Chunk2SparseOptions options;
        options.device = device;
        cuda::Chunk2Sparse gpu(mask, ni, nj, PixelType::u16, options);
        const SparseFrame want = cpu(chunk, 20.0);
        const SparseFrame got = gpu(chunk, 20.0);
        if (got.npixels != want.npixels)
            return "a test frame lists " + std::to_string(got.npixels) + " pixels, the CPU " + std::to_string(want.npixels);
        if (std::memcmp(got.indices, want.indices, want.npixels * 4) != 0 ||
            std::memcmp(got.values, want.values, want.npixels * 2) != 0)
            return "a test frame's list differs from the CPU's";
        return "";
    } catch (const Error& e) {
        return e.what();
    }
}

}  // namespace
#endif

int gpu_report(const Arguments& args) {
#if !BSLZ4_HAVE_CUDA
    (void)args;
    std::puts("gpu: none usable: this bslz4 was built without the GPU runtime (no nvcc or prebuilt fatbin at build time)");
    return 1;
#else
    const std::string archs = cuda::built_architectures();
    const KernelArchitectures built = parse_kernel_architectures(archs);
    const std::string kernels = "kernels CUDA " BSLZ4_CUDA_TOOLKIT " for " + archs;

    if (args.has("--sm")) {  // a GPU that is not here: would these kernels run on it?
        const int sm = static_cast<int>(args.count("--sm", 0));
        if (sm < 10 || sm > 999) throw UsageError("--sm takes a compute capability x 10, such as 70 or 90");
        const KernelFit fit = kernel_fit(built, sm);
        std::printf("sm_%d: %s; %s\n", sm, describe_fit(fit, built, sm).c_str(), kernels.c_str());
        return fit.kind == KernelFit::Kind::none ? 1 : 0;
    }

    const std::string why = cuda::unavailable_reason();
    if (!why.empty()) {
        std::printf("gpu: none usable: %s; %s\n", why.c_str(), kernels.c_str());
        return 1;
    }
    const int n = cuda::device_count();
    std::vector<std::string> lines;
    std::string first_usable;
    int usable = 0, driver = 0;
    for (int d = 0; d < n; ++d) {
        const cuda::DeviceInfo info = cuda::device_info(d);
        driver = info.driver_version;
        const KernelFit fit = kernel_fit(built, info.sm);
        std::string verdict = describe_fit(fit, built, info.sm);
        if (fit.kind != KernelFit::Kind::none) {
            const std::string failed = decode_check(d);
            if (failed.empty()) {
                ++usable;
                verdict += "; a test frame decodes as on the CPU";
                if (first_usable.empty())
                    first_usable = std::to_string(d) + ": " + info.name + " sm_" + std::to_string(info.sm);
            } else {
                verdict = "fails: " + failed;
            }
        }
        char line[1024];
        std::snprintf(line, sizeof line, "device %-5d %s: sm_%d, %d SMs, %.1f GiB: %s", d, info.name.c_str(), info.sm,
                      info.multiprocessors, static_cast<double>(info.memory_bytes) / (1 << 30), verdict.c_str());
        lines.push_back(line);
    }
    const std::string module = kernel_module_version();
    const std::string driver_text = "driver CUDA " + cuda_version_text(driver) + (module.empty() ? "" : " (" + module + ")");
    if (usable > 0)
        std::printf("gpu: ok: %d of %d device(s) usable (%s%s); %s; %s\n", usable, n, first_usable.c_str(),
                    usable > 1 ? ", ..." : "", driver_text.c_str(), kernels.c_str());
    else
        std::printf("gpu: none usable: no device runs the kernels (below); %s; %s\n", driver_text.c_str(), kernels.c_str());
    std::printf("driver       CUDA %s%s; these kernels need a driver for CUDA %d.0 or newer\n", cuda_version_text(driver).c_str(),
                module.empty() ? "" : (", kernel module " + module).c_str(), BSLZ4_CUDA_TOOLKIT_MAJOR);
    std::printf("kernels      built with CUDA %s: SASS %s; PTX %s\n", BSLZ4_CUDA_TOOLKIT, joined(built.sass, "sm_").c_str(),
                joined(built.ptx, "compute_").c_str());
    for (const std::string& l : lines) std::puts(l.c_str());
    return usable > 0 ? 0 : 1;
#endif
}

}  // namespace bslz4::tool
