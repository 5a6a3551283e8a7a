// Fuzzes normalise_matrix and Chunk2SparseCSC (acc f64 and f32 on the matrix, i64 on its
// fixed_point_matrix) with small matrices and frames built from the input. A bslz4::Error
// anywhere is a fine answer; a crash, undefined behaviour (signed overflow of an i64 powder
// included) or a leak is not. Of the values, only the i64 powders are checked (they must be the
// exact integer sums the accumulator promises); float sums depend on rounding order.
//
// Input (8 bytes, then a stream read byte by byte, zeros once it runs out):
//   0: bits 0-1 accumulator (f64, f32, i64, i64); bit 2 CSC (else CSR); bit 3 uint32 indices
//      (else int32); bits 4-5 matrix: random sparse, dense (every pixel in one bin with one
//      weight), raw arrays (indptr and indices as stream integers, mostly invalid), sparse;
//      bits 6-7 weights: from a table of extremes, raw float bits, one repeated table value,
//      table
//   1: pixel type (mod 10)     2, 3: ni - 1, nj - 1 (mod 32)     4: bins - 1 (mod 16)
//   5: bits 0-1 pixels: stream bytes, all the type's maximum, all its lowest, stream bytes;
//      bit 2 also through a chunk (encode_chunk, operator()); bit 3 also multi of 2 chunks;
//      bits 4-5 mask: all used, stream bytes, none used, all used
//   6: the cut (int8)          7: reserved
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "fuzz_report.hpp"
#include "seed_corpus.hpp"

namespace {

using namespace bslz4;

constexpr std::size_t kHeader = 8;
constexpr std::size_t kMaxSide = 32;
constexpr std::size_t kMaxBins = 16;

class Stream {
public:
    Stream(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
    std::uint8_t byte() { return at_ < n_ ? p_[at_++] : 0; }
    std::uint32_t u32() {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= std::uint32_t{byte()} << (8 * i);
        return v;
    }

private:
    const std::uint8_t* p_;
    std::size_t n_, at_ = 0;
};

float table_weight(std::uint8_t b) {
    static const float table[] = {0.0f, 1.0f, -1.0f, 0.5f, 0.25f, 1e-30f, 1e30f, FLT_MAX, -FLT_MAX, FLT_MIN,
                                  1.4e-45f, INFINITY, NAN, 3.0f, 1.0f / 3.0f, 65536.0f, 0.999f, 8388607.0f};
    return table[b % (sizeof table / sizeof table[0])];
}

float weight(unsigned mode, Stream& s, float repeated) {
    switch (mode) {
        case 1: {
            const std::uint32_t bits = s.u32();
            float w;
            std::memcpy(&w, &bits, sizeof w);
            return w;
        }
        case 2: return repeated;
        default: return table_weight(s.byte());
    }
}

struct Matrix {
    std::vector<std::uint32_t> indptr, indices;  // stored as int32 or uint32 bit patterns
    std::vector<float> data;
};

Matrix build_matrix(unsigned mode, unsigned weight_mode, std::size_t major, std::size_t minor, bool csc,
                    std::size_t bins, std::size_t pixels, Stream& s) {
    Matrix m;
    const float repeated = table_weight(s.byte());
    if (mode == 2) {  // raw: whatever the stream says
        const std::size_t entries = s.byte();
        m.indptr.resize(major + s.byte() % 3);  // major + 1 is the right length
        for (auto& v : m.indptr) v = s.byte() & 0x80 ? s.u32() : s.byte() % (entries + 2);
        m.indices.resize(entries);
        for (auto& v : m.indices) v = s.byte() & 0x80 ? s.u32() : s.byte() % (minor + 1);
        m.data.resize(entries);
        for (auto& w : m.data) w = weight(weight_mode, s, repeated);
        return m;
    }
    m.indptr.push_back(0);
    for (std::size_t k = 0; k < major; ++k) {
        if (mode == 1) {  // dense: pixel p in bin p * bins / pixels
            if (csc) m.indices.push_back(static_cast<std::uint32_t>(k * bins / pixels));
            else
                for (std::size_t p = 0; p < pixels; ++p)
                    if (p * bins / pixels == k) m.indices.push_back(static_cast<std::uint32_t>(p));
        } else {
            const unsigned count = s.byte() % 4;
            for (unsigned c = 0; c < count; ++c) m.indices.push_back(s.byte() % minor);
        }
        m.indptr.push_back(static_cast<std::uint32_t>(m.indices.size()));
    }
    m.data.resize(m.indices.size());
    for (auto& w : m.data) w = weight(weight_mode, s, repeated);
    return m;
}

std::vector<std::uint8_t> make_frame(unsigned mode, PixelType type, std::size_t npix, Stream& s) {
    const std::size_t bpp = pixel_size(type);
    std::vector<std::uint8_t> f(npix * bpp);
    visit_pixel_type(type, [&](auto zero) {
        using T = decltype(zero);
        for (std::size_t i = 0; i < npix; ++i) {
            T v;
            if (mode == 1) v = std::numeric_limits<T>::max();
            else if (mode == 2) v = std::numeric_limits<T>::lowest();
            else {
                std::uint8_t b[sizeof(T)];
                for (auto& x : b) x = s.byte();
                std::memcpy(&v, b, sizeof(T));
            }
            std::memcpy(f.data() + i * bpp, &v, bpp);
        }
    });
    return f;
}

// acc i64 promises the exact integer sum of fixed weight x pixel over the pixels the mask
// allows (fixed_point_matrix chooses its scale so that no bin can overflow).
void check_exact(const IntegrationMatrix& m, const std::vector<std::uint8_t>& mask, PixelType type,
                 const std::vector<std::uint8_t>& frame, const std::int64_t* powder) {
    visit_pixel_type(type, [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_integral<T>::value) {
            for (std::size_t b = 0; b < m.bins; ++b) {
                __int128 sum = 0;
                for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k) {
                    if (!mask[m.pixel[k]]) continue;
                    T v;
                    std::memcpy(&v, frame.data() + std::size_t{m.pixel[k]} * sizeof(T), sizeof(T));
                    sum += static_cast<__int128>(m.fixed_weight[k]) * static_cast<__int128>(v);
                }
                if (sum != powder[b])
                    bslz4::fuzz::fail(std::string("acc i64 ") + pixel_type_name(type) + ": bin " + std::to_string(b) +
                                      " is " + std::to_string(powder[b]) + ", the exact sum is not that" +
                                      (sum > INT64_MAX || sum < INT64_MIN ? " (and does not fit int64)" : ""));
            }
        }
    });
}

