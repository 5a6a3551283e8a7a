// For tests/powder_exact_scipy.py: the powders of Chunk2SparseCSC (CPU, or the GPU class where
// built with one) for a scipy csc matrix and frames written as raw files, so that scipy, exact
// sums and the seed's package can be compared with ours on the same numbers.
//   powder_probe DIR TYPE NI NJ NFRAMES BINS ACC cpu|gpu
// DIR holds data.f32, indices.i32 and indptr.i32 (the csc arrays as scipy keeps them, duplicate
// entries included) and frames.raw (NFRAMES x NI x NJ pixels of TYPE). Writes
// DIR/powder_ACC_DEVICE.bin (NFRAMES x BINS float64, float32 or int64) and prints
// "powder_scale S" (the fixed-point scale for acc i64, else 1). Exit 77: no GPU here.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#ifdef BSLZ4_HAVE_CUDA
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#endif

using namespace bslz4;

namespace {

std::vector<std::uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCode::io, "cannot read " + path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class T>
std::vector<T> read_array(const std::string& path) {
    const std::vector<std::uint8_t> bytes = read_file(path);
    std::vector<T> out(bytes.size() / sizeof(T));
    std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
}

template <class Integrator>
Powder powders_of(Integrator& c, const std::vector<std::vector<std::uint8_t>>& chunks) {
    return c.multi(std::vector<ByteView>(chunks.begin(), chunks.end()), 0.0).powder;
}

}  // namespace

int main(int argc, char** argv) try {
    if (argc != 9) {
        std::fputs("usage: powder_probe DIR TYPE NI NJ NFRAMES BINS ACC cpu|gpu\n", stderr);
        return 2;
    }
    const std::string dir = argv[1], device = argv[8];
    const PixelType type = parse_pixel_type(argv[2]);
    const std::size_t ni = std::strtoull(argv[3], nullptr, 10), nj = std::strtoull(argv[4], nullptr, 10);
    const std::size_t nframes = std::strtoull(argv[5], nullptr, 10), bins = std::strtoull(argv[6], nullptr, 10);
    const Accumulator acc = parse_accumulator(argv[7]);
    const std::size_t npix = ni * nj, frame_bytes = npix * pixel_size(type);

    const std::vector<float> data = read_array<float>(dir + "/data.f32");
    const std::vector<std::int32_t> indices = read_array<std::int32_t>(dir + "/indices.i32");
    const std::vector<std::int32_t> indptr = read_array<std::int32_t>(dir + "/indptr.i32");
    const MatrixInput in{MatrixLayout::csc, bins, npix, data.data(), data.size(), IndexType::i32,
                         indices.data(), indices.size(), indptr.data(), indptr.size()};
    const IntegrationMatrix canonical = normalise_matrix(in);
    const IntegrationMatrix m = acc == Accumulator::i64 ? fixed_point_matrix(canonical, type) : canonical;

    const std::vector<std::uint8_t> raw = read_file(dir + "/frames.raw");
    if (raw.size() != nframes * frame_bytes) throw Error(ErrorCode::bad_argument, "frames.raw is not NFRAMES frames");
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::size_t f = 0; f < nframes; ++f)
        chunks.push_back(encode_chunk(std::vector<std::uint8_t>(raw.begin() + f * frame_bytes, raw.begin() + (f + 1) * frame_bytes),
                                      pixel_size(type)));
    const std::vector<std::uint8_t> mask(npix, 1);

    std::vector<std::uint8_t> out;
    double scale = 1;
    const auto keep = [&](const Powder& p) {
        const auto* bytes = static_cast<const std::uint8_t*>(p.data);
        out.assign(bytes, bytes + p.nframes * p.bins * accumulator_size(p.acc));
        scale = acc == Accumulator::i64 ? p.powder_scale : 1;
    };
    if (device == "cpu") {
        Chunk2SparseCSC c(mask, ni, nj, type, m, acc);
        keep(powders_of(c, chunks));
    } else if (device == "gpu") {
#ifdef BSLZ4_HAVE_CUDA
        if (!cuda::available()) {
            std::printf("SKIP: %s\n", cuda::unavailable_reason().c_str());
            return 77;
        }
        cuda::Chunk2SparseCSC c(mask, ni, nj, type, m, acc);
        keep(powders_of(c, chunks));
#else
        std::puts("SKIP: built without the GPU runtime");
        return 77;
#endif
    } else {
        throw Error(ErrorCode::bad_argument, "device '" + device + "': expected cpu or gpu");
    }
    const std::string path = dir + "/powder_" + accumulator_name(acc) + "_" + device + ".bin";
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
    std::printf("powder_scale %.17g\n", scale);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "powder_probe: %s\n", e.what());
    return 1;
}
