#include "bslz4/integration_matrix.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "bslz4/error.hpp"
#include "integrator_checks.hpp"
#include "matrix_passes.hpp"

namespace bslz4 {

namespace {

std::string str(std::uint64_t v) { return std::to_string(v); }

// Reads entry k of an int32 or uint32 array as a non-negative value; -1 for a negative one.
std::int64_t index_at(const void* p, IndexType t, std::size_t k) {
    if (t == IndexType::i32) return static_cast<const std::int32_t*>(p)[k] < 0 ? -1 : static_cast<const std::int32_t*>(p)[k];
    return static_cast<const std::uint32_t*>(p)[k];
}

// Checks the input as normalise_matrix says; throws Error naming the fault.
void check_input(const MatrixInput& in) {
    const bool csc = in.layout == MatrixLayout::csc;
    const std::size_t major = csc ? in.pixels : in.bins;  // what indptr walks
    const std::size_t minor = csc ? in.bins : in.pixels;  // what indices name
    const char* major_name = csc ? "pixels" : "bins";
    const char* minor_name = csc ? "bins" : "pixels";
    if (in.bins == 0 || in.pixels == 0)
        throw Error(ErrorCode::bad_matrix, "matrix shape " + str(in.bins) + " x " + str(in.pixels) + " is empty");
    // bins too: row_start has bins + 1 entries, which wraps to none for a bins of SIZE_MAX.
    if (in.bins > 0xFFFFFFFFull || in.pixels > 0xFFFFFFFFull || in.data_size > 0xFFFFFFFFull)
        throw Error(ErrorCode::bad_matrix, "matrix of " + str(in.bins) + " bins x " + str(in.pixels) + " pixels, " +
                                               str(in.data_size) + " weights: too large for 32-bit indices");
    if (in.indptr_size != major + 1) {
        // Name the layout and shape given: a file's layout may have been guessed from this very
        // length, so say when it is the other layout's.
        std::string why = std::string(csc ? "csc" : "csr") + " matrix of " + str(in.bins) + " bins x " + str(in.pixels) +
                          " pixels: indptr has " + str(in.indptr_size) + " entries, " + major_name + " + 1 = " +
                          str(major + 1) + " expected (one per " + (csc ? "pixel" : "bin") + ", and the end)";
        if (in.indptr_size == minor + 1)
            why += "; " + str(in.indptr_size) + " = " + minor_name + " + 1 is a " + (csc ? "csr" : "csc") + " matrix's indptr";
        throw Error(ErrorCode::bad_matrix, why);
    }
    if (in.indices_size != in.data_size)
        throw Error(ErrorCode::bad_matrix,
                    "matrix has " + str(in.data_size) + " weights but " + str(in.indices_size) + " indices");
    if ((in.data_size && (!in.data || !in.indices)) || !in.indptr)
        throw Error(ErrorCode::bad_matrix, "matrix array missing (null pointer)");
    if (index_at(in.indptr, in.index_type, 0) != 0) throw Error(ErrorCode::bad_matrix, "matrix indptr[0] is not 0");
    for (std::size_t m = 0; m < major; ++m) {
        const std::int64_t a = index_at(in.indptr, in.index_type, m), b = index_at(in.indptr, in.index_type, m + 1);
        if (b < a) throw Error(ErrorCode::bad_matrix, "matrix indptr decreases at entry " + str(m + 1));
    }
    if (static_cast<std::size_t>(index_at(in.indptr, in.index_type, major)) != in.data_size)
        throw Error(ErrorCode::bad_matrix,
                    "matrix indptr ends at " +
                        str(static_cast<std::uint64_t>(index_at(in.indptr, in.index_type, major))) + ", not at the " +
                        str(in.data_size) + " weights");
    for (std::size_t k = 0; k < in.data_size; ++k) {
        const std::int64_t i = index_at(in.indices, in.index_type, k);
        if (i < 0 || static_cast<std::size_t>(i) >= minor)
            throw Error(ErrorCode::bad_matrix, "matrix index " + std::to_string(i) + " at entry " + str(k) +
                                                   " is outside 0.." + str(minor - 1) + " (" + minor_name + ")");
    }
}

// The canonical form of a checked input, in arrays of its own.
IntegrationMatrix canonical_copy(const MatrixInput& in) {
    const bool csc = in.layout == MatrixLayout::csc;
    const std::size_t major = csc ? in.pixels : in.bins;
    // Each bin's entries in pixel order, a duplicate (bin, pixel) entry a term of its own in the
    // order given, so each weight is multiplied in float64 as scipy does (merged into one
    // float32 weight, the pair would be rounded): the order of a stable sort by (bin, pixel).
    IntegrationMatrix out;
    out.bins = in.bins;
    out.pixels = in.pixels;
    out.row_start.assign(in.bins + 1, 0);
    out.pixel.resize(in.data_size);
    out.weight.resize(in.data_size);
    if (csc) {
        // A counting sort by bin: the columns are walked in pixel order, so each bin's entries
        // arrive in pixel order, duplicates in the order given.
        for (std::size_t k = 0; k < in.data_size; ++k) ++out.row_start[static_cast<std::size_t>(index_at(in.indices, in.index_type, k)) + 1];
        std::partial_sum(out.row_start.begin(), out.row_start.end(), out.row_start.begin());
        std::vector<std::uint32_t> next(out.row_start.begin(), out.row_start.end() - 1);
        for (std::size_t m = 0; m < major; ++m)
            for (auto k = index_at(in.indptr, in.index_type, m); k < index_at(in.indptr, in.index_type, m + 1); ++k) {
                const auto b = static_cast<std::size_t>(index_at(in.indices, in.index_type, static_cast<std::size_t>(k)));
                const std::uint32_t at = next[b]++;
                out.pixel[at] = static_cast<std::uint32_t>(m);
                out.weight[at] = in.data[k];
            }
        return out;
    }
    // CSR: the rows are the bins already; a row whose pixels are not in order is sorted stably.
    struct Entry {
        std::uint32_t pixel;
        float w;
    };
    std::vector<Entry> row;
    for (std::size_t b = 0; b < major; ++b) {
        const auto k0 = static_cast<std::size_t>(index_at(in.indptr, in.index_type, b));
        const auto k1 = static_cast<std::size_t>(index_at(in.indptr, in.index_type, b + 1));
        out.row_start[b + 1] = static_cast<std::uint32_t>(k1);
        bool ordered = true;
        for (std::size_t k = k0; k < k1; ++k) {
            out.pixel[k] = static_cast<std::uint32_t>(index_at(in.indices, in.index_type, k));
            out.weight[k] = in.data[k];
            ordered = ordered && (k == k0 || out.pixel[k - 1] <= out.pixel[k]);
        }
        if (ordered) continue;
        row.clear();
        for (std::size_t k = k0; k < k1; ++k) row.push_back({out.pixel[k], out.weight[k]});
        std::stable_sort(row.begin(), row.end(), [](const Entry& x, const Entry& y) { return x.pixel < y.pixel; });
        for (std::size_t k = k0; k < k1; ++k) {
            out.pixel[k] = row[k - k0].pixel;
            out.weight[k] = row[k - k0].w;
        }
    }
    return out;
}

}  // namespace

IntegrationMatrix normalise_matrix(const MatrixInput& in) {
    check_input(in);
    return canonical_copy(in);
}

IntegrationMatrix normalise_matrix(std::size_t bins, std::size_t pixels, std::vector<float> data, std::vector<std::uint32_t> indices,
                                   const std::vector<std::uint32_t>& indptr) {
    // The int32 values as stored, read through their signed type (which may alias the unsigned
    // one), so a negative index is named as the other overload names it.
    const MatrixInput in{MatrixLayout::csr, bins, pixels, data.data(), data.size(), IndexType::i32, indices.data(), indices.size(),
                         indptr.data(), indptr.size()};
    check_input(in);
    for (std::size_t b = 0; b < bins; ++b)
        for (std::uint64_t k = std::uint64_t{indptr[b]} + 1; k < indptr[b + 1]; ++k)
            if (indices[k - 1] > indices[k]) return canonical_copy(in);  // sorted there, stably
    IntegrationMatrix out;
    out.bins = bins;
    out.pixels = pixels;
    out.row_start = indptr;
    out.pixel = std::move(indices);
    out.weight = std::move(data);
    return out;
}

IntegrationMatrix fold_mask(const IntegrationMatrix& m, ByteView mask) {
    if (mask.size != m.pixels)
        throw Error(ErrorCode::bad_argument, "mask has " + str(mask.size) + " pixels, the matrix " + str(m.pixels));
    detail::check_matrix_form(m);  // walked by its row starts and pixel indices below
    IntegrationMatrix out;
    out.bins = m.bins;
    out.pixels = m.pixels;
    out.powder_scale = m.powder_scale;
    out.row_start.assign(m.bins + 1, 0);
    // Counted first, so the arrays are sized once (an Eiger 4M matrix: 9 M entries); each range
    // of bins is counted, then copied to where the ranges before it end, on a thread of its own.
    const std::vector<detail::BinRange> ranges = detail::entry_balanced_ranges(m.row_start);
    std::vector<std::size_t> kept(ranges.size() + 1, 0);
    detail::run_parts(ranges.size(), [&](std::size_t p) {
        std::size_t n = 0;
        for (std::uint32_t k = m.row_start[ranges[p].first]; k < m.row_start[ranges[p].end]; ++k) n += mask.data[m.pixel[k]] != 0;
        kept[p + 1] = n;
    });
    std::partial_sum(kept.begin(), kept.end(), kept.begin());
    detail::size_for_overwrite(out.pixel, kept.back());
    detail::size_for_overwrite(out.weight, kept.back());
    if (m.fixed_point()) detail::size_for_overwrite(out.fixed_weight, kept.back());
    detail::run_parts(ranges.size(), [&](std::size_t p) {
        std::size_t at = kept[p];
        for (std::size_t b = ranges[p].first; b < ranges[p].end; ++b) {
            for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k) {
                if (!mask.data[m.pixel[k]]) continue;
                out.pixel[at] = m.pixel[k];
                out.weight[at] = m.weight[k];
                if (m.fixed_point()) out.fixed_weight[at] = m.fixed_weight[k];
                ++at;
            }
            out.row_start[b + 1] = static_cast<std::uint32_t>(at);
        }
    });
    return out;
}

}  // namespace bslz4
