// Powders on the GPU: equal to the CPU's for every type, accumulator and mask; results left on the
// device; matrices and masks prepared once and shared.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <thread>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/cuda/host_memory.hpp"
#include "context.hpp"
#include "driver_allocation_hook.hpp"
#include "driver_api.hpp"
#include "error_codes.hpp"
#include "shared_matrices.hpp"
#include "cli/file_io.hpp"
#include "gpu_comparison.hpp"
#include "matrix_support.hpp"
#include "bench/pinned_chunks.hpp"
#include "cli/reference_cases.hpp"
#include "test_support.hpp"

using namespace bslz4;
using test::eiger_stack;
using test::difference;
using test::lists_of;
using test::require_same;
using test::status_difference;
using test::Stack;

using test::kGpuTypes;

namespace {

void require_close(const Powder& gpu, const Powder& cpu) {
    REQUIRE(gpu.nframes == cpu.nframes);
    REQUIRE(gpu.bins == cpu.bins);
    REQUIRE(gpu.acc == cpu.acc);
    const std::size_t n = cpu.nframes * cpu.bins;
    if (cpu.acc == Accumulator::i64) {  // exact
        REQUIRE(std::memcmp(gpu.data, cpu.data, n * 8) == 0);
        return;
    }
    const double tol = cpu.acc == Accumulator::f64 ? 1e-12 : 1e-5;
    for (std::size_t f = 0; f < cpu.nframes; ++f)
        for (std::size_t b = 0; b < cpu.bins; ++b) {
            const double c = cpu.value(f, b), g = gpu.value(f, b);
            INFO("frame " << f << " bin " << b << " gpu " << g << " cpu " << c);
            REQUIRE(std::fabs(g - c) <= tol * std::max(1.0, std::fabs(c)));
        }
}

}  // namespace

TEST_CASE("GPU powders equal the CPU's for every type, acc and mask; random matrices; 1 and 300 frames", "[gpu][integrate]") {
    // 70 x 90: a full block, then a last block of 2,200 u16 pixels (not 32 a lane) and a tail;
    // 100 x 97: full blocks, a short last block of whole 32-pixel words and a tail, every type;
    // 33 x 136: rows of 8-byte multiples, which integrate_tiles loads 8 bytes at a time (the
    // others a pixel at a time), in tiles cut short both ways.
    for (const auto& [ni, nj] : {std::pair<std::size_t, std::size_t>{70, 90}, {100, 97}, {33, 136}}) {
        const std::size_t n = ni * nj;
        // random matrices: their bins' pixels are scattered, so a tile holds a slot for nearly
        // every entry, and a batch's partial sums are made 16 frames a launch
        for (std::size_t bins : {1u, 9u, 501u}) {
            const IntegrationMatrix m = normalise_matrix(test::random_csr(bins, n, 2.0, static_cast<std::uint32_t>(bins)).input());
            // The u32 scale is the smallest: it serves every type acc i64 takes.
            const IntegrationMatrix x = fixed_point_matrix(m, PixelType::u32);
            for (PixelType t : kGpuTypes) {
                const Stack s = eiger_stack(ni, nj, t, 300);
                const auto mask = test::random_mask(n, 12);
                std::vector<Accumulator> accs = {Accumulator::f64, Accumulator::f32};
                if (t != PixelType::f32) accs.push_back(Accumulator::i64);
                for (Accumulator acc : accs) {
                    INFO(pixel_type_name(t) << " bins " << bins << " acc " << accumulator_name(acc));
                    const IntegrationMatrix& use = acc == Accumulator::i64 ? x : m;
                    bslz4::Chunk2SparseCSC cpu(mask, ni, nj, t, use, acc);
                    cuda::Chunk2SparseCSC gpu(mask, ni, nj, t, use, acc, {bins == 9 ? 5u : 0u, 0, cuda::Unblock::gpu, -1, Codec::lz4});
                    const std::vector<ByteView> all = s.views(), one = {s.chunks[4]};
                    for (const auto* frames : {&all, &one}) {
                        const IntegratedBatch c = cpu.multi(*frames, 3.0);
                        const IntegratedBatch g = gpu.multi(*frames, 3.0);
                        require_same(g.sparse, c.sparse);
                        require_close(g.powder, c.powder);
                    }
                }
            }
        }
    }
}