std::vector<std::vector<std::uint8_t>> make_seeds() {
    std::vector<std::vector<std::uint8_t>> seeds;
    const std::uint8_t heads[][8] = {
        {0x00, 1, 7, 9, 3, 0x00, 10, 0}, {0x01, 6, 4, 4, 7, 0x14, 0, 0}, {0x02, 2, 31, 31, 15, 0x05, 0, 0},
        {0x16, 3, 5, 5, 2, 0x0D, 5, 0},  {0x1A, 7, 31, 7, 0, 0x21, 0, 0}, {0x22, 0, 3, 3, 1, 0x00, 0, 0},
        {0x4E, 9, 2, 2, 4, 0x04, 1, 0},  {0x92, 2, 15, 15, 15, 0x01, 0, 0},
    };
    std::uint32_t x = 12345;
    for (const auto& h : heads) {
        std::vector<std::uint8_t> s(h, h + 8);
        for (int k = 0; k < 600; ++k) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            s.push_back(static_cast<std::uint8_t>(x));
        }
        seeds.push_back(std::move(s));
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
    const std::uint8_t h0 = data[0];
    static const Accumulator accs[] = {Accumulator::f64, Accumulator::f32, Accumulator::i64, Accumulator::i64};
    const Accumulator acc = accs[h0 & 3u];
    const bool csc = h0 & 4u;
    const IndexType index_type = h0 & 8u ? IndexType::u32 : IndexType::i32;
    const unsigned matrix_mode = (h0 >> 4) & 3u, weight_mode = (h0 >> 6) & 3u;
    const PixelType type = static_cast<PixelType>(data[1] % 10);
    const std::size_t ni = data[2] % kMaxSide + 1, nj = data[3] % kMaxSide + 1, npix = ni * nj;
    const std::size_t bins = data[4] % kMaxBins + 1;
    const std::uint8_t frame_flags = data[5];
    const double cut = static_cast<std::int8_t>(data[6]);
    Stream s(data + kHeader, size - kHeader);

    const std::size_t major = csc ? npix : bins, minor = csc ? bins : npix;
    const Matrix raw = build_matrix(matrix_mode, weight_mode, major, minor, csc, bins, npix, s);
    const MatrixInput in{csc ? MatrixLayout::csc : MatrixLayout::csr,
                         bins,
                         npix,
                         raw.data.data(),
                         raw.data.size(),
                         index_type,
                         raw.indices.data(),
                         raw.indices.size(),
                         raw.indptr.data(),
                         raw.indptr.size()};
    std::vector<std::uint8_t> mask(npix, 1);
    const unsigned mask_mode = (frame_flags >> 4) & 3u;
    if (mask_mode == 1)
        for (auto& m : mask) m = s.byte();
    if (mask_mode == 2) std::fill(mask.begin(), mask.end(), 0);
    const auto frame = make_frame(frame_flags & 3u, type, npix, s);
    const auto frame2 = make_frame(0, type, npix, s);

    try {
        IntegrationMatrix m = normalise_matrix(in);
        if (acc == Accumulator::i64) m = fixed_point_matrix(m, type);
        Chunk2SparseCSC csc_obj(mask, ni, nj, type, m, acc, {Codec::lz4, 1});
        IntegratedBatch b = csc_obj.from_frames({ByteView(frame), ByteView(frame2)}, cut);
        (void)b.powder.value(1, bins - 1);
        if (acc == Accumulator::i64) {
            check_exact(m, mask, type, frame, b.powder.as<std::int64_t>());
            check_exact(m, mask, type, frame2, b.powder.as<std::int64_t>() + bins);
        }
        if (frame_flags & 4u) {
            const auto chunk = encode_chunk(frame, pixel_size(type));
            IntegratedFrame f = csc_obj(chunk, cut);
            (void)f.powder.value(0, 0);
            if (frame_flags & 8u) {
                const auto chunk2 = encode_chunk(frame2, pixel_size(type), {Codec::zstd, 0, 1});
                csc_obj = Chunk2SparseCSC(mask, ni, nj, type, m, acc, {Codec::zstd, 1});
                b = csc_obj.multi({ByteView(chunk2), ByteView(chunk2)}, cut);
            }
        }
    } catch (const Error&) {
    }
    return 0;
}
