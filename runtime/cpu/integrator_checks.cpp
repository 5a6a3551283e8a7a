#include "integrator_checks.hpp"

#include <limits>
#include <string>
#include <type_traits>

#include "bslz4/error.hpp"
#include "matrix_passes.hpp"

namespace bslz4::detail {

namespace {

// The largest |value| a pixel of integer type T takes: max for unsigned, -min for signed.
template <class T>
std::uint64_t largest_magnitude() {
    if constexpr (std::is_signed<T>::value)
        return static_cast<std::uint64_t>(-(std::numeric_limits<T>::min() + 1)) + 1;
    else
        return std::numeric_limits<T>::max();
}

}  // namespace

void check_matrix_form(const IntegrationMatrix& m) {
    const std::size_t nnz = m.pixel.size();
    bool ok = m.row_start.size() == m.bins + 1 && m.weight.size() == nnz &&
              (!m.fixed_point() || m.fixed_weight.size() == nnz) && m.row_start.front() == 0 && m.row_start.back() == nnz;
    for (std::size_t b = 0; ok && b < m.bins; ++b) ok = m.row_start[b] <= m.row_start[b + 1];
    // The pixels on several threads: an Eiger 4M matrix has 9 M, checked on a job's way to its
    // first batch.
    ok = ok && !any_entry(nnz, [&](std::size_t k) { return m.pixel[k] >= m.pixels; });
    if (!ok) throw Error(ErrorCode::bad_matrix, "matrix is not in normalise_matrix's form");
}

bool has_fixed_point_sums(PixelType type) {
    return visit_pixel_type(type, [](auto zero) {
        using T = decltype(zero);
        return std::is_integral<T>::value && sizeof(T) <= 4;
    });
}

std::uint64_t fixed_weight_sum_limit(PixelType type) {
    return visit_pixel_type(type, [&](auto zero) -> std::uint64_t {
        using T = decltype(zero);
        if constexpr (std::is_floating_point<T>::value) {
            throw Error(ErrorCode::bad_argument,
                        std::string("acc i64 needs integer pixels, not ") + pixel_type_name(type));
        } else {
            if (sizeof(T) == 8)
                throw Error(ErrorCode::bad_argument,
                            std::string("acc i64 cannot sum ") + pixel_type_name(type) +
                                " pixels exactly: a pixel can reach " + (std::is_signed<T>::value ? "-" : "") +
                                std::to_string(largest_magnitude<T>()) +
                                ", so one pixel times a fixed-point weight can pass int64; use acc f64");
            return static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / largest_magnitude<T>();
        }
    });
}

HeaviestBin heaviest_fixed_bin(const IntegrationMatrix& m) {
    HeaviestBin heaviest;
    for (std::size_t b = 0; b < m.bins; ++b) {
        // Up to 2^32 weights of up to 2^63 each can pass 64 bits: the sum saturates.
        std::uint64_t sum = 0;
        for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k) {
            const std::int64_t w = m.fixed_weight[k];
            const std::uint64_t size = w < 0 ? 0 - static_cast<std::uint64_t>(w) : static_cast<std::uint64_t>(w);
            sum = size > UINT64_MAX - sum ? UINT64_MAX : sum + size;
        }
        if (sum > heaviest.weight_sum) heaviest = {b, sum};
    }
    return heaviest;
}

void check_integrator(const IntegrationMatrix& matrix, std::size_t ni, std::size_t nj, PixelType type, Accumulator acc) {
    if (matrix.pixels != ni * nj)
        throw Error(ErrorCode::bad_matrix, "matrix has " + std::to_string(matrix.pixels) + " pixels, the frame " +
                                               std::to_string(ni) + " x " + std::to_string(nj) + " has " +
                                               std::to_string(ni * nj));
    check_matrix_form(matrix);
    if (acc == Accumulator::i64 && !matrix.fixed_point())
        throw Error(ErrorCode::bad_matrix, "acc i64 sums a fixed_point_matrix; this matrix has float weights");
    if (acc != Accumulator::i64 && matrix.fixed_point())
        throw Error(ErrorCode::bad_matrix,
                    std::string("a fixed_point_matrix is summed with acc i64, not ") + accumulator_name(acc));
    if (acc == Accumulator::i64) {
        // Every partial sum of a bin (in any order, as the GPU's tree takes them) is bounded by
        // the bin's sum of |weight| x |pixel|, so this bound keeps every sum exact.
        const std::uint64_t limit = fixed_weight_sum_limit(type);
        const HeaviestBin heaviest = heaviest_fixed_bin(matrix);
        if (heaviest.weight_sum > limit)
            throw Error(ErrorCode::bad_matrix,
                        "this fixed-point matrix can overflow int64 with " + std::string(pixel_type_name(type)) +
                            " pixels: bin " + std::to_string(heaviest.bin) + "'s fixed weights sum to " +
                            std::to_string(heaviest.weight_sum) + ", more than the " + std::to_string(limit) +
                            " such pixels allow; make it with fixed_point_matrix(matrix, PixelType::" +
                            pixel_type_name(type) + ")");
    }
}

}  // namespace bslz4::detail