TEST_CASE("int64 weights are summed exactly, staged 8 bytes an entry below 2^47 and 16 from 2^47, negative ones too",
          "[gpu][integrate]") {
    const std::size_t ni = 100, nj = 97, n = ni * nj;
    IntegrationMatrix m = normalise_matrix(test::random_csr(501, n, 2.0, 31).input());
    for (std::size_t k = 0; k < m.weight.size(); k += 3) m.weight[k] = -m.weight[k];
    for (PixelType t : {PixelType::u8, PixelType::i8, PixelType::u16, PixelType::i16, PixelType::u32}) {
        INFO(pixel_type_name(t));
        const IntegrationMatrix x = fixed_point_matrix(m, t);
        long long largest = 0;
        for (long long w : x.fixed_weight) largest = std::max(largest, std::llabs(w));
        // 1-byte pixels leave int64 sums room for weights of 2^49 and more: the 16-byte staging.
        CHECK((largest >= (1LL << 47)) == (pixel_size(t) == 1));
        const Stack s = eiger_stack(ni, nj, t, 40);
        bslz4::Chunk2SparseCSC cpu(s.mask, ni, nj, t, x, Accumulator::i64);
        cuda::Chunk2SparseCSC gpu(s.mask, ni, nj, t, x, Accumulator::i64);
        const IntegratedBatch c = cpu.multi(s.views(), 3.0), g = gpu.multi(s.views(), 3.0);
        require_same(g.sparse, c.sparse);
        require_close(g.powder, c.powder);
    }
}

TEST_CASE("an int64 weight of -2^47 or 2^47 - 1 takes the 8-byte staging, one of 2^47 or -2^47 - 1 the 16-byte one; each "
          "summed exactly",
          "[gpu][integrate]") {
    const std::size_t ni = 67, nj = 71, n = ni * nj;
    const IntegrationMatrix m = normalise_matrix(test::random_csr(97, n, 2.0, 17).input());
    constexpr long long kEdge = 1LL << 47;
    struct Case {
        long long a, b;
        bool packed;
    };
    for (const Case c : {Case{-kEdge, kEdge - 1, true}, Case{kEdge, 5, false}, Case{-kEdge - 1, 5, false}})
        for (PixelType t : {PixelType::u8, PixelType::i8}) {  // 1-byte pixels: int64 sums have room for 2^48 weights
            INFO(pixel_type_name(t) << ": weights " << c.a << " and " << c.b);
            IntegrationMatrix x = fixed_point_matrix(m, t);
            for (std::int64_t& w : x.fixed_weight) w /= 1024;  // all below 2^47 but the two set here
            x.fixed_weight[0] = c.a;
            x.fixed_weight[x.fixed_weight.size() / 2] = c.b;
            const Stack s = eiger_stack(ni, nj, t, 20);
            {
                const cuda::detail::PrimaryContext ctx(0);
                const cuda::detail::ScopedContext scope(ctx);
                const cuda::detail::PreparedMatrix prepared =
                    cuda::detail::shared_prepared_matrix(0, x, ByteView(s.mask), t, Accumulator::i64, ni, nj);
                CHECK(prepared.matrix->packed_weights == c.packed);
            }
            bslz4::Chunk2SparseCSC cpu(s.mask, ni, nj, t, x, Accumulator::i64);
            cuda::Chunk2SparseCSC gpu(s.mask, ni, nj, t, x, Accumulator::i64);
            const IntegratedBatch want = cpu.multi(s.views(), 3.0), got = gpu.multi(s.views(), 3.0);
            require_same(got.sparse, want.sparse);
            require_close(got.powder, want.powder);
        }
}

