// The GPU classes and memory: batches bounded by what is free, a GPU mostly held elsewhere, pinned
// memory refused, reserve, allocations refused in the middle of a call, forked children.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <random>
#include <utility>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/cuda/host_memory.hpp"
#include "bslz4/log.hpp"
#include "context.hpp"
#include "driver_allocation_hook.hpp"
#include "driver_api.hpp"
#include "error_codes.hpp"
#include "cli/file_io.hpp"
#include "gpu_comparison.hpp"
#include "matrix_support.hpp"
#include "bench/pinned_chunks.hpp"
#include "cli/reference_cases.hpp"
#include "stderr_capture.hpp"
#include "test_support.hpp"
#include "synthetic/synthetic_eiger.hpp"

using namespace bslz4;
using test::eiger_stack;
using test::difference;
using test::lists_of;
using test::require_same;
using test::status_difference;
using test::Stack;


namespace {

// Holds the GPU's memory as another process would, through the driver the library loaded,
// until about `leave` bytes are free; gives it all back when destroyed.
class DeviceMemoryHog {
public:
    DeviceMemoryHog() : ctx_(0) {}
    ~DeviceMemoryHog() {
        cuda::detail::ScopedContext scope(ctx_);
        for (CUdeviceptr p : held_) cuda::detail::driver().cuMemFree(p);
    }
    DeviceMemoryHog(const DeviceMemoryHog&) = delete;
    DeviceMemoryHog& operator=(const DeviceMemoryHog&) = delete;

    void leave(std::size_t bytes) {
        cuda::detail::ScopedContext scope(ctx_);
        const auto& api = cuda::detail::driver();
        for (std::size_t piece : {std::size_t{1} << 30, std::size_t{64} << 20, std::size_t{2} << 20})
            for (;;) {
                if (free_bytes() < bytes + piece) break;
                CUdeviceptr p = 0;
                if (api.cuMemAlloc(&p, piece) != CUDA_SUCCESS) break;
                held_.push_back(p);
            }
    }
    std::size_t free_bytes() const {
        cuda::detail::ScopedContext scope(ctx_);
        std::size_t free = 0, total = 0;
        cuda::detail::check(cuda::detail::driver().cuMemGetInfo(&free, &total), "cuMemGetInfo");
        return free;
    }

private:
    cuda::detail::PrimaryContext ctx_;
    std::vector<CUdeviceptr> held_;
};


}  // namespace

TEST_CASE("options asking for batches and groups larger than the GPU are bounded by its free memory", "[gpu][memory]") {
    const Stack s = eiger_stack(1024, 1024, PixelType::u32, 20);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, {1u << 30, 1u << 30, cuda::Unblock::gpu, -1, Codec::lz4});
    CHECK(gpu.batch() <= 64);
    CHECK(gpu.group() <= 256);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    require_same(gpu.multi(s.views(), 3.0), cpu.multi(s.views(), 3.0));
}

