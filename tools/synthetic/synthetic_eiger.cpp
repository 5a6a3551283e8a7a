#include "synthetic/synthetic_eiger.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "bslz4/error.hpp"

namespace bslz4 {

namespace {

// Eiger2 modules: 512 rows x 1028 columns, 38 blank rows and 12 blank columns between them.
constexpr std::size_t kModuleRows = 512, kGapRows = 38;
constexpr std::size_t kModuleCols = 1028, kGapCols = 12;
constexpr int kSpotRadius = 3;

// The background mean is far + excess * exp(-r / 600) at r pixels from the beam centre. The
// dense profile is the generator's original data (0.1 to 1 counts), kept bit for bit so figures
// and tests made before profiles existed stay comparable.
struct ProfileShape {
    double far, excess;
    std::size_t spots;
};

ProfileShape shape_of(SyntheticProfile profile) {
    switch (profile) {
        case SyntheticProfile::dense: return {0.1, 0.9, 300};
        case SyntheticProfile::sparse: return {0.01, 0.03, 50};
        case SyntheticProfile::very_sparse: return {0.0003, 0.0012, 10};
    }
    throw Error(ErrorCode::bad_argument, "unknown synthetic profile");
}

bool in_gap(std::size_t i, std::size_t j) {
    return i % (kModuleRows + kGapRows) >= kModuleRows || j % (kModuleCols + kGapCols) >= kModuleCols;
}

// splitmix64: small, fast, and the same on every platform.
struct Random {
    std::uint64_t s;
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Poisson by multiplying uniforms (Knuth): fine for the small means of a background.
    std::uint32_t poisson(double exp_minus_lambda) {
        std::uint32_t k = 0;
        double p = uniform();
        while (p > exp_minus_lambda) {
            ++k;
            p *= uniform();
        }
        return k;
    }
};

template <class T>
void fill(std::vector<std::uint8_t>& out, const std::vector<double>& counts, std::size_t ni, std::size_t nj) {
    const double top = static_cast<double>(std::numeric_limits<T>::max());
    T* px = reinterpret_cast<T*>(out.data());
    for (std::size_t i = 0; i < ni; ++i)
        for (std::size_t j = 0; j < nj; ++j) {
            const std::size_t k = i * nj + j;
            if (in_gap(i, j))
                px[k] = std::numeric_limits<T>::max();
            else
                px[k] = static_cast<T>(std::min(counts[k], top - 1.0));
        }
}

}  // namespace

const char* synthetic_profile_name(SyntheticProfile profile) {
    switch (profile) {
        case SyntheticProfile::dense: return "dense";
        case SyntheticProfile::sparse: return "sparse";
        case SyntheticProfile::very_sparse: return "very-sparse";
    }
    throw Error(ErrorCode::bad_argument, "unknown synthetic profile");
}

std::vector<std::uint8_t> synthetic_eiger_frame(std::size_t ni, std::size_t nj, PixelType type, std::uint64_t index,
                                                SyntheticProfile profile, std::uint64_t seed) {
    const ProfileShape shape = shape_of(profile);
    Random rng{seed * 0x2545F4914F6CDD1DULL + index};
    std::vector<double> counts(ni * nj);
    const double ci = 0.5 * static_cast<double>(ni), cj = 0.5 * static_cast<double>(nj);
    // The background mean falls with the distance from the beam centre; its exp(-mean) is
    // tabulated by radius so the per-pixel work is one table look-up.
    const std::size_t nr = static_cast<std::size_t>(std::hypot(ci, cj)) + 2;
    std::vector<double> exp_minus_mean(nr);
    for (std::size_t r = 0; r < nr; ++r)
        exp_minus_mean[r] = std::exp(-(shape.far + shape.excess * std::exp(-static_cast<double>(r) / 600.0)));
    for (std::size_t i = 0; i < ni; ++i)
        for (std::size_t j = 0; j < nj; ++j) {
            const auto r = static_cast<std::size_t>(std::hypot(static_cast<double>(i) - ci, static_cast<double>(j) - cj));
            counts[i * nj + j] = rng.poisson(exp_minus_mean[r]);
        }
    // Bragg spots: small Gaussian blobs, peaks from tens to tens of thousands of counts.
    for (std::size_t s = 0; s < shape.spots; ++s) {
        const auto si = static_cast<long>(rng.next() % ni), sj = static_cast<long>(rng.next() % nj);
        const double peak = 20.0 * std::pow(2.0, 11.0 * rng.uniform());
        for (int di = -kSpotRadius; di <= kSpotRadius; ++di)
            for (int dj = -kSpotRadius; dj <= kSpotRadius; ++dj) {
                const long i = si + di, j = sj + dj;
                if (i < 0 || j < 0 || i >= static_cast<long>(ni) || j >= static_cast<long>(nj)) continue;
                counts[static_cast<std::size_t>(i) * nj + static_cast<std::size_t>(j)] +=
                    std::floor(peak * std::exp(-0.5 * (di * di + dj * dj)));
            }
    }
    std::vector<std::uint8_t> out(ni * nj * pixel_size(type));
    visit_pixel_type(type, [&](auto zero) { fill<decltype(zero)>(out, counts, ni, nj); });
    return out;
}

std::vector<std::uint8_t> synthetic_eiger_mask(std::size_t ni, std::size_t nj) {
    std::vector<std::uint8_t> mask(ni * nj);
    for (std::size_t i = 0; i < ni; ++i)
        for (std::size_t j = 0; j < nj; ++j) mask[i * nj + j] = in_gap(i, j) ? 0 : 1;
    return mask;
}

}  // namespace bslz4
