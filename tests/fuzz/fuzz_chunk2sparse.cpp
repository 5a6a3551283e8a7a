// Fuzzes Chunk2Sparse (operator(), multi, coo, from_frames) on small frames (up to 64 x 64) of
// every pixel type: each call throws bslz4::Error exactly when the chunk is not a valid frame of
// that shape (decode_chunk refuses it or it decodes to another size), and otherwise lists what
// a plain dense decode and threshold lists: the pixels whose mask byte is nonzero and whose
// value is above the cut (compared as exact numbers: long double holds every 64-bit integer and
// every double; NaN never passes), in ascending order.
//
// Input (12 bytes, then the chunk):
//   0: pixel type (mod 10, PixelType order)    1, 2: ni - 1, nj - 1 (mod 64)
//   3: bit 0 zstd; bits 1-2 mask: all used, none used, a sparse or a dense random mask
//      (its nonzero bytes are any value); bits 3-4 cut: the 8 bytes as a double, a small
//      integer or half-integer, a special value, or a pixel's own value (just above, at or
//      just below it); bit 5 also coo; bit 6 also multi (the chunk twice); bit 7 also
//      from_frames (the dense frame)
//   4-11: cut bytes and the mask's random seed
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "fuzz_report.hpp"
#include "reference_decoder.hpp"
#include "seed_corpus.hpp"

namespace {

using namespace bslz4;
using bslz4::fuzz::fail;

static_assert(std::numeric_limits<long double>::digits >= 64, "the oracle compares 64-bit integers as long double");

constexpr std::size_t kHeader = 12;
constexpr std::size_t kMaxSide = 64;

struct Listed {
    std::vector<std::uint8_t> values;
    std::vector<std::uint32_t> indices;
};

template <class T>
bool above(T v, double cut) {
    if constexpr (std::is_floating_point<T>::value) return static_cast<double>(v) > cut;
    else return static_cast<long double>(v) > static_cast<long double>(cut);
}

Listed plain_threshold(PixelType type, const std::vector<std::uint8_t>& frame, const std::vector<std::uint8_t>& mask,
                       double cut) {
    Listed out;
    visit_pixel_type(type, [&](auto zero) {
        using T = decltype(zero);
        for (std::size_t i = 0; i < mask.size(); ++i) {
            T v;
            std::memcpy(&v, frame.data() + i * sizeof(T), sizeof(T));
            if (mask[i] && above(v, cut)) {
                out.values.insert(out.values.end(), frame.data() + i * sizeof(T), frame.data() + (i + 1) * sizeof(T));
                out.indices.push_back(static_cast<std::uint32_t>(i));
            }
        }
    });
    return out;
}

std::uint64_t load_le64(const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

std::vector<std::uint8_t> make_mask(unsigned mode, std::size_t npix, std::uint32_t seed) {
    std::vector<std::uint8_t> mask(npix, mode == 1 ? 0 : 1);
    if (mode < 2) return mask;
    std::uint32_t x = seed | 1;
    for (auto& m : mask) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        const bool use = mode == 2 ? x % 8 == 0 : x % 8 != 0;
        m = use ? static_cast<std::uint8_t>(1 + (x >> 8) % 255) : 0;
    }
    return mask;
}

double pixel_as_double(PixelType type, const std::uint8_t* p) {
    return visit_pixel_type(type, [&](auto zero) {
        using T = decltype(zero);
        T v;
        std::memcpy(&v, p, sizeof(T));
        return static_cast<double>(v);
    });
}

double choose_cut(unsigned mode, const std::uint8_t* b, PixelType type, const std::vector<std::uint8_t>* frame) {
    static const double special[] = {std::nan(""), INFINITY, -INFINITY, 0.0, -0.0, 18446744073709551616.0,
                                     9223372036854775808.0, -9223372036854775808.0, 4294967295.0, 2147483647.5,
                                     65535.0, 32767.5, -32768.5, 255.5, -128.0, 3.4028234663852886e38,
                                     -3.4028234663852886e38, 1.401298464324817e-45, 4.9e-324, 1e300};
    switch (mode) {
        case 0: {
            double d;
            const std::uint64_t bits = load_le64(b);
            std::memcpy(&d, &bits, sizeof d);
            return d;
        }
        case 1: return static_cast<std::int8_t>(b[0]) + (b[1] & 1 ? 0.5 : 0.0);
        case 2: return special[b[0] % (sizeof special / sizeof special[0])];
        default: break;
    }
    if (!frame || frame->empty()) return 0;
    const std::size_t bpp = pixel_size(type);
    const std::size_t npix = frame->size() / bpp;
    const std::size_t at = (b[0] | (std::size_t{b[1]} << 8)) % npix;
    const double v = pixel_as_double(type, frame->data() + at * bpp);
    if (b[2] % 3 == 0) return std::nextafter(v, -INFINITY);
    if (b[2] % 3 == 1) return std::nextafter(v, INFINITY);
    return v;
}

void check_listed(const std::string& what, const SparseFrame& got, const Listed& want) {
    if (got.npixels != want.indices.size())
        fail(what + ": " + std::to_string(got.npixels) + " pixels listed, " + std::to_string(want.indices.size()) +
             " expected");
    if (got.npixels == 0) return;
    if (!std::equal(want.indices.begin(), want.indices.end(), got.indices)) fail(what + ": indices differ");
    if (std::memcmp(want.values.data(), got.values, want.values.size()) != 0) fail(what + ": values differ");
}

std::vector<std::vector<std::uint8_t>> make_seeds() {
    std::vector<std::vector<std::uint8_t>> seeds;
    for (const auto& c : fuzz::seed_chunks()) {
        if (!c.type) continue;
        std::size_t ni = c.ni, nj = c.nj;
        const std::size_t npix = ni * nj;
        if (ni > kMaxSide || nj > kMaxSide) {  // the same pixels in a frame that fits
            ni = 0;
            for (std::size_t a = kMaxSide; a >= 1 && !ni; --a)
                if (npix % a == 0 && npix / a <= kMaxSide) ni = a;
            if (!ni) continue;
            nj = npix / ni;
        }
        for (std::uint8_t flags : {std::uint8_t(0x0A), std::uint8_t(0xFC)}) {
            std::vector<std::uint8_t> s{static_cast<std::uint8_t>(*c.type), static_cast<std::uint8_t>(ni - 1),
                                        static_cast<std::uint8_t>(nj - 1),
                                        static_cast<std::uint8_t>(flags | (c.codec == Codec::zstd ? 1 : 0)),
                                        10, 0, 1, 7, 3, 2, 1, 0};
            s.insert(s.end(), c.bytes.begin(), c.bytes.end());
            seeds.push_back(std::move(s));
        }
    }
    return seeds;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::write_seeds_if_asked(make_seeds);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < kHeader) return 0;
    const PixelType type = static_cast<PixelType>(data[0] % 10);
    const std::size_t ni = data[1] % kMaxSide + 1, nj = data[2] % kMaxSide + 1, npix = ni * nj;
    const std::uint8_t flags = data[3];
    const Codec codec = flags & 1 ? Codec::zstd : Codec::lz4;
    const std::size_t bpp = pixel_size(type);
    const ByteView chunk(data + kHeader, size - kHeader);
    const std::string where = std::string(pixel_type_name(type)) + " " + std::to_string(ni) + " x " + std::to_string(nj) +
                              ", " + codec_name(codec) + ", " + std::to_string(chunk.size) + "-byte chunk";

