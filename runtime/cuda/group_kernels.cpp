#include "group_kernels.hpp"

#include <algorithm>
#include <string>

#include "device_cut.hpp"
#include "kernel_abi.h"
#include "kernel_image.hpp"
#include "launch.hpp"

namespace bslz4::cuda::detail {

namespace {

// Parse launches of at most this many frames take a warp a block (lz4_parse_warp.cu): a
// one-frame call's parse, H200, dense Eiger 4M frame, about 50 us against 107 us with a thread a
// block. Larger spans keep a thread a block, which needs the fewest warps for many frames (H200,
// multi of dense frames, a call: 4 frames 478 against 510 us, 8 the same, 16 1,478 against 1,347).
constexpr std::uint32_t kWarpParseFrames = 4;

// integrate.cu's shapes: a block of 4 warps a row when its 128 threads get at least this many
// weights each on average, else a warp a row. H200, u16, a batch of 64 frames: a 1D powder of
// 2,000 bins (4,471 weights a row) a block a row; 1,500 x 72 bins (83 a row) ran 1.47 ms a
// launch a block a row, where the block spent its time in the reduction.
constexpr std::size_t kWeightsPerThreadForBlockRows = 8;
using bslz4_abi::kIntegrateThreads;
using bslz4_abi::kIntegrateWarps;

unsigned integrate_warps_per_row(const DeviceMatrix& m) {
    return m.bins && m.nnz / m.bins >= kWeightsPerThreadForBlockRows * kIntegrateThreads ? kIntegrateWarps : 1;
}

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
    unblock_ = kernel(module, "bslz4_unblock");
    parse_ = kernel(module, "bslz4_lz4_parse");
    parse_warp_ = kernel(module, "bslz4_lz4_parse_warp");
    decode_ = kernel(module, "bslz4_decode_" + tn);
    const DecodeShape shape = decode_shape(info);
    warps_per_decode_ = shape.warps;
    decode_resident_ = shape.resident;
    check(driver().cuFuncSetAttribute(decode_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(warps_per_decode_ * abi::kSharedPerWarp)),
          "cuFuncSetAttribute(bslz4_decode, shared memory)");
    scan_ = kernel(module, "bslz4_scan_tiles");
    offsets_ = kernel(module, "bslz4_frame_offsets");
    write_ = kernel(module, "bslz4_write_" + tn);
    top_levels_ = kernel(module, "bslz4_top_levels_" + tn);
    top_choose_ = kernel(module, "bslz4_top_choose");
    gather_ = kernel(module, "bslz4_gather_chunks");
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
    interleave_ = kernel(module, "bslz4_interleave_" + tn);
    // f64 of fixed-point sums has kernels of its own (int64 sums, each rounded once to double).
    const bool f64_of_fixed = powders_.fixed_sums && powders_.acc == Accumulator::f64;
    integrate_ = kernel(module, "bslz4_integrate_" + tn + "_" + accumulator_name(powders_.acc) + (f64_of_fixed ? "_fixed" : ""));
}

void GroupKernels::queue(GroupSlot& s, std::size_t first, std::size_t count, const abi::Cut& c, bool gpu_unblock,
                         const CallOutputs& outputs) const {
    const abi::FrameGeometry& geometry = format_.geometry;
    const std::size_t npix = format_.npix, bpp = format_.bpp, cap = format_.cap;
    const unsigned batch = batch_;
    const bool matrix = static_cast<bool>(powders_.matrix);
    const CUstream st = s.stream.get();
    const auto n = static_cast<std::uint32_t>(count);
    const unsigned tiles_x = (geometry.n_tiles + abi::kWarpsPerCta - 1) / abi::kWarpsPerCta;
    const abi::TopPixels top = outputs.lists ? top_pixels_for(c.cut) : abi::TopPixels{};
    if (top.active && top.n_levels)
        grow_device(s.level_count, std::size_t{batch} * top.n_levels * geometry.n_tiles * 4, "top-pixel counts");
    for (std::uint32_t b0 = 0; b0 < n; b0 += batch) {
        const std::uint32_t nb = std::min<std::uint32_t>(batch, n - b0);
        // A part's kernels wait for its chunks only; the parse spans start at its first frame.
        const auto part_first = static_cast<std::uint32_t>(b0 / s.part_frames * s.part_frames);
        const auto part_end = static_cast<std::uint32_t>(std::min<std::size_t>(n, part_first + s.part_frames));
        if (b0 == part_first) {
            if (!s.copies_on_kernel_stream)
                check(driver().cuStreamWaitEvent(st, s.part_uploaded[b0 / s.part_frames].get(), 0), "cuStreamWaitEvent");
            const std::uint32_t np = part_end - part_first;
            if (gpu_unblock)
                launch(unblock_, "bslz4_unblock",
                       {np, 1, abi::kUnblockThreads, 0}, st,
                       s.chunks_dev.as<const std::uint8_t>(), s.chunk_offset.as<const std::uint64_t>() + part_first,
                       s.chunk_length.as<const std::uint64_t>() + part_first, np, geometry,
                       s.block_offset.as<std::uint64_t>() + std::size_t{part_first} * geometry.n_blocks,
                       s.tail_offset.as<std::uint64_t>() + part_first, s.status.as<std::uint32_t>() + part_first);
        }
        const std::uint32_t span_frames = batch * s.parse_span;
        const std::uint32_t span_first = part_first + (b0 - part_first) / span_frames * span_frames;
        if (b0 == span_first && geometry.n_blocks) {  // a frame of fewer than 8 pixels is all raw tail
            const std::uint32_t span = std::min<std::uint32_t>(span_frames, part_end - b0);
            const bool by_warp = span <= kWarpParseFrames;
            const unsigned per_cta = by_warp ? abi::kParseWarps : abi::kParseThreads;
            launch(by_warp ? parse_warp_ : parse_, by_warp ? "bslz4_lz4_parse_warp" : "bslz4_lz4_parse",
                   {(geometry.n_blocks + per_cta - 1) / per_cta, span, by_warp ? abi::kParseWarps * 32 : abi::kParseThreads, 0},
                   st, s.chunks_dev.as<const std::uint8_t>(), s.chunk_offset.as<const std::uint64_t>(),
                   s.block_offset.as<const std::uint64_t>(), s.seq_first.as<const std::uint64_t>(),
                   s.status.as<std::uint32_t>(), b0, geometry, s.sequences.as<void>(), s.seq_count.as<std::uint32_t>());
        }
        launch(decode_, "bslz4_decode",
               {decode_blocks_per_frame(geometry.n_tiles, {warps_per_decode_, decode_resident_}, nb), nb, warps_per_decode_ * 32,
                warps_per_decode_ * abi::kSharedPerWarp},
               st, s.chunks_dev.as<const std::uint8_t>(), s.chunk_offset.as<const std::uint64_t>(),
               s.block_offset.as<const std::uint64_t>(), s.tail_offset.as<const std::uint64_t>(),
               s.seq_first.as<const std::uint64_t>(), s.sequences.as<const void>(),
               s.seq_count.as<const std::uint32_t>(), s.status.as<const std::uint32_t>(), span_first, b0, geometry,
               mask_->bytes.as<const std::uint8_t>(), c, s.dense.as<void>(), int{matrix || outputs.dense},
               s.stage_values.as<void>(), s.stage_indices.as<std::uint32_t>(), s.tile_count.as<std::uint32_t>());
        if (outputs.dense) {
            const std::size_t frame_bytes = npix * bpp;
            for (std::uint32_t j = 0; j < nb; ++j)
                check(driver().cuMemcpyDtoDAsync(outputs.dense->device_pointer() + (first + b0 + j) * frame_bytes,
                                                 s.dense.get() + std::size_t{j} * geometry.dense_stride * bpp,
                                                 frame_bytes, st),
                      "cuMemcpyDtoDAsync(dense frame)");
        }
        if (matrix) {
            const DeviceMatrix& m = *powders_.matrix;
            const std::uint32_t passes = (nb + abi::kFramesPerPass - 1) / abi::kFramesPerPass;
            launch(interleave_, "bslz4_interleave",
                   {static_cast<unsigned>((npix + abi::kInterleaveThreads - 1) / abi::kInterleaveThreads), passes,
                    abi::kInterleaveThreads, 0},
                   st, s.dense.as<const void>(), geometry.dense_stride, nb, std::uint64_t{npix}, s.interleaved.as<void>());
            const unsigned warps_per_row = integrate_warps_per_row(m);
            const auto rows_per_block = kIntegrateWarps / warps_per_row;
            launch(integrate_, "bslz4_integrate",
                   {static_cast<unsigned>((powders_.bins + rows_per_block - 1) / rows_per_block), 1, kIntegrateThreads, 0}, st,
                   s.interleaved.as<const void>(), std::uint64_t{npix}, nb, m.row_start.as<const std::uint32_t>(),
                   m.pixel.as<const std::uint32_t>(), m.weight.as<const void>(), static_cast<std::uint32_t>(powders_.bins),
                   std::uint32_t{warps_per_row}, s.powder.as<std::uint8_t>() + std::size_t{b0} * powders_.row_bytes(),
                   powders_.sum_to_f64);
        }
        if (!outputs.lists) continue;
        launch(scan_, "bslz4_scan_tiles", {nb, 1, abi::kScanThreads, 0}, st, s.tile_count.as<const std::uint32_t>(),
               geometry.n_tiles, b0, s.tile_offset.as<std::uint32_t>(), s.npixels.as<std::uint64_t>());
        if (top.active) {
            if (top.n_levels)
                launch(top_levels_, "bslz4_top_levels", {tiles_x, nb, abi::kWarpsPerCta * 32, 0}, st, s.dense.as<const void>(),
                       b0, geometry, mask_->bytes.as<const std::uint8_t>(), c, top, s.tile_count.as<const std::uint32_t>(),
                       s.npixels.as<const std::uint64_t>(), s.status.as<const std::uint32_t>(),
                       s.stage_values.as<const void>(), s.level_count.as<std::uint32_t>());
            launch(top_choose_, "bslz4_top_choose", {nb, 1, abi::kScanThreads, 0}, st, top, b0, geometry.n_tiles,
                   s.level_count.as<const std::uint32_t>(), s.status.as<const std::uint32_t>(), s.npixels.as<std::uint64_t>(),
                   s.tile_offset.as<std::uint32_t>(), s.frame_level.as<std::int32_t>(), s.nabove.as<std::uint64_t>());
        }
        launch(offsets_, "bslz4_frame_offsets", {1, 1, 32, 0}, st, s.npixels.as<const std::uint64_t>(),
               s.status.as<const std::uint32_t>(), b0, nb, std::uint64_t{cap}, s.frame_offset.as<std::uint64_t>());
        launch(write_, "bslz4_write", {tiles_x, nb, abi::kWarpsPerCta * 32, 0}, st, s.dense.as<const void>(), b0,
               geometry, mask_->bytes.as<const std::uint8_t>(), c, s.tile_count.as<const std::uint32_t>(),
               s.tile_offset.as<const std::uint32_t>(),
               s.npixels.as<const std::uint64_t>(), s.status.as<const std::uint32_t>(), std::uint64_t{cap},
               s.frame_offset.as<const std::uint64_t>(), s.stage_values.as<const void>(),
               s.stage_indices.as<const std::uint32_t>(), top, s.frame_level.as<const std::int32_t>(),
               s.level_count.as<const std::uint32_t>(), s.values.as<void>(), s.indices.as<std::uint32_t>());
    }
}

}  // namespace bslz4::cuda::detail
