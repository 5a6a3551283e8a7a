// Chunks already in GPU memory (from_device, decompress_from_device, integrate_from_device):
// the same results as the host-memory calls, bit for bit, from chunks scattered at any
// alignment in one device allocation; and a pointer or range that is not what it claims is an
// error before anything runs, or a bad frame when the call reports.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "context.hpp"
#include "driver_objects.hpp"
#include "error_codes.hpp"
#include "gpu_comparison.hpp"
#include "list_rows_buffer.hpp"
#include "matrix_support.hpp"
#include "test_support.hpp"

using namespace bslz4;
using test::require_same;

namespace {

// A stack's chunks copied into one device allocation of GPU 0, in reverse order, each at an
// odd offset (so the gather's aligned and unaligned paths both run), with room to spare.
class ChunksOnDevice {
public:
    explicit ChunksOnDevice(const std::vector<std::vector<std::uint8_t>>& chunks) : ctx_(0) {
        cuda::detail::ScopedContext scope(ctx_);
        std::vector<std::uint8_t> image(5);
        offsets.resize(chunks.size());
        lengths.resize(chunks.size());
        for (std::size_t k = chunks.size(); k-- > 0;) {
            image.resize(image.size() + 1 + k % 16, 0xA5);  // garbage between chunks
            offsets[k] = image.size();
            lengths[k] = chunks[k].size();
            image.insert(image.end(), chunks[k].begin(), chunks[k].end());
        }
        image.resize(image.size() + 64, 0x5A);
        buffer_ = cuda::detail::DeviceBuffer(image.size(), "test chunks");
        const cuda::detail::Stream st = cuda::detail::make_stream();
        cuda::detail::check(cuda::detail::driver().cuMemcpyHtoDAsync(buffer_.get(), image.data(), image.size(), st.get()), "upload");
        cuda::detail::check(cuda::detail::driver().cuStreamSynchronize(st.get()), "sync");
    }
    ~ChunksOnDevice() { cuda::detail::ScopedContext scope(ctx_); buffer_ = cuda::detail::DeviceBuffer(); }
    ChunksOnDevice(const ChunksOnDevice&) = delete;
    ChunksOnDevice& operator=(const ChunksOnDevice&) = delete;

    std::uint64_t pointer() const { return buffer_.get(); }
    std::size_t bytes() const { return buffer_.size(); }

    std::vector<std::uint64_t> offsets, lengths;

private:
    cuda::detail::PrimaryContext ctx_;
    cuda::detail::DeviceBuffer buffer_;
};

std::vector<std::vector<std::uint8_t>> random_chunks(PixelType t, std::size_t npix, std::size_t frames) {
    std::vector<std::vector<std::uint8_t>> out;
    for (std::uint32_t f = 0; f < frames; ++f)
        out.push_back(encode_chunk(test::random_pixels_for(t, npix, 40 + f), pixel_size(t)));
    return out;
}

using test::kGpuTypes;

}  // namespace

TEST_CASE("chunks already in GPU memory give multi's lists bit for bit, every type, scattered at any alignment, in one "
          "group or many, top pixels too",
          "[gpu][from_device]") {
    const std::size_t ni = 37, nj = 229, npix = ni * nj;
    const std::vector<std::uint8_t> mask = test::random_mask(npix, 7);
    for (PixelType t : kGpuTypes) {
        INFO(pixel_type_name(t));
        const auto chunks = random_chunks(t, npix, 11);
        const std::vector<ByteView> views(chunks.begin(), chunks.end());
        const ChunksOnDevice dev(chunks);
        for (const cuda::Chunk2SparseOptions& o : {cuda::Chunk2SparseOptions{}, cuda::Chunk2SparseOptions{2, 5, cuda::Unblock::gpu, -1, Codec::lz4},
                                                  cuda::Chunk2SparseOptions{3, 16, cuda::Unblock::cpu, -1, Codec::lz4}}) {
            cuda::Chunk2Sparse gpu(mask, ni, nj, t, o);
            Chunk2Sparse cpu(mask, ni, nj, t);
            for (double cut : {0.0, 5.0, -1e12}) {  // -1e12: every pixel, frames above cap read back for the host
                INFO("cut " << cut);
                require_same(gpu.from_device(dev.pointer(), dev.offsets, dev.lengths, cut), cpu.multi(views, cut));
            }
            gpu.set_top_pixels(30);
            cpu.set_top_pixels(30);
            require_same(gpu.from_device(dev.pointer(), dev.offsets, dev.lengths, 3.0), cpu.multi(views, 3.0));
        }
    }
}