    // The dense frame, when the chunk is one of this shape (a chunk whose header gives another
    // size is not decoded here: Chunk2Sparse must refuse it whatever its blocks hold).
    std::vector<std::uint8_t> frame;
    bool valid = false;
    if (chunk.size >= kChunkHeaderBytes && fuzz::read_be(chunk.data, 8) == npix * bpp) {
        try {
            frame = decode_chunk(chunk, bpp, codec);
            valid = true;
        } catch (const Error&) {
        }
    }
    const std::uint32_t seed = data[8] | (data[9] << 8) | (data[10] << 16) | (std::uint32_t{data[11]} << 24);
    const auto mask = make_mask((flags >> 1) & 3u, npix, seed);
    const double cut = choose_cut((flags >> 3) & 3u, data + 4, type, valid ? &frame : nullptr);
    const Listed want = valid ? plain_threshold(type, frame, mask, cut) : Listed{};

    // operator() on every CPU path this machine runs (BSLZ4_CPU_PATH is read when a decoder is
    // made), the last the best, which the calls after it use.
    const std::vector<CpuPath> paths = usable_cpu_paths();
    for (CpuPath path : paths) {
        ::setenv("BSLZ4_CPU_PATH", cpu_path_name(path), 1);
        Chunk2Sparse on_path(mask, ni, nj, type, {codec, 1});
        const std::string at = where + ", " + cpu_path_name(path) + " path";
        try {
            const SparseFrame f = on_path(chunk, cut);
            if (!valid) fail(at + ": operator() accepted what is not a valid frame of this shape");
            check_listed(at + ", operator()", f, want);
        } catch (const Error& e) {
            if (valid) fail(at + ": operator() refused a valid frame: " + e.what());
        }
    }
    if (!valid) return 0;
    Chunk2Sparse sparse(mask, ni, nj, type, {codec, 1});
    if (flags & 0x20) {
        const CooFrame c = sparse.coo(chunk, cut);
        if (c.npixels != want.indices.size()) fail(where + ": coo lists another number of pixels");
        for (std::size_t k = 0; k < c.npixels; ++k)
            if (c.row[k] != want.indices[k] / nj || c.col[k] != want.indices[k] % nj) fail(where + ": coo row or col differs");
        if (c.value_bytes != want.values) fail(where + ": coo values differ");
    }
    if (flags & 0x40) {
        const SparseBatch b = sparse.multi({chunk, chunk}, cut);
        if (b.nframes != 2) fail(where + ": multi of 2 chunks gives " + std::to_string(b.nframes) + " frames");
        check_listed(where + ", multi frame 0", b.frame(0), want);
        check_listed(where + ", multi frame 1", b.frame(1), want);
    }
    if (flags & 0x80) {
        const SparseBatch b = sparse.from_frames({ByteView(frame)}, cut);
        check_listed(where + ", from_frames", b.frame(0), want);
    }
    return 0;
}
