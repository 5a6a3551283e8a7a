#include "chunk_staging.hpp"

#include <algorithm>

#include "pinned_registry.hpp"
#include "streaming_copy.hpp"

namespace bslz4::cuda::detail {

namespace {

// The copies are shared out in pieces of this many bytes.
constexpr std::size_t kStagingPiece = std::size_t{256} << 10;

std::size_t total_bytes(std::size_t first, std::size_t count, ChunkSource chunks) {
    std::size_t n = 0;
    for (std::size_t k = 0; k < count; ++k) n += chunks(first + k).size;
    return n;
}

}  // namespace

ChunkStaging::ChunkStaging(const FrameFormat& format, Codec codec, const FrameFaults& faults, bslz4::detail::ThreadPool& threads)
    : threads_(threads) {
    if (codec == Codec::zstd) restaging_.emplace(format, faults, threads);
}

void ChunkStaging::reserve(GroupSlot& s, std::size_t count, std::size_t uploaded) const {
    grow_transfer(s.chunks_host, count * staged_bytes(uploaded), "chunk staging");
}

Staged ChunkStaging::stage(GroupSlot& s, std::size_t first, std::size_t count, ChunkSource chunks, const BesideStaging& beside) {
    check(driver().cuEventSynchronize(s.uploaded.get()), "cuEventSynchronize");
    std::uint64_t* offs = s.meta();
    std::uint64_t* lens = offs + count;
    if (restaging_) {
        // Every restaged chunk has the same length: each takes the same room, set by the frame.
        const std::size_t room = staged_bytes(restaging_->chunk_bytes());
        for (std::size_t k = 0; k < count; ++k) offs[k] = k * room;
        grow_transfer(s.chunks_host, count * room, "chunk staging");
        restaging_->restage(first, count, chunks, s.chunks_host.data(), offs, lens);
        return {s.chunks_host.data(), count * room};
    }
    const std::uint8_t* lo = nullptr;
    const std::uint8_t* hi = nullptr;
    for (std::size_t k = 0; k < count; ++k) {
        const ByteView c = chunks(first + k);
        if (!lo || c.data < lo) lo = c.data;
        if (!hi || c.data + c.size > hi) hi = c.data + c.size;
    }
    if (lo && hi - lo <= static_cast<std::ptrdiff_t>(2 * total_bytes(first, count, chunks) + 4096) && is_pinned_range(lo, hi)) {
        for (std::size_t k = 0; k < count; ++k) {
            const ByteView c = chunks(first + k);
            offs[k] = static_cast<std::uint64_t>(c.data - lo);
            lens[k] = c.size;
        }
        return {lo, static_cast<std::size_t>(hi - lo)};
    }
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < count; ++k) {
        const ByteView c = chunks(first + k);
        offs[k] = total;
        lens[k] = c.size;
        total += staged_bytes(c.size);
    }
    // Grown apart from the device buffer (the upload grows that, once the slot's kernels are
    // done with it).
    grow_transfer(s.chunks_host, total, "chunk staging");
    pieces_.clear();
    for (std::size_t k = 0; k < count; ++k) {
        const ByteView c = chunks(first + k);
        for (std::size_t at = 0; at < c.size; at += kStagingPiece)
            pieces_.push_back({s.chunks_host.data() + offs[k] + at, c.data + at, std::min(kStagingPiece, c.size - at)});
    }
    // `beside` is task 0, so the thread that takes it (the calling thread, already awake) starts
    // it first: it is the longest task (H200 host, dense Eiger 4M frame: the header walk 38 to
    // 49 us; the whole copy, in 256 kB pieces, 41 us).
    const std::size_t extra = beside ? 1 : 0;
    const auto copy = [this, &beside, extra](std::size_t t, unsigned) {
        if (t < extra) return beside();
        const Piece& p = pieces_[t - extra];
        streaming_copy(p.to, p.from, p.bytes);
    };
    if (pieces_.size() + extra == 1)
        copy(0, 0);
    else if (pieces_.size() + extra > 1)
        threads_.run(pieces_.size() + extra, copy);
    return {s.chunks_host.data(), total, extra == 1};
}

}  // namespace bslz4::cuda::detail
