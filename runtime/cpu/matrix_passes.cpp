#include "matrix_passes.hpp"

#include <algorithm>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "bslz4/cpu_count.hpp"
#include "thread_pool.hpp"

namespace bslz4::detail {

namespace {

// A thread's share of a pass is at least this many entries: below it, starting the thread
// costs more than the share (a pass does a few ns an entry).
constexpr std::size_t kEntriesPerPart = std::size_t{1} << 20;
// The passes are bound by memory as much as by the cores: past this many threads they gain
// little, and a job's other threads (readers, objects being made) want the rest.
constexpr unsigned kMostParts = 8;

}  // namespace

std::size_t entry_parts(std::size_t entries) {
    return std::max<std::size_t>(1, std::min<std::size_t>({entries / kEntriesPerPart, kMostParts, usable_cpu_count()}));
}

std::vector<BinRange> entry_balanced_ranges(const std::vector<std::uint32_t>& row_start) {
    const std::size_t bins = row_start.empty() ? 0 : row_start.size() - 1;
    const std::size_t entries = bins ? row_start[bins] : 0;
    const std::size_t parts = std::max<std::size_t>(1, std::min(entry_parts(entries), bins));
    std::vector<BinRange> ranges;
    std::size_t first = 0;
    for (std::size_t p = 1; p <= parts && first < bins; ++p) {
        // The first bin whose entries start at or past p / parts of them all.
        const std::uint64_t target = static_cast<std::uint64_t>(entries) * p / parts;
        std::size_t end = p == parts ? bins
                                     : static_cast<std::size_t>(std::lower_bound(row_start.begin() + first, row_start.end() - 1, target) -
                                                                row_start.begin());
        end = std::max(end, first + 1);
        ranges.push_back({first, std::min(end, bins)});
        first = ranges.back().end;
    }
    if (ranges.empty()) ranges.push_back({0, bins});
    ranges.back().end = bins;
    return ranges;
}

void run_parts(std::size_t parts, const std::function<void(std::size_t)>& part) {
    if (parts <= 1) {
        if (parts == 1) part(0);
        return;
    }
    ThreadPool pool(static_cast<unsigned>(parts - 1));  // and this thread
    pool.run(parts, [&](std::size_t k, unsigned) { part(k); });
}

void populate_bytes(void* at, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto first = (reinterpret_cast<std::uintptr_t>(at) + page - 1) / page * page;
    const auto end = (reinterpret_cast<std::uintptr_t>(at) + bytes) / page * page;
    if (end <= first) return;
    const std::size_t pages = (end - first) / page, parts = std::min(entry_parts(bytes / 4), pages);
    // Only a way to fault the pages in sooner: a kernel without it (before Linux 5.14) leaves
    // them to the writes, as without this call.
    run_parts(parts, [&](std::size_t p) {
        const std::uintptr_t from = first + pages * p / parts * page, to = first + pages * (p + 1) / parts * page;
        madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
    });
#else
    (void)at;
    (void)bytes;
#endif
}

bool masks_entries(const IntegrationMatrix& m, ByteView mask) {
    return any_entry(m.pixel.size(), [&](std::size_t k) { return !mask.data[m.pixel[k]]; });
}

}  // namespace bslz4::detail
