#include "group_kernels.hpp"

#include <algorithm>
#include <string>

#include "device_cut.hpp"
#include "kernel_abi.h"
#include "kernel_launch.hpp"

namespace bslz4::cuda::detail {

namespace {

// Parse launches of at most this many frames take a warp a block (lz4_parse_warp.cu): a
// one-frame call's parse, H200, dense Eiger 4M frame, about 50 us against 107 us with a thread a
// block. Larger spans keep a thread a block, which needs the fewest warps for many frames (H200,
// multi of dense frames, a call: 4 frames 478 against 510 us, 8 the same, 16 1,478 against 1,347).
constexpr std::uint32_t kWarpParseFrames = 4;

// The decode's blocks: each warp needs kSharedPerWarp bytes of shared memory, so the warps a
// multiprocessor holds depend on how that memory divides into blocks (a block also costs the
// reserved bytes). The most warps wins; among equals, the smaller block.
struct DecodeShape {
    unsigned warps = 1;           // a block
    std::size_t resident = 1;     // blocks the whole device holds at once
};

DecodeShape decode_shape(const DeviceInfo& d) {
    DecodeShape best;
    std::size_t most = 0;
    for (unsigned w = 1; w <= abi::kMaxDecodeWarps; ++w) {
        if (w * abi::kSharedPerWarp > d.shared_per_block_optin) break;
        const std::size_t blocks = std::min<std::size_t>(
            {d.shared_per_multiprocessor / (w * abi::kSharedPerWarp + d.shared_reserved_per_block),
             static_cast<std::size_t>(d.blocks_per_multiprocessor), static_cast<std::size_t>(d.threads_per_multiprocessor) / (32 * w)});
        if (blocks * w > most) {
            most = blocks * w;
            best = {w, std::max<std::size_t>(1, blocks * static_cast<std::size_t>(std::max(1, d.multiprocessors)))};
        }
    }
    return best;
}

// Blocks a frame for a decode launch of `frames` frames: a warp decodes tiles a grid-stride
// apart (kernels/decode.cu), so fewer blocks than tiles balance quick tiles against slow ones
// within each warp; enough for kDecodeRounds of the blocks the device holds, never fewer than
// one block for every kMaxTilesPerWarp tiles a warp, nor more than one tile a warp. Measured
// (H200, dense u16, bench (a)): one tile a warp 72,024 frames/s; 1 round 77,371, 2 rounds
// 77,857, 4 rounds 77,269; very sparse 198,633 -> 212,276 with 2 rounds.
constexpr std::size_t kDecodeRounds = 2;
constexpr std::size_t kMaxTilesPerWarp = 8;

unsigned decode_blocks_per_frame(std::size_t tiles, const DecodeShape& shape, std::size_t frames) {
    const std::size_t one_each = (tiles + shape.warps - 1) / shape.warps;
    const std::size_t fill = (kDecodeRounds * shape.resident + frames - 1) / frames;
    return static_cast<unsigned>(std::min(one_each, std::max(fill, (one_each + kMaxTilesPerWarp - 1) / kMaxTilesPerWarp)));
}

}  // namespace

GroupKernels::GroupKernels(const PrimaryContext& ctx, const Module& module, const DeviceInfo& info, const FrameFormat& format, unsigned batch,
                           std::shared_ptr<const DeviceMask> mask, const PowderSpec& powders)
    : format_(format), batch_(batch), mask_(std::move(mask)), powders_(powders) {
    ScopedContext scope(ctx);
    const std::string tn = pixel_type_name(format.type);
    unblock_ = {module, "bslz4_unblock"};
    parse_ = {module, "bslz4_lz4_parse"};
    parse_warp_ = {module, "bslz4_lz4_parse_warp"};
    decode_ = {module, "bslz4_decode_" + tn};
    const DecodeShape shape = decode_shape(info);
    warps_per_decode_ = shape.warps;
    decode_resident_ = shape.resident;
    check(driver().cuFuncSetAttribute(decode_.get(), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(warps_per_decode_ * abi::kSharedPerWarp)),
          "cuFuncSetAttribute(bslz4_decode, shared memory)");
    scan_ = {module, "bslz4_scan_tiles"};
    offsets_ = {module, "bslz4_frame_offsets"};
    write_ = {module, "bslz4_write_" + tn};
    top_levels_ = {module, "bslz4_top_levels_" + tn};
    top_choose_ = {module, "bslz4_top_choose"};
    gather_ = {module, "bslz4_gather_chunks"};
}

abi::TopPixels GroupKernels::top_pixels_for(double cut) const {
    abi::TopPixels top{};
    if (!top_.active()) return top;
    const std::vector<double> thresholds = top_.thresholds_for(cut);
    top.active = 1;
    top.howmany = *top_.howmany();
    top.n_levels = static_cast<std::uint32_t>(thresholds.size());  // at most kMaxTopLevels (check_thresholds)
    for (std::size_t l = 0; l < thresholds.size(); ++l) top.levels[l] = make_cut(format_.type, thresholds[l]);
    return top;
}

void GroupKernels::add_matrix(const Module& module) {
    const std::string tn = pixel_type_name(format_.type);
    // Fixed-point weights are summed in int64 (acc i64, and f64 of exact fixed-point sums, whose
    // reduce rounds each sum once to double).
    const bool f64_of_fixed = powders_.fixed_sums && powders_.acc == Accumulator::f64;
    const bool packed = powders_.fixed_sums && powders_.matrix->packed_weights;
    const std::string sums = powders_.fixed_sums ? (packed ? "i64_packed" : "i64") : accumulator_name(powders_.acc);
    integrate_tiles_ = {module, "bslz4_integrate_tiles_" + tn + "_" + sums};
    reduce_tiles_ = {module, std::string("bslz4_reduce_tiles_") + accumulator_name(powders_.acc) + (f64_of_fixed ? "_fixed" : "")};
    const std::size_t sum_bytes = powders_.fixed_sums ? 8 : accumulator_size(powders_.acc);
    tile_shared_bytes_ = abi::tile_shared_bytes(static_cast<unsigned>(format_.bpp), powders_.fixed_sums && !packed ? 16u : 8u);
    check(driver().cuFuncSetAttribute(integrate_tiles_.get(), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(tile_shared_bytes_)),
          "cuFuncSetAttribute(bslz4_integrate_tiles, shared memory)");
    // A batch's partial sums take at most the bytes of its frames (a matrix as pyFAI makes them,
    // 2,000 radial bins: 244,000 slots, 125 MB for 64 frames against 572 MB of u16 frames), or
    // those of kTileLaunchFrames frames where a matrix's bins are scattered over the frame,
    // summed that many frames a launch.
    partial_per_frame_ = std::max<std::size_t>(1, powders_.matrix->slots) * sum_bytes;
    const std::size_t fit = std::size_t{batch_} * format_.frame_bytes() / partial_per_frame_ / abi::kTileLaunchFrames * abi::kTileLaunchFrames;
    tile_frames_ = static_cast<std::uint32_t>(std::min<std::size_t>(batch_, std::max<std::size_t>(abi::kTileLaunchFrames, fit)));
}

void GroupKernels::queue(GroupSlot& s, std::size_t first, std::size_t count, const abi::Cut& c, bool gpu_unblock,
                         const CallOutputs& outputs) const {
    const abi::FrameGeometry& geometry = format_.geometry;
    const CUstream st = s.stream.get();
    const auto n = static_cast<std::uint32_t>(count);
    const abi::TopPixels top = outputs.lists ? top_pixels_for(c.cut) : abi::TopPixels{};
    if (top.active && top.n_levels)
        grow_device(s.level_count, std::size_t{batch_} * top.n_levels * geometry.n_tiles * 4, "top-pixel counts");
    for (std::uint32_t b0 = 0; b0 < n; b0 += batch_) {
        const std::uint32_t nb = std::min<std::uint32_t>(batch_, n - b0);
        // A part's kernels wait for its chunks only; the parse spans start at its first frame.
        const auto part_first = static_cast<std::uint32_t>(b0 / s.part_frames * s.part_frames);
        const auto part_end = static_cast<std::uint32_t>(std::min<std::size_t>(n, part_first + s.part_frames));
        if (b0 == part_first) {
            if (!s.copies_on_kernel_stream)
                check(driver().cuStreamWaitEvent(st, s.part_uploaded[b0 / s.part_frames].get(), 0), "cuStreamWaitEvent");
            if (gpu_unblock) queue_unblock(s, part_first, part_end - part_first);
        }
        const std::uint32_t span_frames = batch_ * s.parse_span;
        const std::uint32_t span_first = part_first + (b0 - part_first) / span_frames * span_frames;
        if (b0 == span_first && geometry.n_blocks)  // a frame of fewer than 8 pixels is all raw tail
            queue_parse(s, b0, std::min<std::uint32_t>(span_frames, part_end - b0));
        queue_decode(s, span_first, b0, nb, c, static_cast<bool>(powders_.matrix) || outputs.dense);
        if (outputs.dense) {
            const std::size_t frame_bytes = format_.npix * format_.bpp;
            for (std::uint32_t j = 0; j < nb; ++j)
                check(driver().cuMemcpyDtoDAsync(outputs.dense->device_pointer() + (first + b0 + j) * frame_bytes,
                                                 s.dense.get() + std::size_t{j} * geometry.dense_stride * format_.bpp,
                                                 frame_bytes, st),
                      "cuMemcpyDtoDAsync(dense frame)");
        }
        if (powders_.matrix) queue_powder(s, b0, nb);
        if (outputs.lists) queue_lists(s, b0, nb, c, top);
    }
}

void GroupKernels::queue_unblock(GroupSlot& s, std::uint32_t part_first, std::uint32_t frames) const {
    abi::UnblockArgs a{};
    a.chunks = s.chunks_dev.as<const std::uint8_t>();
    a.chunk_offset = s.chunk_offset.as<const std::uint64_t>() + part_first;
    a.chunk_length = s.chunk_length.as<const std::uint64_t>() + part_first;
    a.n_frames = frames;
    a.g = format_.geometry;
    a.block_offset = s.block_offset.as<std::uint64_t>() + std::size_t{part_first} * format_.geometry.n_blocks;
    a.tail_offset = s.tail_offset.as<std::uint64_t>() + part_first;
    a.status = s.status.as<std::uint32_t>() + part_first;
    launch(unblock_, {frames, 1, abi::kUnblockThreads, 0}, s.stream.get(), a);
}

void GroupKernels::queue_parse(GroupSlot& s, std::uint32_t first_frame, std::uint32_t frames) const {
    abi::ParseArgs a{};
    a.chunks = s.chunks_dev.as<const std::uint8_t>();
    a.chunk_offset = s.chunk_offset.as<const std::uint64_t>();
    a.block_offset = s.block_offset.as<const std::uint64_t>();
    a.seq_first = s.seq_first.as<const std::uint64_t>();
    a.status = s.status.as<std::uint32_t>();
    a.first_frame = first_frame;
    a.g = format_.geometry;
    a.sequences = s.sequences.as<abi::SequenceWord>();
    a.seq_count = s.seq_count.as<std::uint32_t>();
    const bool by_warp = frames <= kWarpParseFrames;
    const unsigned per_cta = by_warp ? abi::kParseWarps : abi::kParseThreads;
    launch(by_warp ? parse_warp_ : parse_,
           {(format_.geometry.n_blocks + per_cta - 1) / per_cta, frames, by_warp ? abi::kParseWarps * 32 : abi::kParseThreads, 0},
           s.stream.get(), a);
}

void GroupKernels::queue_decode(GroupSlot& s, std::uint32_t span_first, std::uint32_t first_frame, std::uint32_t frames,
                                const abi::Cut& c, bool write_dense) const {
    abi::DecodeArgs a{};
    a.chunks = s.chunks_dev.as<const std::uint8_t>();
    a.chunk_offset = s.chunk_offset.as<const std::uint64_t>();
    a.block_offset = s.block_offset.as<const std::uint64_t>();
    a.tail_offset = s.tail_offset.as<const std::uint64_t>();
    a.seq_first = s.seq_first.as<const std::uint64_t>();
    a.sequences = s.sequences.as<const abi::SequenceWord>();
    a.seq_count = s.seq_count.as<const std::uint32_t>();
    a.status = s.status.as<const std::uint32_t>();
    a.span_first = span_first;
    a.first_frame = first_frame;
    a.g = format_.geometry;
    a.mask = mask_->bytes.as<const std::uint8_t>();
    a.cut = c;
    a.dense = s.dense.as<void>();
    a.write_dense = write_dense ? 1 : 0;
    a.stage_values = s.stage_values.as<void>();
    a.stage_indices = s.stage_indices.as<std::uint32_t>();
    a.tile_count = s.tile_count.as<std::uint32_t>();
    launch(decode_,
           {decode_blocks_per_frame(format_.geometry.n_tiles, {warps_per_decode_, decode_resident_}, frames), frames,
            warps_per_decode_ * 32, warps_per_decode_ * abi::kSharedPerWarp},
           s.stream.get(), a);
}

void GroupKernels::queue_powder(GroupSlot& s, std::uint32_t first_frame, std::uint32_t frames) const {
    const DeviceMatrix& m = *powders_.matrix;
    const CUstream st = s.stream.get();
    for (std::uint32_t c = 0; c < frames; c += tile_frames_) {
        const std::uint32_t n = std::min(tile_frames_, frames - c);
        abi::IntegrateTilesArgs t{};
        t.dense = s.dense.as<std::uint8_t>() + std::size_t{c} * format_.geometry.dense_stride * format_.bpp;
        t.dense_stride = format_.geometry.dense_stride;
        t.rows = static_cast<std::uint32_t>(format_.ni);
        t.cols = static_cast<std::uint32_t>(format_.nj);
        t.tiles_x = static_cast<std::uint32_t>(m.tiles_x);
        t.n_frames = n;
        t.tile_slot_first = m.tile_slot_first.as<const std::uint32_t>();
        t.slot_entry_first = m.slot_entry_first.as<const std::uint32_t>();
        t.entry_pixel = m.entry_pixel.as<const std::uint16_t>();
        t.entry_weight = m.entry_weight.as<const void>();
        t.partial = s.partial.as<void>();
        launch(integrate_tiles_, {static_cast<unsigned>(m.tiles), 1, abi::kTileThreads, tile_shared_bytes_}, st, t);
        abi::ReduceTilesArgs r{};
        r.partial = s.partial.as<const void>();
        r.n_frames = n;
        r.bin_slot_first = m.bin_slot_first.as<const std::uint32_t>();
        r.bin_slot = m.bin_slot.as<const std::uint32_t>();
        r.bins = static_cast<std::uint32_t>(powders_.bins);
        r.powder = s.powder.as<std::uint8_t>() + std::size_t{first_frame + c} * powders_.row_bytes();
        r.sum_to_f64 = powders_.sum_to_f64;
        launch(reduce_tiles_,
               {static_cast<unsigned>((powders_.bins + abi::kReduceWarps - 1) / abi::kReduceWarps), (n + 31) / 32, abi::kReduceWarps * 32, 0},
               st, r);
    }
}

void GroupKernels::queue_lists(GroupSlot& s, std::uint32_t first_frame, std::uint32_t frames, const abi::Cut& c,
                               const abi::TopPixels& top) const {
    const abi::FrameGeometry& geometry = format_.geometry;
    const CUstream st = s.stream.get();
    const unsigned tiles_x = (geometry.n_tiles + abi::kWarpsPerCta - 1) / abi::kWarpsPerCta;
    abi::ScanTilesArgs scan{};
    scan.tile_count = s.tile_count.as<const std::uint32_t>();
    scan.n_tiles = geometry.n_tiles;
    scan.first_frame = first_frame;
    scan.tile_offset = s.tile_offset.as<std::uint32_t>();
    scan.npixels = s.npixels.as<std::uint64_t>();
    launch(scan_, {frames, 1, abi::kScanThreads, 0}, st, scan);
    if (top.active) queue_top_pixels(s, first_frame, frames, c, top);
    abi::FrameOffsetsArgs offsets{};
    offsets.npixels = s.npixels.as<const std::uint64_t>();
    offsets.status = s.status.as<const std::uint32_t>();
    offsets.first_frame = first_frame;
    offsets.n_frames = frames;
    offsets.cap = format_.cap;
    offsets.frame_offset = s.frame_offset.as<std::uint64_t>();
    launch(offsets_, {1, 1, 32, 0}, st, offsets);
    abi::WriteArgs w{};
    w.dense = s.dense.as<const void>();
    w.first_frame = first_frame;
    w.g = geometry;
    w.mask = mask_->bytes.as<const std::uint8_t>();
    w.cut = c;
    w.tile_count = s.tile_count.as<const std::uint32_t>();
    w.tile_offset = s.tile_offset.as<const std::uint32_t>();
    w.npixels = s.npixels.as<const std::uint64_t>();
    w.status = s.status.as<const std::uint32_t>();
    w.cap = format_.cap;
    w.frame_offset = s.frame_offset.as<const std::uint64_t>();
    w.stage_values = s.stage_values.as<const void>();
    w.stage_indices = s.stage_indices.as<const std::uint32_t>();
    w.top = top;
    w.frame_level = s.frame_level.as<const std::int32_t>();
    w.level_count = s.level_count.as<const std::uint32_t>();
    w.values = s.values.as<void>();
    w.indices = s.indices.as<std::uint32_t>();
    launch(write_, {tiles_x, frames, abi::kWarpsPerCta * 32, 0}, st, w);
}

void GroupKernels::queue_top_pixels(GroupSlot& s, std::uint32_t first_frame, std::uint32_t frames, const abi::Cut& c,
                                    const abi::TopPixels& top) const {
    const abi::FrameGeometry& geometry = format_.geometry;
    const CUstream st = s.stream.get();
    if (top.n_levels) {
        abi::TopLevelsArgs a{};
        a.dense = s.dense.as<const void>();
        a.first_frame = first_frame;
        a.g = geometry;
        a.mask = mask_->bytes.as<const std::uint8_t>();
        a.cut = c;
        a.top = top;
        a.tile_count = s.tile_count.as<const std::uint32_t>();
        a.npixels = s.npixels.as<const std::uint64_t>();
        a.status = s.status.as<const std::uint32_t>();
        a.stage_values = s.stage_values.as<const void>();
        a.level_count = s.level_count.as<std::uint32_t>();
        launch(top_levels_, {(geometry.n_tiles + abi::kWarpsPerCta - 1) / abi::kWarpsPerCta, frames, abi::kWarpsPerCta * 32, 0},
               st, a);
    }
    abi::TopChooseArgs a{};
    a.top = top;
    a.first_frame = first_frame;
    a.n_tiles = geometry.n_tiles;
    a.level_count = s.level_count.as<const std::uint32_t>();
    a.status = s.status.as<const std::uint32_t>();
    a.npixels = s.npixels.as<std::uint64_t>();
    a.tile_offset = s.tile_offset.as<std::uint32_t>();
    a.frame_level = s.frame_level.as<std::int32_t>();
    a.nabove = s.nabove.as<std::uint64_t>();
    launch(top_choose_, {frames, 1, abi::kScanThreads, 0}, st, a);
}

}  // namespace bslz4::cuda::detail
