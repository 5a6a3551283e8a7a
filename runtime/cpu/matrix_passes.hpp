// A pass over a matrix's entries on several threads, a range of bins each. An Eiger 4M matrix
// has 9 M entries, and a job's first GPU object (the others wait for it) folds the mask into
// it, hashes it and checks it before its first batch: on one thread the fold alone took
// 0.1-0.2 s on the H200 host, more than the scan's first batches take to read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/integration_matrix.hpp"

namespace bslz4::detail {

struct BinRange {
    std::size_t first, end;  // bins [first, end)
};

// How many threads a pass over `entries` entries takes: as many as pay for a thread each on
// this machine, one for a small matrix.
std::size_t entry_parts(std::size_t entries);

// Bin ranges of about equal numbers of entries, as many as pay for a thread each on this
// machine (one for a small matrix); they cover every bin in order.
// row_start: a matrix's, in normalise_matrix's form (check_matrix_form).
std::vector<BinRange> entry_balanced_ranges(const std::vector<std::uint32_t>& row_start);

// part(k) for every k < parts, on as many threads; returns once all have run, rethrowing the
// lowest failing part's exception.
void run_parts(std::size_t parts, const std::function<void(std::size_t)>& part);

// f(part, first, end) over entry_parts(n) ranges [first, end) that split [0, n), a thread each.
template <class F>
void over_entry_ranges(std::size_t n, F f) {
    const std::size_t parts = entry_parts(n);
    run_parts(parts, [&](std::size_t p) { f(p, n * p / parts, n * (p + 1) / parts); });
}

// Whether pred(k) holds for some k < n (each thread stops at its first).
template <class Pred>
bool any_entry(std::size_t n, Pred pred) {
    std::vector<char> found(entry_parts(n), 0);
    over_entry_ranges(n, [&](std::size_t p, std::size_t first, std::size_t end) {
        for (std::size_t k = first; k < end && !found[p]; ++k) found[p] = pred(k);
    });
    for (char f : found)
        if (f) return true;
    return false;
}

// v.resize(n) for a vector about to be overwritten whole by run_parts: the pages of a fresh
// 36 MB array are first faulted in on several threads (on one, they took most of a fold's time,
// more so in a virtual machine), then zeroed in place.
void populate_bytes(void* at, std::size_t bytes);
template <class T>
void size_for_overwrite(std::vector<T>& v, std::size_t n) {
    if (n > v.capacity()) {
        v.reserve(n);
        populate_bytes(v.data(), n * sizeof(T));
    }
    v.resize(n);
}

// Whether `mask` (nonzero = use; one byte a pixel, as many as the matrix's) drops any entry of
// `m` (checked: check_matrix_form): where none, fold_mask would only copy it.
bool masks_entries(const IntegrationMatrix& m, ByteView mask);

}  // namespace bslz4::detail