TEST_CASE("a CSC object made from a lists object integrates as one made whole, keeps its options and top pixels, and a "
          "refused matrix leaves the lists object listing; a moved-from lists object refuses calls",
          "[gpu][integrate]") {
    const std::size_t ni = 100, nj = 97, n = ni * nj;
    const Stack s = eiger_stack(ni, nj, PixelType::u16, 70);
    const auto mask = test::random_mask(n, 13);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(211, n, 2.0, 5).input());
    const cuda::Chunk2SparseOptions o{7, 3, cuda::Unblock::gpu, -1, Codec::lz4};
    for (Accumulator acc : {Accumulator::f64, Accumulator::i64}) {
        INFO(accumulator_name(acc));
        const IntegrationMatrix use = acc == Accumulator::i64 ? fixed_point_matrix(m, PixelType::u16) : m;
        cuda::Chunk2SparseCSC whole(mask, ni, nj, PixelType::u16, use, acc, o);
        cuda::Chunk2Sparse lists(mask, ni, nj, PixelType::u16, o);
        lists.reserve(16, 30000);  // buffers grown before the matrix came: the powders' grown at the call
        require_same(lists.multi(s.views(), 3.0), whole.multi(s.views(), 3.0).sparse);  // a call before, as a lists object
        cuda::Chunk2SparseCSC made(std::move(lists), use, acc);
        REQUIRE(made.batch() == whole.batch());  // the options' sizes, as the lists object chose them
        REQUIRE(made.group() == whole.group());
        REQUIRE(made.bins() == 211);
        const IntegratedBatch w = whole.multi(s.views(), 3.0), g = made.multi(s.views(), 3.0);
        require_same(g.sparse, w.sparse);
        require_close(g.powder, w.powder);
        REQUIRE(test::code_thrown_by([&] { cuda::Chunk2SparseCSC again(std::move(lists), use, acc); }) == ErrorCode::bad_argument);
        // The moved-from lists object refuses calls with a clear error (a C handle outlives its engine).
        REQUIRE(test::code_thrown_by([&] { lists.multi(s.views(), 3.0); }) == ErrorCode::bad_argument);
        REQUIRE(test::code_thrown_by([&] { (void)lists.batch(); }) == ErrorCode::bad_argument);
    }
    // A matrix of the wrong size, or a float matrix for acc i64: refused, the lists object whole
    // (its lists the CPU's: the batch it returns is a view of its own buffers).
    cuda::Chunk2Sparse lists(mask, ni, nj, PixelType::u16, o);
    lists.set_top_pixels(40);
    bslz4::Chunk2Sparse cpu_lists(mask, ni, nj, PixelType::u16);
    cpu_lists.set_top_pixels(40);
    const SparseBatch want = cpu_lists.multi(s.views(), 3.0);
    require_same(lists.multi(s.views(), 3.0), want);
    const IntegrationMatrix wrong = normalise_matrix(test::random_csr(5, n - 1, 2.0, 6).input());
    REQUIRE(test::code_thrown_by([&] { cuda::Chunk2SparseCSC x(std::move(lists), wrong); }) == ErrorCode::bad_matrix);
    REQUIRE(test::code_thrown_by([&] { cuda::Chunk2SparseCSC x(std::move(lists), m, Accumulator::i64); }) == ErrorCode::bad_matrix);
    require_same(lists.multi(s.views(), 3.0), want);
    // The top-pixels rule goes with the engine: the CSC object's lists are the 40 brightest.
    cuda::Chunk2SparseCSC top(std::move(lists), m);
    bslz4::Chunk2SparseCSC cpu(mask, ni, nj, PixelType::u16, m);
    cpu.set_top_pixels(40);
    const IntegratedBatch c = cpu.multi(s.views(), 3.0), g = top.multi(s.views(), 3.0);
    require_same(g.sparse, c.sparse);
    require_close(g.powder, c.powder);
}

