// A C++ program linked against libbslz4.so alone (no static core, no internal header), as a
// user's program is: every public C++ function and class it calls must be exported, and a
// bslz4::Error thrown inside the library must be caught here by its type (its typeinfo is
// exported, so the two sides agree on it). The GPU half runs where a GPU is.
// usage: public_api_shared CHUNK RAW ELEM_SIZE
#include <bslz4/bslz4.hpp>
#include <bslz4/cpu_count.hpp>
#ifdef BSLZ4_TEST_GPU
#include <bslz4/cuda/chunk2sparse.hpp>
#include <bslz4/cuda/chunk2sparse_csc.hpp>
#include <bslz4/cuda/device.hpp>
#include <bslz4/cuda/host_memory.hpp>
#include <bslz4/cuda/peak_labels.hpp>
#endif

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "public_api_shared: FAILED: %s\n", what);
        ++failures;
    }
}

std::vector<std::uint8_t> read_file(const char* path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "public_api_shared: cannot read %s\n", path);
        std::exit(1);
    }
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A 48 x 40 u16 frame: 1 everywhere, every 7th pixel 100.
constexpr std::size_t kNi = 48, kNj = 40;
std::vector<std::uint8_t> frame_bytes() {
    std::vector<std::uint16_t> frame(kNi * kNj, 1);
    for (std::size_t k = 0; k < frame.size(); k += 7) frame[k] = 100;
    const auto* p = reinterpret_cast<const std::uint8_t*>(frame.data());
    return {p, p + frame.size() * 2};
}

// Two bins: the even pixels, the odd ones, weight 1.
bslz4::IntegrationMatrix two_bins() {
    std::vector<float> data(kNi * kNj, 1.0f);
    std::vector<std::uint32_t> indices, indptr{0};
    for (std::uint32_t parity = 0; parity < 2; ++parity) {
        for (std::uint32_t p = parity; p < kNi * kNj; p += 2) indices.push_back(p);
        indptr.push_back(static_cast<std::uint32_t>(indices.size()));
    }
    return bslz4::normalise_matrix(2, kNi * kNj, std::move(data), std::move(indices), indptr);
}

void cpu_side(const std::vector<std::uint8_t>& chunk, const std::vector<std::uint8_t>& raw, std::size_t elem_size) {
    check(bslz4::decode_chunk(chunk, elem_size) == raw, "decode_chunk gives the reference pixels");
    std::vector<std::uint8_t> into(raw.size());
    bslz4::decode_chunk_into(chunk, elem_size, bslz4::Codec::lz4, into.data(), into.size());
    check(into == raw, "decode_chunk_into gives the reference pixels");
    check(bslz4::parse_chunk_header(chunk, elem_size).decoded_bytes == raw.size(), "parse_chunk_header");
    check(bslz4::block_starts(chunk, elem_size).n_blocks() >= 1, "block_starts");
    check(bslz4::default_block_elems(2) > 0, "default_block_elems");
    check(bslz4::parse_codec(bslz4::codec_name(bslz4::Codec::zstd)) == bslz4::Codec::zstd, "codec names");
    check(bslz4::usable_cpu_count() >= 1, "usable_cpu_count");
    check(!bslz4::usable_cpu_paths().empty() && bslz4::cpu_path_name(bslz4::active_cpu_path()) &&
              !bslz4::describe_cpu_paths().empty(), "cpu paths");
    check(bslz4::parse_pixel_type(bslz4::pixel_type_name(bslz4::PixelType::u32)) == bslz4::PixelType::u32 &&
              bslz4::pixel_size(bslz4::PixelType::u32) == 4, "pixel types");
    check(bslz4::parse_accumulator(bslz4::accumulator_name(bslz4::Accumulator::i64)) == bslz4::Accumulator::i64 &&
              bslz4::accumulator_size(bslz4::Accumulator::f32) == 4, "accumulators");

    const auto raw_frame = frame_bytes();
    const auto encoded = bslz4::encode_chunk(raw_frame, 2);
    std::vector<std::uint8_t> mask(kNi * kNj, 1);
    bslz4::check_top_pixel_thresholds({1.0, 2.0});
    bslz4::Chunk2Sparse sparse(mask, kNi, kNj, bslz4::PixelType::u16);
    const std::size_t bright = (kNi * kNj + 6) / 7;
    check(sparse(encoded, 10.0).npixels == bright, "Chunk2Sparse lists the bright pixels");
    check(sparse.multi({encoded, encoded}, 10.0).frame(1).npixels == bright, "Chunk2Sparse::multi");
    check(bslz4::make_coo(sparse(encoded, 10.0), kNj).row.size() == bright, "make_coo");
    check(sparse.ni() == kNi && sparse.nj() == kNj && sparse.threads() >= 1, "Chunk2Sparse's accessors");

    const auto matrix = bslz4::fold_mask(two_bins(), mask);
    check(bslz4::fixed_point_matrix(matrix, bslz4::PixelType::u16).fixed_point(), "fixed_point_matrix");
    bslz4::Chunk2SparseCSC csc(mask, kNi, kNj, bslz4::PixelType::u16, matrix);
    const auto integrated = csc(encoded, 10.0);
    double total = 0;
    for (std::uint8_t b = 0; b < 2; ++b) total += integrated.powder.value(0, b);
    double want = 0;
    for (std::size_t k = 0; k < kNi * kNj; ++k) want += k % 7 == 0 ? 100 : 1;
    check(total == want, "Chunk2SparseCSC's powder sums the frame");
    check(bslz4::make_coo(integrated, kNj).coo.npixels == bright, "make_coo of an integrated frame");

    // Thrown inside the library, caught here by type, with its code.
    try {
        (void)bslz4::decode_chunk(bslz4::ByteView(chunk.data(), 5), elem_size);
        check(false, "a 5-byte chunk is refused");
    } catch (const bslz4::Error& e) {
        check(e.code() == bslz4::ErrorCode::truncated_chunk, "a 5-byte chunk is truncated_chunk");
    }
}

