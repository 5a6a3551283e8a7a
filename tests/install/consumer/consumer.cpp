// A C++ program built against an installed bslz4: decodes a reference chunk, checks it against
// its raw pixels, and lists a frame that the library's own encoder made.
// usage: consumer_cpp CHUNK RAW ELEM_SIZE
#include <bslz4/bslz4.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

namespace {

std::vector<std::uint8_t> read_file(const char* path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "consumer_cpp: cannot read %s\n", path);
        std::exit(1);
    }
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int fail(const char* what) {
    std::fprintf(stderr, "consumer_cpp: %s\n", what);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) return fail("usage: consumer_cpp CHUNK RAW ELEM_SIZE");
    const auto chunk = read_file(argv[1]);
    const auto raw = read_file(argv[2]);
    const std::size_t elem_size = std::strtoul(argv[3], nullptr, 10);
    try {
        if (bslz4::decode_chunk(chunk, elem_size) != raw) return fail("the reference chunk decodes to other pixels");

        // A 64 x 64 u16 frame with every 7th pixel at 100, through the library's encoder.
        const std::size_t ni = 64, nj = 64;
        std::vector<std::uint16_t> frame(ni * nj, 1);
        std::size_t bright = 0;
        for (std::size_t k = 0; k < frame.size(); k += 7, ++bright) frame[k] = 100;
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(frame.data());
        const auto encoded = bslz4::encode_chunk(bslz4::ByteView(bytes, frame.size() * 2), 2);
        std::vector<std::uint8_t> mask(ni * nj, 1);
        bslz4::Chunk2Sparse sparse(mask, ni, nj, bslz4::PixelType::u16);
        const bslz4::SparseFrame f = sparse(encoded, 10.0);
        if (f.npixels != bright) return fail("the encoded frame lists another number of pixels");
        std::printf("consumer_cpp: ok (%zu reference bytes, %zu pixels listed)\n", raw.size(), f.npixels);
    } catch (const bslz4::Error& e) {
        return fail(e.what());
    }
    return 0;
}
