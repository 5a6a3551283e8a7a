#include "group_collector.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "argument_checks.hpp"
#include "bslz4/error.hpp"

namespace bslz4::cuda::detail {

namespace {
constexpr std::size_t kParallelListBytes = std::size_t{1} << 20;
// A piece of a group's powder copy: large enough that waking a thread is paid back.
constexpr std::size_t kPowderPieceBytes = std::size_t{1} << 20;
}  // namespace

GroupCollector::GroupCollector(const FrameFormat& format, ByteView mask, Codec codec, const PowderSpec& powders,
                               bslz4::detail::ThreadPool& threads, CallStatus& status)
    : format_(format),
      powder_spec_(powders),
      threads_(threads),
      status_(status),
      cpu_(mask, format.ni, format.nj, format.type, {codec, 1}) {}

void GroupCollector::set_top_pixels(const bslz4::detail::TopPixelsRule& rule) {
    top_ = rule;
    cpu_.set_top_pixels(rule.howmany(), rule.thresholds());
}

void GroupCollector::reserve(std::size_t nframes) {
    values_.reserve(nframes * format_.npix * format_.bpp);
    indices_.reserve(nframes * format_.npix * 4);
    if (powder_spec_.matrix) powders_.reserve(nframes * powder_spec_.row_bytes());
}

void GroupCollector::begin(std::size_t nframes, double cut, const CallOutputs& outputs) {
    // Refused before anything changes: the last call's results stay as they were.
    if (outputs.lists && outputs.rows)
        bslz4::detail::check_list_rows(*outputs.rows, nframes, format_.npix, format_.type);
    auto* const caller_powders =
        powder_spec_.matrix && !outputs.powders && outputs.rows ? static_cast<std::uint8_t*>(outputs.rows->powder_rows) : nullptr;
    if (caller_powders) {
        const std::size_t align = accumulator_size(powder_spec_.acc);
        if (reinterpret_cast<std::uintptr_t>(caller_powders) % align != 0)
            throw Error(ErrorCode::bad_argument, "powder rows not aligned to their " + std::to_string(align) + "-byte values");
        if (outputs.rows->rows < nframes)
            throw Error(ErrorCode::bad_argument, "powder rows: " + std::to_string(outputs.rows->rows) + " rows for " +
                                                     std::to_string(nframes) + " frames");
    }
    outputs_ = outputs;
    cut_ = cut;
    host_frames_ = 0;
    npixels_.assign(nframes, 0);
    last_cut_.assign(nframes, cut);
    last_nabove_.assign(nframes, 0);
    thresholds_ = top_.active() ? top_.thresholds_for(cut) : std::vector<double>{};
    rows_ = ListRows();
    if (outputs.lists && outputs.rows) {
        rows_ = *outputs.rows;
    } else if (outputs.lists) {
        rows_ = {values_.reserve(nframes * format_.npix * format_.bpp),
                 reinterpret_cast<std::uint32_t*>(indices_.reserve(nframes * format_.npix * 4)), format_.npix, nframes};
    }
    powder_dst_ = nullptr;
    if (powder_spec_.matrix && !outputs.powders)
        powder_dst_ = caller_powders ? caller_powders : powders_.reserve(nframes * powder_spec_.row_bytes());
}

void GroupCollector::queue_downloads(GroupSlot& s, std::size_t first, std::size_t count) {
    const CUstream st = s.stream.get();
    if (powder_spec_.matrix) {
        const std::size_t row = powder_spec_.row_bytes();
        if (outputs_.powders)
            check(driver().cuMemcpyDtoDAsync(outputs_.powders->device_pointer() + first * row, s.powder.get(), count * row, st),
                  "cuMemcpyDtoDAsync(powders)");
        else
            check(driver().cuMemcpyDtoHAsync(s.powder_host.data(), s.powder.get(), count * row, st),
                  "cuMemcpyDtoHAsync(powders)");
    }
    check(driver().cuMemcpyDtoHAsync(s.status_host.data(), s.status.get(), count * 4, st), "cuMemcpyDtoHAsync(status)");
    check(driver().cuMemcpyDtoHAsync(s.npixels_host.data(), s.npixels.get(), count * 8, st),
          "cuMemcpyDtoHAsync(pixel counts)");
    check(driver().cuMemcpyDtoHAsync(s.offsets_host.data(), s.frame_offset.get(), count * 8, st),
          "cuMemcpyDtoHAsync(list offsets)");
    if (outputs_.lists && top_.active()) {
        check(driver().cuMemcpyDtoHAsync(s.frame_level_host.data(), s.frame_level.get(), count * 4, st),
              "cuMemcpyDtoHAsync(top-pixel levels)");
        check(driver().cuMemcpyDtoHAsync(s.nabove_host.data(), s.nabove.get(), count * 8, st),
              "cuMemcpyDtoHAsync(top-pixel counts)");
    }
    s.pending = true;
    s.first = first;
    s.count = count;
}

void GroupCollector::finish(GroupSlot& s, ChunkSource chunks, const FrameFaults& faults) {
    if (!s.pending) return;
    s.pending = false;
    const std::size_t bpp = format_.bpp, cap = format_.cap;
    const CUstream st = s.stream.get();
    check(driver().cuStreamSynchronize(st), "cuStreamSynchronize");
    const auto* status = reinterpret_cast<const std::uint32_t*>(s.status_host.data());
    auto* counts = reinterpret_cast<std::uint64_t*>(s.npixels_host.data());
    bool any_bad = false;
    for (std::size_t k = 0; k < s.count; ++k) {
        const std::size_t f = s.first + k;
        if (status[k] == abi::kFrameOk) continue;
        // A frame refused on the host is already marked; one the kernels refused is judged here.
        if (!status_.is_bad(f)) {
            const Verdict v = faults.describe(status[k], chunks(f));
            if (!status_.reporting()) throw Error(v.code, frame_message(f, v));
            status_.mark_bad(f, v.code, frame_message(f, v));
        }
        counts[k] = 0;  // the kernels list nothing of it; so the copies below skip it
        any_bad = true;
    }
    if (powder_spec_.matrix && !outputs_.powders) {
        const std::size_t row = powder_spec_.row_bytes();
        // From pinned staging to the call's rows, shared out in pieces when large (a 2D powder of
        // 64 frames is 55 MB, which one thread copies at a fifth of the transfer's rate).
        const std::uint8_t* from = s.powder_host.data();
        std::uint8_t* to = powder_dst_ + s.first * row;
        const std::size_t bytes = s.count * row;
        const std::size_t pieces = bytes >= kParallelListBytes ? std::min<std::size_t>(bytes / kPowderPieceBytes + 1, 64) : 1;
        const auto copy_piece = [&](std::size_t k, unsigned) {
            const std::size_t a = bytes * k / pieces, b = bytes * (k + 1) / pieces;
            std::memcpy(to + a, from + a, b - a);
        };
        if (pieces > 1)
            threads_.run(pieces, copy_piece);
        else
            copy_piece(0, 0);
        // A bad frame's row summed whatever its slot's dense frame held.
        if (any_bad)
            for (std::size_t k = 0; k < s.count; ++k)
                if (status[k] != abi::kFrameOk) std::memset(powder_dst_ + (s.first + k) * row, 0, row);
    }
    if (!outputs_.lists) return;
    // Every list of the group, packed, in two copies.
    const auto* starts = reinterpret_cast<const std::uint64_t*>(s.offsets_host.data());
    std::size_t total = 0;
    for (std::size_t k = 0; k < s.count; ++k)
        if (counts[k] <= cap) total = std::max<std::size_t>(total, starts[k] + counts[k]);
    const std::size_t index_at = (total * bpp + 15) / 16 * 16;
    grow_transfer(s.lists_host, index_at + total * 4, "lists");
    if (total) {
        check(driver().cuMemcpyDtoHAsync(s.lists_host.data(), s.values.get(), total * bpp, st), "cuMemcpyDtoHAsync(values)");
        check(driver().cuMemcpyDtoHAsync(s.lists_host.data() + index_at, s.indices.get(), total * 4, st),
              "cuMemcpyDtoHAsync(indices)");
        check(driver().cuStreamSynchronize(st), "cuStreamSynchronize");
    }
    const auto* level = reinterpret_cast<const std::int32_t*>(s.frame_level_host.data());
    const auto* above = reinterpret_cast<const std::uint64_t*>(s.nabove_host.data());
    for (std::size_t k = 0; k < s.count; ++k) {
        const std::size_t f = s.first + k, n = counts[k];
        npixels_[f] = n;
        if (status[k] == abi::kFrameOk) {  // a bad frame keeps the call's cut and 0
            const bool chosen = top_.active() && level[k] != abi::kNoLevel;
            last_cut_[f] = chosen ? thresholds_.at(static_cast<std::size_t>(level[k])) : cut_;
            last_nabove_[f] = top_.active() ? static_cast<std::size_t>(above[k]) : n;
        }
        if (n <= cap) continue;
        // Not sparse: listed on the host. The GPU accepted the chunk: should the CPU not, its
        // verdict stands.
        SparseFrame h;
        try {
            h = cpu_(chunks(f), cut_);
        } catch (const Error&) {
            const Verdict v = faults.cpu_verdict(chunks(f));
            if (v.ok()) throw;  // not the chunk's fault (memory)
            if (!status_.reporting()) throw Error(v.code, frame_message(f, v));
            status_.mark_bad(f, v.code, frame_message(f, v));
            counts[k] = 0;
            npixels_[f] = 0;
            last_cut_[f] = cut_;
            last_nabove_[f] = 0;
            if (powder_spec_.matrix && !outputs_.powders)
                std::memset(powder_dst_ + f * powder_spec_.row_bytes(), 0, powder_spec_.row_bytes());
            continue;
        }
        std::memcpy(static_cast<std::uint8_t*>(rows_.values) + f * rows_.row_length * bpp, h.values, h.npixels * bpp);
        std::memcpy(rows_.indices + f * rows_.row_length, h.indices, h.npixels * 4);
        npixels_[f] = h.npixels;
        last_cut_[f] = h.last_cut;
        last_nabove_[f] = h.last_nabove;
        ++host_frames_;
    }
    // One capture, so handing the copies to the threads allocates nothing.
    const struct {
        const std::uint64_t *counts, *starts;
        std::size_t first, cap, row, bpp, index_at;
        const std::uint8_t* lists;
        std::uint8_t* values;
        std::uint32_t* indices;
    } job{counts, starts, s.first, cap, rows_.row_length, bpp, index_at, s.lists_host.data(),
          static_cast<std::uint8_t*>(rows_.values), rows_.indices};
    const auto copy = [&job](std::size_t k, unsigned) {
        const std::size_t f = job.first + k, n = job.counts[k];
        if (n > job.cap) return;
        std::memcpy(job.values + f * job.row * job.bpp, job.lists + job.starts[k] * job.bpp, n * job.bpp);
        std::memcpy(job.indices + f * job.row, job.lists + job.index_at + job.starts[k] * 4, n * 4);
    };
    // Shared out only when the copies outweigh waking the threads.
    if (s.count > 1 && total * (bpp + 4) >= kParallelListBytes)
        threads_.run(s.count, copy);
    else
        for (std::size_t k = 0; k < s.count; ++k) copy(k, 0);
}

SparseBatch GroupCollector::lists(std::size_t nframes) const {
    return {nframes, rows_.row_length, npixels_.data(), rows_.values, rows_.indices, format_.type, status_.codes(), status_.bad(),
            status_.nbad(), last_cut_.data(), last_nabove_.data()};
}

Powder GroupCollector::powders(std::size_t nframes) const {
    return {nframes, powder_spec_.bins, powder_spec_.acc, powder_dst_ ? powder_dst_ : powders_.data(), powder_spec_.scale};
}

}  // namespace bslz4::cuda::detail