#ifdef BSLZ4_TEST_GPU
void gpu_side() {
    check(bslz4::cuda::built_architectures() != nullptr, "built_architectures");
    if (!bslz4::cuda::available()) {
        std::printf("public_api_shared: no GPU (%s): the GPU half not run\n", bslz4::cuda::unavailable_reason().c_str());
        return;
    }
    check(bslz4::cuda::device_count() >= 1 && !bslz4::cuda::device_info(0).name.empty(), "device_info");
    const auto encoded = bslz4::encode_chunk(frame_bytes(), 2);
    std::vector<std::uint8_t> mask(kNi * kNj, 1);
    {
        bslz4::cuda::Chunk2Sparse gpu(mask, kNi, kNj, bslz4::PixelType::u16);
        check(gpu(encoded, 10.0).npixels == (kNi * kNj + 6) / 7, "cuda::Chunk2Sparse lists the bright pixels");
        const auto dense = gpu.decompress({encoded});
        check(dense.to_host() == frame_bytes(), "DeviceArray holds the frame");
        bslz4::cuda::Chunk2SparseCSC csc(mask, kNi, kNj, bslz4::PixelType::u16, two_bins());
        check(csc.bins() == 2, "cuda::Chunk2SparseCSC");
        bslz4::cuda::Chunk2SparseCSC taken(std::move(gpu), two_bins());
        check(taken.bins() == 2, "cuda::Chunk2SparseCSC of a Chunk2Sparse");
        bslz4::cuda::PinnedHostMemory pinned(1024);
        check(pinned.size() == 1024, "PinnedHostMemory");
        bslz4::cuda::PeakLabeller labeller;
        labeller.reserve(1, 64);
        bslz4::cuda::PeakLabels labels;
        const std::uint32_t nnz = 0;
        bslz4::cuda::PeakFrames none{1, kNi, kNj, &nnz, nullptr, nullptr, nullptr};
        labeller.label(bslz4::cuda::PeakRule::cplabel, none, std::nullopt, labels);
        check(labels.nlabels.size() == 1 && labels.nlabels[0] == 0, "PeakLabeller");
    }
    bslz4::cuda::release_shared();
    check(bslz4::cuda::shared_count() == 0, "release_shared");
}
#endif

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: public_api_shared CHUNK RAW ELEM_SIZE\n");
        return 2;
    }
    try {
        cpu_side(read_file(argv[1]), read_file(argv[2]), std::strtoul(argv[3], nullptr, 10));
#ifdef BSLZ4_TEST_GPU
        gpu_side();
#endif
    } catch (const bslz4::Error& e) {
        std::fprintf(stderr, "public_api_shared: %s\n", e.what());
        return 1;
    }
    if (failures) return 1;
    std::printf("public_api_shared: ok\n");
    return 0;
}