TEST_CASE("decompress_from_device, integrate_from_device and the CSC class's from_device equal the host-memory calls",
          "[gpu][from_device]") {
    const test::Stack s = test::eiger_stack(300, 517, PixelType::u32, 13);
    const std::size_t n = s.ni * s.nj;
    const ChunksOnDevice dev(s.chunks);
    const IntegrationMatrix m = fixed_point_matrix(normalise_matrix(test::random_csr(25, n, 1.5, 9).input()), s.type);
    cuda::Chunk2SparseCSC gpu(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64, {2, 6, cuda::Unblock::gpu, -1, Codec::lz4});
    Chunk2SparseCSC cpu(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    const IntegratedBatch want = cpu.multi(s.views(), 4.0);
    const IntegratedBatch got = gpu.from_device(dev.pointer(), dev.offsets, dev.lengths, 4.0);
    require_same(got.sparse, want.sparse);
    REQUIRE(std::memcmp(got.powder.data, want.powder.data, 13 * 25 * 8) == 0);
    const auto sums = gpu.integrate_from_device(dev.pointer(), dev.offsets, dev.lengths).to_host();
    REQUIRE(sums == gpu.integrate(s.views()).to_host());
    const auto frames = gpu.decompress_from_device(dev.pointer(), dev.offsets, dev.lengths).to_host();
    REQUIRE(frames == gpu.decompress(s.views()).to_host());
    cuda::Chunk2Sparse lists(s.mask, s.ni, s.nj, s.type);
    REQUIRE(lists.decompress_from_device(dev.pointer(), dev.offsets, dev.lengths).to_host() == frames);
    for (std::size_t f = 0; f < 13; ++f) REQUIRE(std::memcmp(frames.data() + f * n * 4, decode_chunk(s.chunks[f], 4).data(), n * 4) == 0);
}

TEST_CASE("a pointer that is not device memory, counts that differ, or a chunk outside the device allocation is a "
          "bad_argument Error before anything runs, or with OnError::report a bad frame; a corrupt chunk on the device "
          "is the CPU's error, code and message",
          "[gpu][from_device][report]") {
    const test::Stack s = test::eiger_stack(96, 160, PixelType::u16, 9);
    auto chunks = s.chunks;
    chunks[6].resize(chunks[6].size() - 5);  // truncated
    const std::vector<ByteView> views(chunks.begin(), chunks.end());
    const ChunksOnDevice dev(chunks);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, {2, 4, cuda::Unblock::gpu, -1, Codec::lz4});
    using test::code_thrown_by;
    const std::vector<std::uint8_t> host(64);
    CHECK(code_thrown_by([&] { gpu.from_device(reinterpret_cast<std::uintptr_t>(host.data()), {0}, {10}, 1.0); }) ==
          ErrorCode::bad_argument);
    CHECK(code_thrown_by([&] { gpu.from_device(dev.pointer(), {0, 1}, {10}, 1.0); }) == ErrorCode::bad_argument);
    auto outside = dev.offsets;
    outside[2] = dev.bytes() - dev.lengths[2] + 1;  // its last byte one past the allocation
    std::string says;
    try {
        gpu.from_device(dev.pointer(), outside, dev.lengths, 1.0);
    } catch (const Error& e) {
        says = e.what();
        CHECK(e.code() == ErrorCode::bad_argument);
    }
    CHECK_THAT(says, Catch::StartsWith("frame 2: ") && Catch::Contains("device allocation"));
    // The truncated chunk: the CPU's message.
    Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    std::string cpu_says, gpu_says;
    try {
        cpu.multi(views, 1.0);
    } catch (const Error& e) {
        cpu_says = e.what();
    }
    try {
        gpu.from_device(dev.pointer(), dev.offsets, dev.lengths, 1.0);
    } catch (const Error& e) {
        gpu_says = e.what();
    }
    REQUIRE_FALSE(cpu_says.empty());
    CHECK(gpu_says == cpu_says);
    // Reporting: frame 2 outside, frame 6 truncated; the others as multi's.
    cuda::Chunk2SparseOptions o{2, 4, cuda::Unblock::gpu, -1, Codec::lz4};
    o.on_error = OnError::report;
    cuda::Chunk2Sparse reporting(s.mask, s.ni, s.nj, s.type, o);
    Chunk2SparseOptions co;
    co.on_error = OnError::report;
    Chunk2Sparse cpu_reporting(s.mask, s.ni, s.nj, s.type, co);
    const SparseBatch want = cpu_reporting.multi(views, 1.0);
    const SparseBatch got = reporting.from_device(dev.pointer(), outside, dev.lengths, 1.0);
    REQUIRE(got.nbad == 2);
    CHECK(got.bad[0].frame == 2);
    CHECK(got.code(2) == ErrorCode::bad_argument);
    CHECK(got.npixels[2] == 0);
    CHECK(got.bad[1].frame == 6);
    CHECK(got.code(6) == want.code(6));
    CHECK(std::string(got.bad[1].message) == std::string(want.bad[0].message));
    for (std::size_t f = 0; f < 9; ++f) {
        if (f == 2) continue;
        INFO("frame " << f);
        REQUIRE(got.npixels[f] == want.npixels[f]);
        REQUIRE(std::memcmp(got.frame(f).indices, want.frame(f).indices, want.npixels[f] * 4) == 0);
    }
    // The object still works.
    require_same(reporting.from_device(dev.pointer(), dev.offsets, dev.lengths, 1.0), cpu_reporting.multi(views, 1.0));
}