namespace {

// Holds the first cuStreamSynchronize of a call (on whatever thread makes it) until released, so
// that a test can act while another thread is inside a call; the driver's entry restored when
// this goes.
class HeldSynchronize {
public:
    HeldSynchronize() : api_(const_cast<cuda::detail::DriverApi&>(cuda::detail::driver())) {
        real() = api_.cuStreamSynchronize;
        phase() = 0;
        api_.cuStreamSynchronize = [](CUstream st) {
            int idle = 0;
            if (phase().compare_exchange_strong(idle, 1))
                for (int k = 0; k < 2000 && phase() != 2; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(5));
            return real()(st);
        };
    }
    ~HeldSynchronize() {
        release();
        api_.cuStreamSynchronize = real();
    }
    HeldSynchronize(const HeldSynchronize&) = delete;
    HeldSynchronize& operator=(const HeldSynchronize&) = delete;
    // Whether a call reached it within 10 s.
    bool reached() const {
        for (int k = 0; k < 2000 && phase() == 0; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return phase() == 1;
    }
    void release() { phase() = 2; }

private:
    static std::atomic<int>& phase() {
        static std::atomic<int> p{0};
        return p;
    }
    static decltype(&::cuStreamSynchronize)& real() {
        static decltype(&::cuStreamSynchronize) f = nullptr;
        return f;
    }
    cuda::detail::DriverApi& api_;
};

}  // namespace

TEST_CASE("a lists object in a call on another thread is not made into a CSC object: refused with bad_argument, its "
          "call finishes as it would have, and the lists object then takes the matrix",
          "[gpu][integrate]") {
    const std::size_t ni = 100, nj = 97, n = ni * nj;
    const Stack s = eiger_stack(ni, nj, PixelType::u16, 24);
    const auto mask = test::random_mask(n, 19);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(150, n, 2.0, 23).input());
    bslz4::Chunk2SparseCSC cpu(mask, ni, nj, PixelType::u16, m);
    const IntegratedBatch want = cpu.multi(s.views(), 3.0);
    cuda::Chunk2Sparse lists(mask, ni, nj, PixelType::u16);
    SparseBatch got;
    std::exception_ptr failed;
    std::optional<cuda::Chunk2SparseCSC> taken;  // kept past the call, should the refusal fail
    {
        HeldSynchronize held;
        std::thread caller([&] {
            try {
                got = lists.multi(s.views(), 3.0);
            } catch (...) {
                failed = std::current_exception();
            }
        });
        const bool reached = held.reached();
        const ErrorCode refused = test::code_thrown_by([&] { taken.emplace(std::move(lists), m); });
        held.release();
        caller.join();
        REQUIRE(reached);
        REQUIRE(refused == ErrorCode::bad_argument);
        REQUIRE_FALSE(taken);
    }
    REQUIRE_FALSE(failed);
    require_same(got, want.sparse);
    cuda::Chunk2SparseCSC made(std::move(lists), m);
    const IntegratedBatch g = made.multi(s.views(), 3.0);
    require_same(g.sparse, want.sparse);
    require_close(g.powder, want.powder);
}

TEST_CASE("a lists object whose matrix finds no memory for its partial sums is refused with out_of_memory, keeps listing, "
          "and takes the matrix once the memory is there",
          "[gpu][integrate]") {
    const std::size_t ni = 100, nj = 97, n = ni * nj;
    const Stack s = eiger_stack(ni, nj, PixelType::u16, 40);
    const auto mask = test::random_mask(n, 17);
    // Bins scattered over the frame: nearly an entry a slot, so the partial sums (slots x frames
    // x 8 bytes) are the largest allocation a matrix brings, far above its arrays.
    const IntegrationMatrix m = normalise_matrix(test::random_csr(307, n, 2.0, 8).input());
    bslz4::Chunk2SparseCSC cpu(mask, ni, nj, PixelType::u16, m);
    const IntegratedBatch want = cpu.multi(s.views(), 3.0);
    std::size_t partial_bytes = 0;
    {
        cuda::Chunk2Sparse probe(mask, ni, nj, PixelType::u16);
        test::DriverAllocationHook seen;  // the matrix is prepared and cached here: later objects only size their sums
        cuda::Chunk2SparseCSC promoted(std::move(probe), m);
        partial_bytes = seen.device_largest();
    }
    REQUIRE(partial_bytes > 0);
    cuda::Chunk2Sparse lists(mask, ni, nj, PixelType::u16);
    require_same(lists.multi(s.views(), 3.0), want.sparse);
    {
        test::DriverAllocationHook refused(test::DriverAllocationHook::Refuse::device_allocations_over(partial_bytes - 1));
        REQUIRE(test::code_thrown_by([&] { cuda::Chunk2SparseCSC x(std::move(lists), m); }) == ErrorCode::out_of_memory);
        REQUIRE(refused.device_count() >= 1);
    }
    // Listing as before the refusal, with no powders left half made.
    for (int round = 0; round < 2; ++round) require_same(lists.multi(s.views(), 3.0), want.sparse);
    cuda::Chunk2SparseCSC made(std::move(lists), m);
    const IntegratedBatch g = made.multi(s.views(), 3.0);
    require_same(g.sparse, want.sparse);
    require_close(g.powder, want.powder);
}

