#include "group_upload.hpp"

#include <algorithm>
#include <vector>

#include "bslz4/chunk_header.hpp"
#include "bslz4/error.hpp"

namespace bslz4::cuda::detail {

GroupUpload::ParsePlan GroupUpload::plan(const std::uint64_t* seq_first, std::size_t count) const {
    const std::size_t batches = (count + batch_ - 1) / batch_;
    const std::size_t parts = std::min<std::size_t>(batches, kMaxParts);
    const std::size_t part_batches = (batches + parts - 1) / parts;
    // One parse launch takes as many batches as the sequence budget (a quarter of the memory
    // budget) holds, within a part: its threads are few a frame and mostly wait on loads, so a
    // launch parses many frames, while the other streams' decode fills the multiprocessors.
    std::size_t batch_bytes = 0;
    for (std::size_t b0 = 0; b0 < count; b0 += batch_)
        batch_bytes = std::max<std::size_t>(batch_bytes, (seq_first[std::min(b0 + batch_, count)] - seq_first[b0]) * 8);
    const auto span = static_cast<unsigned>(std::max<std::size_t>(1, std::min({part_batches, memory_budget_ / 4 / batch_bytes})));
    return {part_batches * batch_, span, batch_bytes * span};
}

void GroupUpload::reserve(GroupSlot& s, std::size_t count, std::size_t chunk_bytes) const {
    grow_device(s.chunks_dev, count * staged_bytes(chunk_bytes) + abi::kChunkPadding, "chunks");
    std::vector<std::uint64_t> seq_first(count + 1);
    for (std::size_t k = 0; k <= count; ++k) seq_first[k] = k * (chunk_bytes / abi::kInputBytesPerSequence + 2);
    grow_device(s.sequences, plan(seq_first.data(), count).span_bytes, "LZ4 sequences");
}

void GroupUpload::upload_meta(GroupSlot& s, const Staged& in, std::size_t count, const GroupSlot* previous) const {
    grow_device(s.chunks_dev, in.bytes + abi::kChunkPadding, "chunks");
    const std::uint64_t* offs = s.meta();
    const std::uint64_t* lens = offs + count;
    auto* seq_first = reinterpret_cast<std::uint64_t*>(s.seq_first_host.data());
    std::uint64_t slots = 0;
    for (std::size_t k = 0; k < count; ++k) {
        seq_first[k] = slots;
        slots += lens[k] / abi::kInputBytesPerSequence + 2;
    }
    seq_first[count] = slots;
    const ParsePlan p = plan(seq_first, count);
    s.part_frames = p.part_frames;
    s.parse_span = p.parse_span;
    grow_device(s.sequences, p.span_bytes, "LZ4 sequences");
    // The kernel stream's previous work is done (the slot was finished), so the device
    // buffers are free; one upload at a time, in group order, so the first group's kernels
    // need not wait for the bus to be shared with the next.
    s.copies_on_kernel_stream = !previous && s.part_frames >= count;
    const CUstream st = s.copy_stream();
    if (previous) check(driver().cuStreamWaitEvent(st, previous->uploaded.get(), 0), "cuStreamWaitEvent");
    check(driver().cuMemcpyHtoDAsync(s.chunk_offset.get(), offs, count * 8, st), "cuMemcpyHtoDAsync(offsets)");
    check(driver().cuMemcpyHtoDAsync(s.chunk_length.get(), lens, count * 8, st), "cuMemcpyHtoDAsync(lengths)");
    check(driver().cuMemcpyHtoDAsync(s.seq_first.get(), seq_first, (count + 1) * 8, st),
          "cuMemcpyHtoDAsync(sequence slots)");
}

void GroupUpload::upload_chunks(GroupSlot& s, const Staged& in, std::size_t count) const {
    const std::uint64_t* offs = s.meta();
    const std::uint64_t* lens = offs + count;
    const std::size_t parts = (count + s.part_frames - 1) / s.part_frames;
    // Part p is the bytes from its first chunk to the next part's first chunk, when every
    // chunk of a part lies before every chunk of the next (staged chunks always do).
    std::size_t starts[kMaxParts + 1] = {};
    bool in_order = true;
    std::uint64_t end_before = 0;
    for (std::size_t p = 0; p < parts; ++p) {
        const std::size_t f0 = p * s.part_frames, f1 = std::min(count, f0 + s.part_frames);
        std::uint64_t lo = offs[f0], hi = 0;
        for (std::size_t k = f0; k < f1; ++k) {
            lo = std::min(lo, offs[k]);
            hi = std::max(hi, offs[k] + lens[k]);
        }
        if (p > 0 && lo < end_before) in_order = false;
        starts[p] = p == 0 ? 0 : lo;
        end_before = hi;
    }
    starts[parts] = in.bytes;
    const CUstream st = s.copy_stream();
    for (std::size_t p = 0; p < parts; ++p) {
        const std::size_t from = in_order ? starts[p] : 0, to = in_order ? starts[p + 1] : in.bytes;
        if (in_order || p == 0)
            check(driver().cuMemcpyHtoDAsync(s.chunks_dev.get() + from, in.from + from, to - from, st),
                  "cuMemcpyHtoDAsync(chunks)");
        check(driver().cuEventRecord(s.part_uploaded[p].get(), st), "cuEventRecord");
    }
    check(driver().cuEventRecord(s.uploaded.get(), st), "cuEventRecord");
}

void GroupUpload::walk_headers(GroupSlot& s, std::size_t first, std::size_t count, ChunkSource uploaded, ChunkSource chunks,
                               const FrameFaults& faults, CallStatus& call) const {
    const abi::FrameGeometry& geometry = format_.geometry;
    std::uint64_t* offs = s.meta();
    std::uint64_t* blocks = offs + 2 * count;
    std::uint64_t* tails = blocks + count * geometry.n_blocks;
    auto* status = reinterpret_cast<std::uint32_t*>(tails + count);
    for (std::size_t k = 0; k < count; ++k) {
        BlockLayout layout;
        try {
            // The offsets are the uploaded chunk's; the verdicts the caller's chunk's.
            layout = block_starts(uploaded(first + k), format_.bpp, format_.frame_bytes());
        } catch (const Error& e) {
            // A chunk fault of the layout's kind: the kernels skip the frame, its offsets unread.
            status[k] = abi::kChunkShort;
            tails[k] = offs[k];
            if (call.is_bad(first + k)) continue;  // refused before upload, staged empty
            Verdict v = faults.cpu_verdict(chunks(first + k));
            if (v.ok()) v = {e.code(), e.what()};
            if (!call.reporting()) faults.refuse(first, first + k, v, chunks);
            call.mark_bad(first + k, v.code, frame_message(first + k, v));
            continue;
        }
        for (std::size_t b = 0; b < geometry.n_blocks; ++b) blocks[k * geometry.n_blocks + b] = offs[k] + layout.starts[b];
        tails[k] = offs[k] + layout.tail_offset;
        status[k] = abi::kFrameOk;
    }
}

void GroupUpload::upload_walked(GroupSlot& s, std::size_t count) const {
    const abi::FrameGeometry& geometry = format_.geometry;
    const std::uint64_t* blocks = s.meta() + 2 * count;
    const std::uint64_t* tails = blocks + count * geometry.n_blocks;
    const auto* status = reinterpret_cast<const std::uint32_t*>(tails + count);
    const CUstream st = s.copy_stream();
    check(driver().cuMemcpyHtoDAsync(s.block_offset.get(), blocks, count * geometry.n_blocks * 8, st),
          "cuMemcpyHtoDAsync(block offsets)");
    check(driver().cuMemcpyHtoDAsync(s.tail_offset.get(), tails, count * 8, st), "cuMemcpyHtoDAsync(tail offsets)");
    check(driver().cuMemcpyHtoDAsync(s.status.get(), status, count * 4, st), "cuMemcpyHtoDAsync(status)");
}

}  // namespace bslz4::cuda::detail
