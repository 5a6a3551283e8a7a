#include "peak_table.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "bslz4/cpu_count.hpp"

namespace bslz4::tool::peaks {

namespace {

struct RowSlot {
    LabelledScan scan;
    std::vector<PeakEdge> edges;  // within the row, and with the row before
    std::uint64_t pairs_ii = 0, pairs_ij = 0;
    bool labelled = false;
    bool labels_given = false;
    unsigned neighbours_paired = 0;  // of the rows before and after it (those that exist)
};

std::uint64_t find(std::vector<std::uint64_t>& parent, std::uint64_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

}  // namespace

std::int64_t group_peaks(const std::vector<std::int64_t>& ipk, const std::vector<PeakEdge>& edges,
                         std::vector<std::int64_t>& glabel) {
    const std::uint64_t n = ipk.empty() ? 0 : std::uint64_t(ipk.back());
    std::vector<std::uint64_t> parent(n);
    for (std::uint64_t i = 0; i < n; ++i) parent[i] = i;
    for (const PeakEdge& e : edges) {
        const std::uint64_t a = find(parent, std::uint64_t(ipk[e.row_a]) + e.peak_a);
        const std::uint64_t b = find(parent, std::uint64_t(ipk[e.row_b]) + e.peak_b);
        if (a < b)
            parent[b] = a;
        else if (b < a)
            parent[a] = b;
    }
    glabel.assign(n, 0);
    std::int64_t groups = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t root = find(parent, i);
        glabel[i] = root == i ? groups++ : glabel[root];
    }
    return groups;
}

PeakTable build_peak_table(std::size_t rows, const std::function<ScanPixels(std::size_t)>& read, const PeakOptions& options,
                           unsigned threads) {
    std::vector<RowSlot> slots(rows);
    std::mutex state, reading;
    std::exception_ptr failure;
    std::atomic<bool> stop{false};
    std::atomic<std::size_t> next{0};
    // Pairs row r with the row before it, and frees each row whose neighbours are both paired.
    const auto pair_with_before = [&](std::size_t r) {
        slots[r].pairs_ij = pairs_with_row_before(slots[r].scan, slots[r - 1].scan, static_cast<std::uint32_t>(r),
                                                  options.omega_tolerance, slots[r].edges);
        std::lock_guard<std::mutex> lock(state);
        for (const std::size_t q : {r - 1, r}) {
            const unsigned needed = (q > 0 ? 1u : 0u) + (q + 1 < rows ? 1u : 0u);
            if (++slots[q].neighbours_paired == needed) slots[q].scan.release_pixels();
        }
    };
    const auto work = [&] {
        try {
            for (std::size_t r; !stop && (r = next++) < rows;) {
                ScanPixels pixels;
                {
                    std::lock_guard<std::mutex> lock(reading);
                    if (stop) return;
                    pixels = read(r);
                }
                RowSlot& slot = slots[r];
                slot.labels_given = !pixels.nlabels.empty();
                slot.scan = label_scan(std::move(pixels), r, options);
                slot.pairs_ii = pairs_in_row(slot.scan, static_cast<std::uint32_t>(r), slot.edges);
                bool before = false, after = false;
                {
                    std::lock_guard<std::mutex> lock(state);
                    slot.labelled = true;
                    before = r > 0 && slots[r - 1].labelled;
                    after = r + 1 < rows && slots[r + 1].labelled;
                    if (rows == 1) slot.scan.release_pixels();
                }
                if (before) pair_with_before(r);
                if (after) pair_with_before(r + 1);
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(state);
            if (!failure) failure = std::current_exception();
            stop = true;
        }
    };
    const unsigned n = std::max(1u, std::min<unsigned>(threads ? threads : usable_cpu_count(), unsigned(std::max<std::size_t>(rows, 1))));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);

    PeakTable table;
    table.ipk.assign(rows + 1, 0);
    std::vector<PeakEdge> edges;
    for (std::size_t r = 0; r < rows; ++r) {
        RowSlot& slot = slots[r];
        const std::size_t npks = slot.scan.properties[kPixels].size();
        table.ipk[r + 1] = table.ipk[r] + std::int64_t(npks);
        table.rows_labelled_before += slot.labels_given ? 1 : 0;
        table.npk.push_back({std::int64_t(npks), std::int64_t(slot.pairs_ii), std::int64_t(slot.pairs_ij)});
        for (int c = 0; c < 5; ++c) {
            std::vector<std::int64_t>& to = table.properties[c];
            to.insert(to.end(), slot.scan.properties[c].begin(), slot.scan.properties[c].end());
            slot.scan.properties[c] = std::vector<std::int64_t>();
        }
        edges.insert(edges.end(), slot.edges.begin(), slot.edges.end());
        slot.edges = std::vector<PeakEdge>();
    }
    table.nlabel = group_peaks(table.ipk, edges, table.glabel);
    return table;
}

}  // namespace bslz4::tool::peaks
