// Lists written into the caller's rows (ListRows): the same lists as the object's own buffers
// hold, in the caller's rows, nothing written past a frame's pixels or the call's rows; rows
// that cannot hold the call are refused before anything is decoded.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "error_codes.hpp"
#include "gpu_comparison.hpp"
#include "list_rows_buffer.hpp"
#include "matrix_support.hpp"
#include "test_support.hpp"

using namespace bslz4;
using test::ListRowsBuffer;
using test::require_same;

namespace {

using test::kAllTypes;

test::ChunkBuffer random_frames(PixelType t, std::size_t npix, std::size_t frames) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f)
        chunks.push_back(encode_chunk(test::random_pixels_for(t, npix, 60 + f), pixel_size(t)));
    return test::ChunkBuffer(std::move(chunks));
}

}  // namespace

TEST_CASE("multi and from_buffer list into the caller's rows exactly what they list into their own, every type, and "
          "write nothing past a frame's pixels",
          "[sparse][list_rows]") {
    const std::size_t ni = 13, nj = 21, npix = ni * nj;  // odd sizes: a short last block
    const std::vector<std::uint8_t> mask = test::random_mask(npix, 5);
    for (PixelType t : kAllTypes) {
        INFO(pixel_type_name(t));
        const test::ChunkBuffer s = random_frames(t, npix, 9);
        for (unsigned threads : {1u, 4u}) {
            Chunk2Sparse sparse(mask, ni, nj, t, {Codec::lz4, threads});
            Chunk2Sparse own(mask, ni, nj, t, {Codec::lz4, threads});
            for (double cut : {3.0, -1e30})  // -1e30: every pixel the mask allows
                test::require_lists_in_rows(sparse, s, cut, own.multi(s.views(), cut), npix, t);
            sparse.set_top_pixels(10);
            own.set_top_pixels(10);
            ListRowsBuffer rows(9, npix + 1, npix, t);
            const SparseBatch top = sparse.multi(s.views(), 1.0, rows.rows());
            REQUIRE(rows.misplaced(top).empty());
            require_same(top, own.multi(s.views(), 1.0));
        }
    }
}

TEST_CASE("the CSC class lists into the caller's rows and still gives its powders", "[sparse][list_rows][integrate]") {
    const std::size_t ni = 17, nj = 23, npix = ni * nj;
    const std::vector<std::uint8_t> mask = test::random_mask(npix, 8);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(19, npix, 1.5, 4).input());
    const test::ChunkBuffer s = random_frames(PixelType::u32, npix, 7);
    Chunk2SparseCSC csc(mask, ni, nj, PixelType::u32, m);
    Chunk2SparseCSC own(mask, ni, nj, PixelType::u32, m);
    const IntegratedBatch want = own.multi(s.views(), 2.0);
    ListRowsBuffer rows(7, npix + 3, npix, PixelType::u32);
    const IntegratedBatch got = csc.multi(s.views(), 2.0, rows.rows());
    REQUIRE(rows.misplaced(got.sparse).empty());
    require_same(got.sparse, want.sparse);
    REQUIRE(std::memcmp(got.powder.data, want.powder.data, 7 * 19 * 8) == 0);
    ListRowsBuffer rows2(7, npix, npix, PixelType::u32);
    const IntegratedBatch from = csc.from_buffer(s.base, s.offsets, s.lengths, 2.0, rows2.rows());
    REQUIRE(rows2.misplaced(from.sparse).empty());
    require_same(from.sparse, want.sparse);
    REQUIRE(std::memcmp(from.powder.data, want.powder.data, 7 * 19 * 8) == 0);
}

TEST_CASE("caller's rows that are short, too few, null or misaligned are refused before any frame is decoded",
          "[sparse][list_rows]") {
    const std::size_t ni = 8, nj = 9, npix = ni * nj;
    const std::vector<std::uint8_t> mask(npix, 1);
    const test::ChunkBuffer s = random_frames(PixelType::u16, npix, 3);
    Chunk2Sparse sparse(mask, ni, nj, PixelType::u16);
    ListRowsBuffer buffer(3, npix, npix, PixelType::u16);
    const ListRows good = buffer.rows();
    const auto refused = [&](ListRows r, const char* why) {
        INFO(why);
        REQUIRE_THROWS_WITH(sparse.multi(s.views(), 0.0, r), Catch::Contains("list rows") && Catch::Contains(why));
        REQUIRE(test::code_thrown_by([&] { sparse.from_buffer(s.base, s.offsets, s.lengths, 0.0, r); }) ==
                ErrorCode::bad_argument);
    };
    ListRows r = good;
    r.row_length = npix - 1;
    refused(r, "entries for frames of 72 pixels");
    r = good;
    r.rows = 2;
    refused(r, "2 rows for 3 frames");
    r = good;
    r.values = nullptr;
    refused(r, "null");
    r = good;
    r.indices = nullptr;
    refused(r, "null");
    r = good;
    r.values = static_cast<std::uint8_t*>(r.values) + 1;
    refused(r, "aligned");
    r = good;
    r.rows = std::size_t(1) << 62;
    refused(r, "overflow");
    // The rows untouched, and the object still lists into its own and the caller's.
    REQUIRE(buffer.untouched());
    REQUIRE(buffer.misplaced(sparse.multi(s.views(), 0.0, good)).empty());
    require_same(sparse.multi(s.views(), 0.0, good), sparse.multi(s.views(), 0.0));
}

TEST_CASE("a call of no frames into no rows is an empty batch, not a division by zero", "[sparse][list_rows]") {
    const std::size_t ni = 4, nj = 5, npix = ni * nj;
    Chunk2Sparse sparse(std::vector<std::uint8_t>(npix, 1), ni, nj, PixelType::u64);
    ListRowsBuffer buffer(1, npix, npix, PixelType::u64);
    ListRows none = buffer.rows();
    none.rows = 0;
    const SparseBatch b = sparse.multi({}, 1.0, none);
    REQUIRE(b.nframes == 0);
    REQUIRE(buffer.untouched());
}
