// For tests/top_pixels_seed.py: Chunk2Sparse::multi with a top-pixels setting on chunk files,
// each frame printed as "npixels last_cut last_nabove" then its indices and its values, a line
// each, so the seed's package can be compared on last_cut and last_nabove, which the sparse
// output does not hold.
//   top_pixels_probe TYPE NI NJ MASKFILE CUT HOWMANY|none THRESHOLDS|default CHUNK...
// THRESHOLDS: a,b,c, or '' for the empty list.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "bslz4/bslz4.hpp"

using namespace bslz4;

namespace {

std::vector<std::uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCode::io, "cannot read " + path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class T>
void print_value(T v) {
    if constexpr (std::is_floating_point<T>::value) std::printf(" %.17g", static_cast<double>(v));
    else if constexpr (std::is_signed<T>::value) std::printf(" %lld", static_cast<long long>(v));
    else std::printf(" %llu", static_cast<unsigned long long>(v));
}

}  // namespace

int main(int argc, char** argv) try {
    if (argc < 9) {
        std::fputs("usage: top_pixels_probe TYPE NI NJ MASKFILE CUT HOWMANY|none THRESHOLDS|default CHUNK...\n", stderr);
        return 2;
    }
    const PixelType type = parse_pixel_type(argv[1]);
    const std::size_t ni = std::strtoull(argv[2], nullptr, 10), nj = std::strtoull(argv[3], nullptr, 10);
    const std::vector<std::uint8_t> mask = read_file(argv[4]);
    const double cut = std::strtod(argv[5], nullptr);
    std::optional<std::size_t> howmany;
    if (std::string(argv[6]) != "none") howmany = std::strtoull(argv[6], nullptr, 10);
    std::optional<std::vector<double>> thresholds;
    if (std::string(argv[7]) != "default") {
        thresholds.emplace();
        std::stringstream list(argv[7]);
        for (std::string item; std::getline(list, item, ',');) thresholds->push_back(std::strtod(item.c_str(), nullptr));
    }
    std::vector<std::vector<std::uint8_t>> chunks;
    for (int k = 8; k < argc; ++k) chunks.push_back(read_file(argv[k]));
    Chunk2Sparse c(mask, ni, nj, type);
    c.set_top_pixels(howmany, thresholds);
    const SparseBatch b = c.multi(std::vector<ByteView>(chunks.begin(), chunks.end()), cut);
    for (std::size_t f = 0; f < b.nframes; ++f) {
        const SparseFrame fr = b.frame(f);
        std::printf("%zu %.17g %zu\n", fr.npixels, fr.last_cut, fr.last_nabove);
        for (std::size_t k = 0; k < fr.npixels; ++k) std::printf(k ? " %u" : "%u", fr.indices[k]);
        std::printf("\n");
        visit_pixel_type(type, [&](auto zero) {
            using T = decltype(zero);
            const T* v = fr.values_as<T>();
            for (std::size_t k = 0; k < fr.npixels; ++k) print_value(v[k]);
        });
        std::printf("\n");
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "top_pixels_probe: %s\n", e.what());
    return 1;
}