TEST_CASE("integrate and decompress leave their results on the GPU, in arrays the caller owns", "[gpu][integrate]") {
    const std::size_t ni = 50, nj = 64, n = ni * nj;
    const Stack s = eiger_stack(ni, nj, PixelType::u16, 21);
    const IntegrationMatrix x = fixed_point_matrix(normalise_matrix(test::random_csr(33, n, 2.0, 4).input()), s.type);
    bslz4::Chunk2SparseCSC cpu(s.mask, ni, nj, s.type, x, Accumulator::i64);
    cuda::Chunk2SparseCSC gpu(s.mask, ni, nj, s.type, x, Accumulator::i64, {4, 8, cuda::Unblock::gpu, -1, Codec::lz4});
    const IntegratedBatch want = cpu.multi(s.views(), 1.0);
    const cuda::DeviceArray powders = gpu.integrate(s.views());
    REQUIRE(powders.shape() == std::vector<std::size_t>{21, 33});
    REQUIRE(powders.dtype() == "i64");
    REQUIRE(powders.device_pointer() != 0);
    const auto host = powders.to_host();
    REQUIRE(std::memcmp(host.data(), want.powder.data, 21 * 33 * 8) == 0);
    const cuda::DeviceArray frames = gpu.decompress(s.views());
    REQUIRE(frames.shape() == std::vector<std::size_t>{21, ni, nj});
    REQUIRE(frames.dtype() == "u16");
    const auto dense = frames.to_host();
    for (std::size_t f = 0; f < 21; ++f)
        REQUIRE(std::memcmp(dense.data() + f * n * 2, decode_chunk(s.chunks[f], 2).data(), n * 2) == 0);
    cuda::Chunk2Sparse plain(s.mask, ni, nj, s.type);
    const auto again = plain.decompress(s.views()).to_host();
    REQUIRE(again == dense);
    // copy_to_host: straight into the caller's memory, which must hold the whole array
    std::vector<std::uint8_t> room(frames.bytes() + 3, 0xAB);
    frames.copy_to_host(room.data(), room.size());
    REQUIRE(std::equal(dense.begin(), dense.end(), room.begin()));
    REQUIRE(room.back() == 0xAB);
    REQUIRE_THROWS_WITH(frames.copy_to_host(room.data(), frames.bytes() - 1),
                        Catch::Contains(std::to_string(frames.bytes() - 1) + " bytes of room"));
    cuda::DeviceArray().copy_to_host(nullptr, 0);  // an empty array: nothing to copy
    // the object still lists after a device-resident call
    require_same(gpu.multi(s.views(), 1.0).sparse, want.sparse);
}

TEST_CASE("matrices and masks are uploaded and prepared once and shared; release_shared drops them, objects keep theirs", "[gpu][integrate]") {
    const std::size_t ni = 20, nj = 30, n = ni * nj;
    const Stack s = eiger_stack(ni, nj, PixelType::i32, 3);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(11, n, 2.0, 6).input());
    cuda::release_shared();
    cuda::Chunk2SparseCSC a(s.mask, ni, nj, s.type, m);
    const std::size_t after_one = cuda::shared_count();
    CHECK(after_one == 2);  // the mask and the matrix
    cuda::Chunk2SparseCSC b(s.mask, ni, nj, s.type, m);
    CHECK(cuda::shared_count() == after_one);
    // Another mask: another mask upload and another prepared (folded) matrix, its powders its own.
    std::vector<std::uint8_t> other_mask = s.mask;
    for (std::size_t p = 0; p < n; p += 7) other_mask[p] = 0;
    cuda::Chunk2SparseCSC c(other_mask, ni, nj, s.type, m);
    CHECK(cuda::shared_count() == after_one + 2);
    cuda::release_shared();
    CHECK(cuda::shared_count() == 0);
    bslz4::Chunk2SparseCSC cpu(s.mask, ni, nj, s.type, m), cpu_other(other_mask, ni, nj, s.type, m);
    require_close(a.multi(s.views(), 2.0).powder, cpu.multi(s.views(), 2.0).powder);
    require_close(b.multi(s.views(), 2.0).powder, cpu.multi(s.views(), 2.0).powder);
    require_close(c.multi(s.views(), 2.0).powder, cpu_other.multi(s.views(), 2.0).powder);
}
