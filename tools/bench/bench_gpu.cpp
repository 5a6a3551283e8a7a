#include "bench/bench_gpu.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "bslz4/chunk2sparse.hpp"
#if BSLZ4_HAVE_CUDA
#include "bench/pinned_chunks.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/cuda/host_memory.hpp"
#endif

namespace bslz4::tool {

#if BSLZ4_HAVE_CUDA
namespace {

// The top-pixel figures' howmany: under a dense Eiger 4M frame's pixels above cut 10 (about
// 7,700), so every frame is cut down.
constexpr std::size_t kBenchHowmany = 1000;

// The copy rates (GB/s) the figures are measured against; h2d_pinned 0 where the driver will
// not pin.
struct Ceilings {
    double d2d = 0, h2d_pinned = 0, h2d_pageable = 0;

    std::string of_pinned(double gb_per_s) const {
        char text[64];
        if (h2d_pinned > 0) std::snprintf(text, sizeof text, "%.2f x pinned host-to-device", gb_per_s / h2d_pinned);
        else std::snprintf(text, sizeof text, "(no pinned host-to-device rate)");
        return text;
    }
};

// A copy rate, or "pinned: none" where the driver refused to pin.
std::string pinned_rate(cuda::Copy kind, std::size_t bytes, int device, double* rate) {
    try {
        const double r = cuda::copy_bandwidth(kind, bytes, device);
        if (rate) *rate = r;
        char text[64];
        std::snprintf(text, sizeof text, "%.1f GB/s pinned", r);
        return text;
    } catch (const Error& e) {
        if (e.code() != ErrorCode::out_of_memory) throw;
        return kind == cuda::Copy::pinned_to_device ? "pinned: none (the driver refused to pin)" : "pinned: none";
    }
}

Ceilings print_ceilings(int device) {
    const cuda::DeviceInfo info = cuda::device_info(device);
    std::printf("\ngpu %d: %s, sm_%d, %d SMs, %.0f MB L2, %.1f GB, driver %d.%d; kernels for %s\n", device,
                info.name.c_str(), info.sm, info.multiprocessors, info.l2_bytes / 1e6, info.memory_bytes / 1e9,
                info.driver_version / 1000, info.driver_version % 1000 / 10, cuda::built_architectures());
    constexpr std::size_t kCopyBytes = std::size_t{1} << 30;
    Ceilings c;
    c.d2d = cuda::copy_bandwidth(cuda::Copy::device_to_device, kCopyBytes, device);
    c.h2d_pageable = cuda::copy_bandwidth(cuda::Copy::pageable_to_device, kCopyBytes, device);
    // Where the driver will not pin, there is no pinned ceiling: the ratios to it say so, rather
    // than measure against the pageable rate under the pinned name.
    const std::string pinned_text = pinned_rate(cuda::Copy::pinned_to_device, kCopyBytes, device, &c.h2d_pinned);
    std::printf("ceilings: device-to-device copy %.1f GB/s (read + write), host-to-device %s, %.1f GB/s pageable\n", c.d2d,
                pinned_text.c_str(), c.h2d_pageable);
    // The way results come back (powders, lists): what a call's copies to the caller compare with.
    const double d2h_pageable = cuda::copy_bandwidth(cuda::Copy::device_to_pageable, kCopyBytes, device);
    const std::string d2h_pinned_text = pinned_rate(cuda::Copy::device_to_pinned, kCopyBytes, device, nullptr);
    std::printf("          device-to-host %s, %.1f GB/s pageable\n", d2h_pinned_text.c_str(), d2h_pageable);
    return c;
}

// frames/s of `decoder` with one group's chunks on the device, repeated for about `seconds`.
template <class Decoder>
double on_device(Decoder& decoder, const std::vector<ByteView>& group, double cut, double seconds) {
    double t = decoder.time_on_device(group, cut, 2);
    const unsigned repeats = static_cast<unsigned>(std::max(2.0, seconds / (t / 2)));
    t = decoder.time_on_device(group, cut, repeats);
    return group.size() * repeats / t;
}

// What every figure after the lists' shares: the frames, their chunks pinned, and the lists'
// own rates (a) and (b) that the others are compared with.
struct ListRun {
    const EigerStack& stack;
    double cut, seconds;
    int device;
    std::vector<ByteView> group;  // one group of the decoder's: (a)
    std::size_t nframes;          // several groups a call: (b) and (c)
    PinnedChunks pinned;
    double fa = 0, fb = 0;
};

GpuFigures bench_lists(cuda::Chunk2Sparse& gpu, ListRun& run, const Ceilings& ceilings, const Rate& cpu_all) {
    const EigerStack& stack = run.stack;
    const double frame_gb = stack.frame_bytes() / 1e9;
    const double chunk_gb = static_cast<double>(stack.compressed_bytes()) / stack.chunks.size() / 1e9;
    run.fa = on_device(gpu, run.group, run.cut, run.seconds);
    std::printf("%-34s %9.0f frames/s  %7.1f GB/s decoded  = %.2f x the device copy bandwidth\n",
                "gpu (a) chunks on the device", run.fa, run.fa * frame_gb, run.fa * frame_gb / ceilings.d2d);
    // (b) from pinned memory, (c) from pageable memory: whole calls of multi / from_buffer.
    const auto views = stack.views(run.nframes);
    const Rate rb = measure(run.seconds, run.nframes, stack.frame_bytes(), [&] {
        return total_pixels(gpu.from_buffer(run.pinned.base(), run.pinned.offsets, run.pinned.lengths, run.cut));
    });
    run.fb = rb.frames_per_s;
    std::printf("%-34s %9.0f frames/s  %7.1f GB/s decoded  %5.1f GB/s compressed = %s\n",
                run.pinned.memory.pinned() ? "gpu (b) from pinned host memory" : "gpu (b) from_buffer (pinning refused)",
                rb.frames_per_s, rb.gb_per_s, rb.frames_per_s * chunk_gb, ceilings.of_pinned(rb.frames_per_s * chunk_gb).c_str());
    const Rate rc = measure(run.seconds, run.nframes, stack.frame_bytes(), [&] { return total_pixels(gpu.multi(views, run.cut)); });
    // (c) is measured against the pinned upload, as (b) is: the staging copy is there to hide the
    // pageable one, which is what a plain cuMemcpy of the caller's memory would give.
    std::printf("%-34s %9.0f frames/s  %7.1f GB/s decoded  %5.1f GB/s compressed = %s, %.1f x pageable\n",
                "gpu (c) from pageable host memory", rc.frames_per_s, rc.gb_per_s, rc.frames_per_s * chunk_gb,
                ceilings.of_pinned(rc.frames_per_s * chunk_gb).c_str(), rc.frames_per_s * chunk_gb / ceilings.h2d_pageable);
    std::printf("\ngpu vs cpu (all cores): (a) %.1f x, (b) %.1f x, (c) %.1f x\n", run.fa / cpu_all.frames_per_s,
                rb.frames_per_s / cpu_all.frames_per_s, rc.frames_per_s / cpu_all.frames_per_s);
    return {run.fa, rb.frames_per_s, rc.frames_per_s};
}

// Sparse lists and powders together (Chunk2SparseCSC, f64), for each matrix.
void bench_powders(const ListRun& run, const std::vector<PowderCase>& powders) {
    const EigerStack& stack = run.stack;
    for (const PowderCase& p : powders) {
        cuda::Chunk2SparseCSC csc(stack.mask, stack.ni, stack.nj, stack.type, p.matrix, Accumulator::f64,
                                  {0, 0, cuda::Unblock::gpu, run.device, Codec::lz4});
        const double fi = on_device(csc, run.group, run.cut, run.seconds);
        const Rate rbi = measure(run.seconds, run.nframes, stack.frame_bytes(), [&] {
            return total_pixels(csc.from_buffer(run.pinned.base(), run.pinned.offsets, run.pinned.lengths, run.cut).sparse);
        });
        std::printf("\nsparse + powder (%s, %zu weights, f64):\n", p.name().c_str(), p.matrix.nnz());
        std::printf("%-34s %9.0f frames/s  = %.2f x without\n", "gpu (a) chunks on the device", fi, fi / run.fa);
        std::printf("%-34s %9.0f frames/s  = %.2f x without\n", "gpu (b) from pinned host memory", rbi.frames_per_s,
                    rbi.frames_per_s / run.fb);
        std::printf("%-34s %9.0f frames/s   gpu (a) = %.1f x\n", "cpu (all cores)", p.cpu.frames_per_s, fi / p.cpu.frames_per_s);
    }
}

// Top pixels: at most kBenchHowmany pixels a frame (default thresholds), chosen on the device.
void bench_top_pixels(const ListRun& run) {
    const EigerStack& stack = run.stack;
    cuda::Chunk2Sparse top(stack.mask, stack.ni, stack.nj, stack.type, {0, 0, cuda::Unblock::gpu, run.device, Codec::lz4});
    top.set_top_pixels(kBenchHowmany);
    const double ft = on_device(top, run.group, run.cut, run.seconds);
    const Rate rbt = measure(run.seconds, run.nframes, stack.frame_bytes(), [&] {
        return total_pixels(top.from_buffer(run.pinned.base(), run.pinned.offsets, run.pinned.lengths, run.cut));
    });
    Chunk2Sparse cpu_top(stack.mask, stack.ni, stack.nj, stack.type);
    cpu_top.set_top_pixels(kBenchHowmany);
    const auto cpu_views = stack.views(4 * cpu_top.threads());
    const Rate rct = measure(run.seconds, cpu_views.size(), stack.frame_bytes(), [&] {
        return total_pixels(cpu_top.multi(cpu_views, run.cut));
    });
    std::printf("\ntop pixels (howmany %zu, thresholds max(cut, 1) * 2**i):\n", kBenchHowmany);
    std::printf("%-34s %9.0f frames/s  = %.2f x without\n", "gpu (a) chunks on the device", ft, ft / run.fa);
    std::printf("%-34s %9.0f frames/s  = %.2f x without\n", "gpu (b) from pinned host memory", rbt.frames_per_s,
                rbt.frames_per_s / run.fb);
    std::printf("%-34s %9.0f frames/s   gpu (a) = %.1f x\n", "cpu (all cores)", rct.frames_per_s, ft / rct.frames_per_s);
}

}  // namespace
#endif

GpuFigures bench_gpu(const EigerStack& stack, const std::vector<PowderCase>& powders, double cut, double seconds, int device,
                     const Rate& cpu_all) {
#if BSLZ4_HAVE_CUDA
    if (!cuda::available()) {
        std::printf("\ngpu: not measured: %s\n", cuda::unavailable_reason().c_str());
        return {};
    }
    const Ceilings ceilings = print_ceilings(device);
    cuda::Chunk2Sparse gpu(stack.mask, stack.ni, stack.nj, stack.type, {0, 0, cuda::Unblock::gpu, device, Codec::lz4});
    std::printf("batch %u, group %u, cap %zu pixels a frame\n\n", gpu.batch(), gpu.group(), gpu.cap());
    const std::size_t nframes = 4 * gpu.group();  // several groups a call: uploads overlap kernels
    ListRun run{stack, cut, seconds, device, stack.views(gpu.group()), nframes, pin_chunks(stack.views(nframes), device)};
    const GpuFigures figures = bench_lists(gpu, run, ceilings, cpu_all);
    bench_powders(run, powders);
    bench_top_pixels(run);
    return figures;
#else
    (void)stack, (void)powders, (void)cut, (void)seconds, (void)device, (void)cpu_all;
    std::printf("\ngpu: not measured: this build has no GPU runtime (no nvcc at build time)\n");
    return {};
#endif
}

}  // namespace bslz4::tool