TEST_CASE("with most of the GPU held elsewhere, objects fit in what is free, what cannot fit is a clear error, and they "
          "work again once memory is back", "[gpu][memory]") {
    const std::size_t ni = 1024, nj = 1024, n = ni * nj;  // u32: 4.2 MB frames
    Stack quiet{ni, nj, PixelType::u32, {}, test::random_mask(n, 4)};
    Stack noisy = quiet;  // incompressible: chunks as large as frames
    for (std::uint32_t f = 0; f < 12; ++f) {
        quiet.chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, PixelType::u32, f), 4));
        std::vector<std::uint8_t> raw(n * 4);
        std::mt19937 rng(f);
        for (auto& b : raw) b = static_cast<std::uint8_t>(rng());
        noisy.chunks.push_back(encode_chunk(raw, 4));
    }
    const IntegrationMatrix m = fixed_point_matrix(normalise_matrix(test::random_csr(64, n, 1.0, 3).input()), PixelType::u32);
    bslz4::Chunk2Sparse cpu(quiet.mask, ni, nj, PixelType::u32);
    bslz4::Chunk2SparseCSC cpu_csc(quiet.mask, ni, nj, PixelType::u32, m, Accumulator::i64);
    auto same_powders = [](const IntegratedBatch& g, const IntegratedBatch& c) {
        require_same(g.sparse, c.sparse);
        REQUIRE(std::memcmp(g.powder.data, c.powder.data, c.powder.nframes * c.powder.bins * 8) == 0);
    };
    const std::vector<std::string> out_of_memory = {"CUDA_ERROR_OUT_OF_MEMORY", " MB free of "};
    auto plus = [](std::vector<std::string> v, const std::string& more) {
        v.push_back(more);
        return v;
    };
    std::optional<cuda::Chunk2Sparse> lists;
    std::optional<cuda::Chunk2SparseCSC> powders;
    {
        DeviceMemoryHog hog;
        hog.leave(std::size_t{1} << 30);
        INFO("free with 1 GB left: " << hog.free_bytes() / 1e6 << " MB");
        lists.emplace(quiet.mask, ni, nj, PixelType::u32);
        powders.emplace(quiet.mask, ni, nj, PixelType::u32, m, Accumulator::i64);
        std::printf("with %.0f MB of the GPU free: batch %u, group %u\n", hog.free_bytes() / 1e6, lists->batch(), lists->group());
        CHECK(lists->group() < 256);  // 1/16 of the free memory holds 16 frames
        require_same(lists->multi(quiet.views(), 5.0), cpu.multi(quiet.views(), 5.0));
        same_powders(powders->multi(quiet.views(), 5.0), cpu_csc.multi(quiet.views(), 5.0));

        hog.leave(std::size_t{8} << 20);
        std::printf("with %.1f MB of the GPU free:\n", hog.free_bytes() / 1e6);
        // The call throws bslz4::Error, with all of `parts` in its message (or exactly `exact`).
        auto expect_error = [&](const char* what, auto&& call, const std::vector<std::string>& parts,
                                const std::string& exact = "") {
            std::string message = "(no error)";
            hog.leave(std::size_t{8} << 20);  // what the driver gave back since (its own reserves) is taken again
            try {
                call();
            } catch (const Error& e) {
                message = e.what();
            }
            std::printf("  %s: %s\n", what, message.c_str());
            INFO(what << ": " << message);
            for (const std::string& p : parts) CHECK(message.find(p) != std::string::npos);
            if (!exact.empty()) CHECK(message == exact);
        };
        {
            // Lists of incompressible frames need more memory than is free: an out-of-memory Error,
            // unless the driver gives what the call asks (what it frees of its own buffers, and
            // memory the driver kept back from cuMemGetInfo: seen on the H200, 6 allocations granted
            // with 9.6 MB said free); then the lists are right. The refusal itself is pinned by the
            // hooked test below, which does not depend on the driver's accounting.
            hog.leave(std::size_t{8} << 20);
            const std::size_t free_before = hog.free_bytes();
            std::string message = "(no error)";
            std::optional<SparseBatch> got;
            std::size_t asked = 0, asked_bytes = 0;
            {
                test::DriverAllocationHook counter;
                try {
                    got = lists->multi(noisy.views(), 5.0);
                } catch (const Error& e) {
                    message = e.what();
                }
                asked = counter.device_count();
                asked_bytes = counter.device_bytes();
            }
            std::printf("  lists of incompressible frames: %s (%zu device allocations, %.1f MB, asked for with %.1f MB free)\n",
                        message.c_str(), asked, asked_bytes / 1e6, free_before / 1e6);
            INFO("lists of incompressible frames: " << message);
            if (got) {
                require_same(*got, cpu.multi(noisy.views(), 5.0));
            } else {
                for (const std::string& p : plus(out_of_memory, "cuMemAlloc(")) CHECK(message.find(p) != std::string::npos);
            }
        }
        expect_error("powders of incompressible frames", [&] { powders->multi(noisy.views(), 5.0); }, out_of_memory);
        expect_error("decompress", [&] { lists->decompress(quiet.views()); },
                     plus(out_of_memory, "cuMemAlloc(device array, 50.3 MB)"));
        expect_error("integrate", [&] { powders->integrate(noisy.views()); }, out_of_memory);
        expect_error("a new object", [&] { cuda::Chunk2Sparse(quiet.mask, ni, nj, PixelType::u32); },
                     {"CUDA_ERROR_OUT_OF_MEMORY"});
        // A call that fits in what is free still works: no buffer is left sized for the calls
        // that failed.
        const std::vector<ByteView> one = {quiet.chunks[5]};
        require_same(lists->multi(one, 5.0), cpu.multi(one, 5.0));
        same_powders(powders->multi(one, 5.0), cpu_csc.multi(one, 5.0));
        // A chunk longer than any chunk of a frame is refused before it could take memory.
        auto long_chunks = quiet.chunks;
        long_chunks[0].resize(long_chunks[0].size() + (std::size_t{64} << 20), 1);
        const std::vector<ByteView> long_views(long_chunks.begin(), long_chunks.end());
        std::string cpu_says;
        try {
            cpu.multi(long_views, 5.0);
        } catch (const Error& e) {
            cpu_says = e.what();
        }
        REQUIRE_THAT(cpu_says, Catch::StartsWith("frame 0: ") && Catch::Contains("left over"));
        expect_error("a chunk 64 MB too long", [&] { lists->multi(long_views, 5.0); }, {}, cpu_says);
    }
    // Memory back: the same objects work, bit for bit, and new ones can be made.
    require_same(lists->multi(noisy.views(), 5.0), cpu.multi(noisy.views(), 5.0));
    same_powders(powders->multi(noisy.views(), 5.0), cpu_csc.multi(noisy.views(), 5.0));
    const auto dense = lists->decompress(quiet.views()).to_host();
    for (std::size_t f = 0; f < quiet.chunks.size(); ++f)
        REQUIRE(std::memcmp(dense.data() + f * n * 4, decode_chunk(quiet.chunks[f], 4).data(), n * 4) == 0);
    const auto sums = powders->integrate(noisy.views()).to_host();
    REQUIRE(std::memcmp(sums.data(), cpu_csc.multi(noisy.views(), 0.0).powder.data, 12 * 64 * 8) == 0);
    cuda::Chunk2Sparse fresh(quiet.mask, ni, nj, PixelType::u32);
    require_same(fresh.multi(noisy.views(), 5.0), cpu.multi(noisy.views(), 5.0));
}

