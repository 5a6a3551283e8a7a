#include "group_upload.hpp"

#include <algorithm>

#include "bslz4/chunk_header.hpp"
#include "bslz4/error.hpp"

namespace bslz4::cuda::detail {

void GroupUpload::upload(GroupSlot& s, const Staged& in, std::size_t count) const {
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
    // One parse launch takes as many batches as the sequence budget (a quarter of the memory
    // budget) holds: its threads are few a frame and mostly wait on loads, so a launch
    // parses many frames, while the other stream's decode fills the multiprocessors.
    std::size_t batch_bytes = 0;
    for (std::size_t b0 = 0; b0 < count; b0 += batch_)
        batch_bytes = std::max<std::size_t>(batch_bytes, (seq_first[std::min(b0 + batch_, count)] - seq_first[b0]) * 8);
    const std::size_t batches = (count + batch_ - 1) / batch_;
    s.parse_span = static_cast<unsigned>(std::max<std::size_t>(1, std::min(batches, memory_budget_ / 4 / batch_bytes)));
    const std::size_t span_bytes = batch_bytes * s.parse_span;
    grow_device(s.sequences, span_bytes, "LZ4 sequences");
    const CUstream st = s.stream.get();
    check(driver().cuMemcpyHtoDAsync(s.chunks_dev.get(), in.from, in.bytes, st), "cuMemcpyHtoDAsync(chunks)");
    check(driver().cuMemcpyHtoDAsync(s.chunk_offset.get(), offs, count * 8, st), "cuMemcpyHtoDAsync(offsets)");
    check(driver().cuMemcpyHtoDAsync(s.chunk_length.get(), lens, count * 8, st), "cuMemcpyHtoDAsync(lengths)");
    check(driver().cuMemcpyHtoDAsync(s.seq_first.get(), seq_first, (count + 1) * 8, st),
          "cuMemcpyHtoDAsync(sequence slots)");
}

void GroupUpload::unblock_on_host(GroupSlot& s, std::size_t first, std::size_t count, ChunkSource chunks,
                                  const FrameFaults& faults) const {
    const abi::FrameGeometry& geometry = format_.geometry;
    std::uint64_t* offs = s.meta();
    std::uint64_t* blocks = offs + 2 * count;
    std::uint64_t* tails = blocks + count * geometry.n_blocks;
    auto* status = reinterpret_cast<std::uint32_t*>(s.status_host.data());
    for (std::size_t k = 0; k < count; ++k) {
        const ByteView c = chunks(first + k);
        BlockLayout layout;
        try {
            layout = block_starts(c, format_.bpp, format_.frame_bytes());
        } catch (const Error& e) {
            faults.refuse(first, first + k, e.what(), chunks);
        }
        for (std::size_t b = 0; b < geometry.n_blocks; ++b) blocks[k * geometry.n_blocks + b] = offs[k] + layout.starts[b];
        tails[k] = offs[k] + layout.tail_offset;
        status[k] = abi::kFrameOk;
    }
    const CUstream st = s.stream.get();
    check(driver().cuMemcpyHtoDAsync(s.block_offset.get(), blocks, count * geometry.n_blocks * 8, st),
          "cuMemcpyHtoDAsync(block offsets)");
    check(driver().cuMemcpyHtoDAsync(s.tail_offset.get(), tails, count * 8, st), "cuMemcpyHtoDAsync(tail offsets)");
    check(driver().cuMemcpyHtoDAsync(s.status.get(), status, count * 4, st), "cuMemcpyHtoDAsync(status)");
}

}  // namespace bslz4::cuda::detail
