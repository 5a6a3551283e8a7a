// The GPU classes' lists written into the caller's rows (ListRows): downloaded there group by
// group, frames above cap listed there by the host, bit for bit the CPU's lists, nothing written
// past a frame's pixels or the call's rows.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "error_codes.hpp"
#include "gpu_comparison.hpp"
#include "list_rows_buffer.hpp"
#include "matrix_support.hpp"
#include "test_support.hpp"

using namespace bslz4;
using test::ListRowsBuffer;
using test::require_same;

TEST_CASE("GPU multi and from_buffer into the caller's rows equal the CPU for groups, batches, frames above cap and "
          "top pixels",
          "[gpu][list_rows]") {
    for (PixelType t : {PixelType::u16, PixelType::u32, PixelType::f32}) {
        INFO(pixel_type_name(t));
        const test::Stack s = test::eiger_stack(300, 517, t, 40);
        const std::size_t npix = s.ni * s.nj;
        const test::ChunkBuffer chunks(s.chunks);
        bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, t);
        for (const cuda::Chunk2SparseOptions& o :
             {cuda::Chunk2SparseOptions{}, cuda::Chunk2SparseOptions{3, 7, cuda::Unblock::gpu, -1, Codec::lz4},
              cuda::Chunk2SparseOptions{2, 4, cuda::Unblock::cpu, -1, Codec::lz4}}) {
            INFO("batch " << o.batch << " group " << o.group);
            cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, t, o);
            for (double cut : {3.0, -1e12}) {  // -1e12: every pixel, each frame above cap and listed on the host
                INFO("cut " << cut);
                const SparseBatch want = cpu.multi(s.views(), cut);
                test::require_lists_in_rows(gpu, chunks, cut, want, npix, t);
                // The object's own buffers again afterwards.
                require_same(gpu.multi(s.views(), cut), want);
            }
            gpu.set_top_pixels(25);
            cpu.set_top_pixels(25);
            ListRowsBuffer rows(40, npix, npix, t);
            const SparseBatch top = gpu.multi(s.views(), 2.0, rows.rows());
            REQUIRE(rows.misplaced(top).empty());
            require_same(top, cpu.multi(s.views(), 2.0));
            cpu.set_top_pixels(std::nullopt);
        }
    }
}

TEST_CASE("the GPU CSC class lists into the caller's rows and gives the CPU's powders", "[gpu][list_rows][integrate]") {
    const test::Stack s = test::eiger_stack(211, 307, PixelType::u32, 21);
    const std::size_t npix = s.ni * s.nj;
    // Fixed-point weights: i64 sums are exact, so the powders compare bit for bit.
    const IntegrationMatrix m = fixed_point_matrix(normalise_matrix(test::random_csr(33, npix, 1.5, 3).input()), s.type);
    cuda::Chunk2SparseCSC gpu(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64, {2, 5, cuda::Unblock::gpu, -1, Codec::lz4});
    Chunk2SparseCSC cpu(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    const IntegratedBatch want = cpu.multi(s.views(), 4.0);
    ListRowsBuffer rows(21, npix + 2, npix, s.type);
    const IntegratedBatch got = gpu.multi(s.views(), 4.0, rows.rows());
    REQUIRE(rows.misplaced(got.sparse).empty());
    require_same(got.sparse, want.sparse);
    REQUIRE(std::memcmp(got.powder.data, want.powder.data, 21 * 33 * 8) == 0);
}

TEST_CASE("caller's rows the GPU call cannot use are refused before anything runs, and the object goes on",
          "[gpu][list_rows]") {
    const test::Stack s = test::eiger_stack(64, 96, PixelType::u16, 5);
    const std::size_t npix = s.ni * s.nj;
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type);
    ListRowsBuffer buffer(5, npix, npix, s.type);
    ListRows r = buffer.rows();
    r.rows = 4;
    REQUIRE_THROWS_WITH(gpu.multi(s.views(), 1.0, r), Catch::Contains("list rows: 4 rows for 5 frames"));
    r = buffer.rows();
    r.row_length = npix - 1;
    REQUIRE(test::code_thrown_by([&] { gpu.multi(s.views(), 1.0, r); }) == ErrorCode::bad_argument);
    r = buffer.rows();
    r.indices = nullptr;
    REQUIRE(test::code_thrown_by([&] { gpu.multi(s.views(), 1.0, r); }) == ErrorCode::bad_argument);
    REQUIRE(buffer.untouched());
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    const SparseBatch before = gpu.multi(s.views(), 1.0);
    r.rows = 4;
    REQUIRE(test::code_thrown_by([&] { gpu.multi(s.views(), 1.0, r); }) == ErrorCode::bad_argument);
    require_same(before, cpu.multi(s.views(), 1.0));  // a refused call leaves the last results as they were
    const SparseBatch got = gpu.multi(s.views(), 1.0, buffer.rows());
    REQUIRE(buffer.misplaced(got).empty());
    require_same(got, cpu.multi(s.views(), 1.0));
}

TEST_CASE("the GPU CSC class copies its powders into the caller's powder rows, the CPU's bit for bit, in pieces when "
          "large, and writes nothing past the call's frames",
          "[gpu][list_rows][integrate]") {
    const test::Stack s = test::eiger_stack(211, 307, PixelType::u32, 23);
    const std::size_t npix = s.ni * s.nj;
    // 40,000 bins of i64: 320 kB a frame, so a group's copy (several frames) is shared out.
    for (const std::size_t bins : {std::size_t{33}, std::size_t{40000}}) {
        INFO("bins " << bins);
        const IntegrationMatrix m =
            fixed_point_matrix(normalise_matrix(test::random_csr(bins, npix, 1.5, 3).input()), s.type);
        cuda::Chunk2SparseCSC gpu(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64, {8, 8, cuda::Unblock::gpu, -1, Codec::lz4});
        Chunk2SparseCSC cpu(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
        const IntegratedBatch want = cpu.multi(s.views(), 4.0);
        ListRowsBuffer rows(23, npix, npix, s.type);
        constexpr std::int64_t kMark = 0x5A5A5A5A5A5A5A5A;
        std::vector<std::int64_t> powders((23 + 2) * bins, kMark);  // two rows more than the call's frames
        ListRows r = rows.rows();
        r.powder_rows = powders.data();
        const IntegratedBatch got = gpu.multi(s.views(), 4.0, r);
        REQUIRE(got.powder.data == powders.data());
        REQUIRE(std::memcmp(powders.data(), want.powder.data, 23 * bins * 8) == 0);
        for (std::size_t k = 23 * bins; k < powders.size(); ++k) REQUIRE(powders[k] == kMark);
        require_same(got.sparse, want.sparse);
        // Without powder rows: the object's own buffer, the same sums.
        const IntegratedBatch own = gpu.multi(s.views(), 4.0, rows.rows());
        REQUIRE(own.powder.data != powders.data());
        REQUIRE(std::memcmp(own.powder.data, want.powder.data, 23 * bins * 8) == 0);
        // Misaligned, or too few rows: refused before anything runs.
        r.powder_rows = reinterpret_cast<std::uint8_t*>(powders.data()) + 4;
        REQUIRE(test::code_thrown_by([&] { gpu.multi(s.views(), 4.0, r); }) == ErrorCode::bad_argument);
        r.powder_rows = powders.data();
        r.rows = 22;
        REQUIRE(test::code_thrown_by([&] { gpu.multi(s.views(), 4.0, r); }) == ErrorCode::bad_argument);
    }
}