// The messages the library logs while this lives (bslz4/log.hpp), instead of stderr.
class LogCapture {
public:
    LogCapture() { set_log_handler(&LogCapture::keep, this); }
    ~LogCapture() { set_log_handler(nullptr); }
    LogCapture(const LogCapture&) = delete;
    LogCapture& operator=(const LogCapture&) = delete;
    std::vector<std::pair<LogLevel, std::string>> messages() {
        const std::lock_guard<std::mutex> hold(lock_);
        return messages_;
    }

private:
    static void keep(LogLevel level, const char* message, void* user) {
        auto* self = static_cast<LogCapture*>(user);
        const std::lock_guard<std::mutex> hold(self->lock_);
        self->messages_.emplace_back(level, message);
    }
    std::mutex lock_;
    std::vector<std::pair<LogLevel, std::string>> messages_;
};

TEST_CASE("when the driver refuses pinned host memory, the GPU classes use pageable memory after one warning (to the "
          "program's log handler, not stderr), with the same results; PinnedHostMemory says it is pageable and no "
          "pinned copy rate is given", "[gpu][pinned]") {
    const Stack s = eiger_stack(96, 160, PixelType::u16, 40);
    const std::size_t n = s.ni * s.nj;
    const IntegrationMatrix m = fixed_point_matrix(normalise_matrix(test::random_csr(19, n, 2.0, 5).input()), s.type);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    bslz4::Chunk2SparseCSC cpu_csc(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    std::vector<std::uint64_t> offsets, lengths;
    std::size_t total = 0;
    for (const auto& c : s.chunks) {
        offsets.push_back(total);
        lengths.push_back(c.size());
        total += c.size();
    }
    std::string on_stderr;
    std::vector<std::pair<LogLevel, std::string>> logged;
    {
        test::StderrCapture err;
        LogCapture log;
        test::DriverAllocationHook refused(test::DriverAllocationHook::Refuse::pinned_memory());
        cuda::Chunk2Sparse a(s.mask, s.ni, s.nj, s.type, {4, 8, cuda::Unblock::gpu, -1, Codec::lz4});
        cuda::Chunk2Sparse b(s.mask, s.ni, s.nj, s.type, {3, 16, cuda::Unblock::cpu, -1, Codec::lz4});
        cuda::Chunk2SparseCSC c(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
        cuda::PinnedHostMemory buffer(total);  // pageable too: staged like any caller memory
        CHECK_FALSE(buffer.pinned());
        CHECK_FALSE(cuda::PinnedHostMemory(std::size_t{40} << 20).pinned());  // large: mapped, registering refused
        // No pinned rate to give, rather than the pageable one under the pinned name.
        CHECK(test::code_thrown_by([] { cuda::copy_bandwidth(cuda::Copy::pinned_to_device, 1 << 20); }) ==
              ErrorCode::out_of_memory);
        for (std::size_t f = 0; f < s.chunks.size(); ++f) std::memcpy(buffer.data() + offsets[f], s.chunks[f].data(), lengths[f]);
        for (int round = 0; round < 2; ++round) {
            require_same(a.multi(s.views(), 2.0), cpu.multi(s.views(), 2.0));
            require_same(b.multi(s.views(), 2.0), cpu.multi(s.views(), 2.0));
            require_same(a.from_buffer(ByteView(buffer.data(), total), offsets, lengths, 2.0), cpu.multi(s.views(), 2.0));
            const IntegratedBatch g = c.multi(s.views(), 2.0), want = cpu_csc.multi(s.views(), 2.0);
            require_same(g.sparse, want.sparse);
            REQUIRE(std::memcmp(g.powder.data, want.powder.data, 40 * 19 * 8) == 0);
        }
        logged = log.messages();
        on_stderr = err.text();
    }
    CHECK(on_stderr.empty());
    REQUIRE(logged.size() == 1);
    std::printf("logged while pinned memory was refused: %s\n", logged[0].second.c_str());
    CHECK(logged[0].first == LogLevel::warning);
    CHECK_THAT(logged[0].second, Catch::StartsWith("the driver refused pinned host memory") &&
                                     Catch::Contains("CUDA_ERROR_OUT_OF_MEMORY") &&
                                     Catch::Contains("using pageable memory instead"));
    CHECK(logged[0].second.find('\n') == std::string::npos);
    // Pinned again once the driver gives it.
    cuda::Chunk2Sparse again(s.mask, s.ni, s.nj, s.type);
    require_same(again.multi(s.views(), 2.0), cpu.multi(s.views(), 2.0));
    CHECK(cuda::PinnedHostMemory(4096).pinned());
    CHECK(cuda::PinnedHostMemory(std::size_t{40} << 20).pinned());
    CHECK(cuda::copy_bandwidth(cuda::Copy::pinned_to_device, 1 << 20) > 0);
    CHECK(cuda::copy_bandwidth(cuda::Copy::pinned_to_device, std::size_t{64} << 20) > 0);  // registered huge pages
}

TEST_CASE("reserve grows the staging and device buffers before the first call, which then allocates no device memory; "
          "results unchanged, and calls beyond what was reserved still grow", "[gpu][memory]") {
    const Stack s = eiger_stack(300, 517, PixelType::u16, 40);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    const SparseBatch want = cpu.multi(s.views(), 3.0);
    std::size_t longest = 0;
    for (const auto& c : s.chunks) longest = std::max(longest, c.size());
    const cuda::Chunk2SparseOptions settings[] = {
        {0, 0, cuda::Unblock::gpu, -1, Codec::lz4},
        {2, 5, cuda::Unblock::gpu, -1, Codec::lz4},
        {3, 16, cuda::Unblock::cpu, -1, Codec::lz4},
    };
    for (const auto& o : settings) {
        INFO("batch " << o.batch << " group " << o.group);
        cuda::Chunk2Sparse reserved(s.mask, s.ni, s.nj, s.type, o), grown(s.mask, s.ni, s.nj, s.type, o);
        reserved.reserve(40, longest);
        std::size_t device_reserved = 0, host_reserved = 0, device_grown = 0, host_grown = 0;
        {
            test::DriverAllocationHook counter;
            require_same(reserved.multi(s.views(), 3.0), want);
            device_reserved = counter.device_count();
            host_reserved = counter.host_count();
        }
        {
            test::DriverAllocationHook counter;
            require_same(grown.multi(s.views(), 3.0), want);
            device_grown = counter.device_count();
            host_grown = counter.host_count();
        }
        CHECK(device_reserved == 0);
        CHECK(device_grown > 0);
        CHECK(host_reserved < host_grown);  // the lists' pinned copies still grow with what is found
        // Nothing reserved, or more than a frame's chunk can be: still the same results.
        reserved.reserve(0, 0);
        reserved.reserve(3, std::size_t{1} << 40);
        require_same(reserved.multi(s.views(), 3.0), want);
        cuda::Chunk2Sparse small(s.mask, s.ni, s.nj, s.type, o);
        small.reserve(2, 100);
        require_same(small.multi(s.views(), 3.0), want);
    }
    const IntegrationMatrix m = fixed_point_matrix(normalise_matrix(test::random_csr(20, 300 * 517, 1.0, 3).input()), s.type);
    bslz4::Chunk2SparseCSC cpu_csc(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    cuda::Chunk2SparseCSC gpu_csc(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    gpu_csc.reserve(40, longest);
    const IntegratedBatch g = gpu_csc.multi(s.views(), 3.0), c = cpu_csc.multi(s.views(), 3.0);
    require_same(g.sparse, c.sparse);
    REQUIRE(std::memcmp(g.powder.data, c.powder.data, 40 * 20 * 8) == 0);
}

TEST_CASE("an object's list buffers are grown for the groups it is called with, not made for its largest group when it "
          "is made",
          "[gpu][memory]") {
    const Stack s = eiger_stack(300, 517, PixelType::u16, 64);
    const std::size_t n = s.ni * s.nj, room = n * 2 / (4 + 2) * (2 + 4);  // a frame's lists at cap pixels
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    std::size_t made = 0, called = 0;
    std::optional<cuda::Chunk2Sparse> gpu;
    {
        test::DriverAllocationHook counter;
        gpu.emplace(s.mask, s.ni, s.nj, s.type);
        made = counter.device_bytes();
    }
    INFO("group " << gpu->group() << ", batch " << gpu->batch() << ": " << made / 1e6 << " MB when made");
    CHECK(gpu->group() == 256);
    CHECK(made < std::size_t{3} * 256 * room);  // three slots' lists for 256 frames alone would be more
    {
        // 64 frames come in 4 groups of 16: the three slots' lists grow for 16 frames
        test::DriverAllocationHook counter;
        require_same(gpu->multi(s.views(), 3.0), cpu.multi(s.views(), 3.0));
        called = counter.device_bytes();
    }
    INFO(called / 1e6 << " MB grown by the first call");
    CHECK(called >= std::size_t{3} * 16 * room);
    CHECK(called < std::size_t{3} * 256 * room);  // with the chunks' and sequences' buffers
}

TEST_CASE("pinned memory of 2 MB and more is not copied into a forked child, as cuMemHostAlloc's is not", "[gpu][pinned]") {
    cuda::PinnedHostMemory large(std::size_t{64} << 20), small(4096);
    REQUIRE(large.pinned());
    std::memset(large.data(), 7, large.size());
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // In the child the range is not mapped: msync says so (ENOMEM) rather than touching it.
        const bool absent = msync(large.data(), 4096, MS_ASYNC) != 0 && errno == ENOMEM;
        _exit(absent ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(large.data()[large.size() - 1] == 7);  // the parent's own is untouched
}

TEST_CASE("reserve for chunks in pinned memory grows no staging; from_buffer from pinned memory then allocates no device "
          "memory, and a call from ordinary memory still grows its staging",
          "[gpu][memory][pinned]") {
    const Stack s = eiger_stack(300, 517, PixelType::u16, 160);  // over 2 MB of chunks: registered huge-page memory
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    const SparseBatch want = cpu.multi(s.views(), 3.0);
    const tool::PinnedChunks pinned = tool::pin_chunks(s.views(), 0);
    REQUIRE(pinned.memory.size() >= (std::size_t{2} << 20));
    REQUIRE(pinned.memory.pinned());
    const std::size_t longest = *std::max_element(pinned.lengths.begin(), pinned.lengths.end());
    cuda::Chunk2Sparse for_pinned(s.mask, s.ni, s.nj, s.type), for_pageable(s.mask, s.ni, s.nj, s.type);
    std::size_t host_pinned = 0, host_pageable = 0;
    {
        test::DriverAllocationHook counter;
        for_pinned.reserve(160, longest, cuda::ChunkMemory::pinned);
        host_pinned = counter.host_count();
    }
    {
        test::DriverAllocationHook counter;
        for_pageable.reserve(160, longest, cuda::ChunkMemory::pageable);
        host_pageable = counter.host_count();
    }
    CHECK(host_pinned < host_pageable);  // the staging buffers
    {
        test::DriverAllocationHook counter;
        require_same(for_pinned.from_buffer(pinned.base(), pinned.offsets, pinned.lengths, 3.0), want);
        CHECK(counter.device_count() == 0);
    }
    require_same(for_pinned.multi(s.views(), 3.0), want);  // ordinary memory: staging grown now
    require_same(for_pageable.from_buffer(pinned.base(), pinned.offsets, pinned.lengths, 3.0), want);
}

TEST_CASE("a device allocation refused in the middle of a call is an out_of_memory Error naming it, reporting or not, "
          "never frames quietly skipped; the object works once memory is back", "[gpu][memory]") {
    const std::size_t ni = 512, nj = 512, n = ni * nj;  // u32: 1 MB frames
    Stack quiet{ni, nj, PixelType::u32, {}, test::random_mask(n, 4)};
    Stack noisy = quiet;  // incompressible: each chunk's LZ4 sequences take about 2.8 MB of device memory
    for (std::uint32_t f = 0; f < 6; ++f) {
        quiet.chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, PixelType::u32, f), 4));
        std::vector<std::uint8_t> raw(n * 4);
        std::mt19937 rng(f + 100);
        for (auto& b : raw) b = static_cast<std::uint8_t>(rng());
        noisy.chunks.push_back(encode_chunk(raw, 4));
    }
    bslz4::Chunk2Sparse cpu(quiet.mask, ni, nj, PixelType::u32);
    cuda::Chunk2SparseOptions reporting{2, 4, cuda::Unblock::gpu, -1, Codec::lz4};
    reporting.on_error = OnError::report;
    for (const cuda::Chunk2SparseOptions& o :
         {cuda::Chunk2SparseOptions{2, 4, cuda::Unblock::gpu, -1, Codec::lz4}, reporting}) {
        INFO("on_error " << (o.on_error == OnError::report ? "report" : "throw_first"));
        cuda::Chunk2Sparse gpu(quiet.mask, ni, nj, PixelType::u32, o);
        require_same(gpu.multi(quiet.views(), 5.0), cpu.multi(quiet.views(), 5.0));  // buffers sized for quiet frames
        std::string message = "(no error)";
        ErrorCode code = ErrorCode::ok;
        {
            // Quiet frames' buffers are far under 2 MB; the noisy frames' chunks and sequences are over.
            test::DriverAllocationHook refused(test::DriverAllocationHook::Refuse::device_allocations_over(std::size_t{2} << 20));
            try {
                gpu.multi(noisy.views(), 5.0);
            } catch (const Error& e) {
                message = e.what();
                code = e.code();
            }
        }
        INFO(message);
        CHECK(code == ErrorCode::out_of_memory);
        CHECK_THAT(message, Catch::Contains("cuMemAlloc(") && Catch::Contains("CUDA_ERROR_OUT_OF_MEMORY"));
        require_same(gpu.multi(noisy.views(), 5.0), cpu.multi(noisy.views(), 5.0));
        require_same(gpu.multi(quiet.views(), 5.0), cpu.multi(quiet.views(), 5.0));
    }
}