TEST_CASE("from_device lists into the caller's rows, the plain and CSC classes alike", "[gpu][from_device][list_rows]") {
    const test::Stack s = test::eiger_stack(300, 517, PixelType::u16, 17);
    const std::size_t npix = s.ni * s.nj;
    const ChunksOnDevice dev(s.chunks);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, {2, 6, cuda::Unblock::gpu, -1, Codec::lz4});
    Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    for (double cut : {4.0, -1e12}) {  // -1e12: frames above cap, read back and listed by the host
        INFO("cut " << cut);
        test::ListRowsBuffer rows(17, npix + 4, npix, s.type);
        const SparseBatch got = gpu.from_device(dev.pointer(), dev.offsets, dev.lengths, cut, rows.rows());
        REQUIRE(rows.misplaced(got).empty());
        require_same(got, cpu.multi(s.views(), cut));
    }
    const IntegrationMatrix m = fixed_point_matrix(normalise_matrix(test::random_csr(21, npix, 1.5, 2).input()), s.type);
    cuda::Chunk2SparseCSC gcsc(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    Chunk2SparseCSC ccsc(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    test::ListRowsBuffer rows(17, npix, npix, s.type);
    const IntegratedBatch got = gcsc.from_device(dev.pointer(), dev.offsets, dev.lengths, 4.0, rows.rows());
    const IntegratedBatch want = ccsc.multi(s.views(), 4.0);
    REQUIRE(rows.misplaced(got.sparse).empty());
    require_same(got.sparse, want.sparse);
    REQUIRE(std::memcmp(got.powder.data, want.powder.data, 17 * 21 * 8) == 0);  // i64: exact
}
