// The GPU decoding engine behind bslz4::cuda::Chunk2Sparse and Chunk2SparseCSC. A call's
// frames go through in groups; each group is packed into a pinned buffer by several host
// threads (or uploaded straight from a PinnedHostMemory), unblocked and decoded batch by batch
// on one of two streams. A group is packed as soon as its slot's previous uploads are done,
// while the other slot's group uploads and decodes, and the upload and kernels of one group
// overlap the download and host work of the previous one.
// With a matrix, each batch's dense frames are also integrated on the device.
#pragma once
#include "bslz4/cuda/chunk2sparse.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/chunk_header.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/decode.hpp"
#include "argument_checks.hpp"
#include "context.hpp"
#include "driver_objects.hpp"
#include "host_buffer.hpp"
#include "kernel_abi.h"
#include "kernel_image.hpp"
#include "launch.hpp"
#include "pinned_registry.hpp"
#include "pixel_threshold.hpp"
#include "shared_matrices.hpp"
#include "thread_pool.hpp"
#include "device_array_state.hpp"
#include "integrator_checks.hpp"
#include "bslz4/cuda/device_array.hpp"
#include "bslz4/powder.hpp"

namespace bslz4::cuda::detail {

namespace abi = bslz4_abi;

constexpr unsigned kMaxBatch = 64;
constexpr unsigned kMaxGroup = 256;
constexpr unsigned kMinL2Batch = 8;
// Host threads copying a group's chunks from the caller's memory into pinned staging: enough
// to copy near the host-to-device rate, few enough to leave the host's other work its cores.
constexpr unsigned kMaxStagingThreads = 8;
// The copies are shared out in pieces of this many bytes, so one large frame is copied by
// several threads too.
constexpr std::size_t kStagingPiece = std::size_t{256} << 10;

inline std::string fault_name(std::uint32_t code) {
    switch (code) {
        case abi::kChunkShort: return "chunk shorter than the 12-byte header";
        case abi::kSizeMismatch: return "decoded size is not the frame size";
        case abi::kBlockSize: return "block size is not 8192 bytes";
        case abi::kBlockPastEnd: return "a block runs past the end of the chunk";
        case abi::kTailShort: return "the raw tail is cut off";
        case abi::kLeftover: return "bytes left over after the last block";
        case abi::kBlockTooLong: return "compressed block longer than any LZ4 block of 8192 bytes";
        case abi::kLz4Truncated: return "LZ4 block truncated inside a sequence";
        case abi::kLz4BadOffset: return "LZ4 match offset before the start of the block";
        case abi::kLz4TooMany: return "LZ4 block decodes to more than 8192 bytes";
        case abi::kLz4TooFew: return "LZ4 block decodes to too few bytes";
        case abi::kLz4EndOfBlock: return "LZ4 match in the block's last 12 bytes, or ending in its last 5";
    }
    return "fault code " + std::to_string(code);
}

// Warps a decode block: each needs kSharedPerWarp bytes of shared memory, so the warps a
// multiprocessor holds depend on how that memory divides into blocks (a block also costs the
// reserved bytes). The most warps wins; among equals, the smaller block.
inline unsigned decode_warps(const DeviceInfo& d) {
    unsigned best = 1, most = 0;
    for (unsigned w = 1; w <= abi::kMaxDecodeWarps; ++w) {
        if (w * abi::kSharedPerWarp > d.shared_per_block_optin) break;
        const std::size_t blocks = std::min<std::size_t>(
            {d.shared_per_multiprocessor / (w * abi::kSharedPerWarp + d.shared_reserved_per_block),
             static_cast<std::size_t>(d.blocks_per_multiprocessor), static_cast<std::size_t>(d.threads_per_multiprocessor) / (32 * w)});
        if (blocks * w > most) {
            most = static_cast<unsigned>(blocks * w);
            best = w;
        }
    }
    return best;
}

// The largest float not above cut (NaN for NaN). For a float v, v > it exactly when
// (double)v > cut: no float lies between it and the cut.
inline float float_floor(double cut) {
    constexpr double kMax = std::numeric_limits<float>::max();
    if (std::isnan(cut)) return std::numeric_limits<float>::quiet_NaN();
    if (cut >= kMax) return cut == std::numeric_limits<double>::infinity() ? std::numeric_limits<float>::infinity()
                                                                          : std::numeric_limits<float>::max();
    if (cut < -kMax) return -std::numeric_limits<float>::infinity();
    const float f = static_cast<float>(cut);
    return static_cast<double>(f) > cut ? std::nextafter(f, -std::numeric_limits<float>::infinity()) : f;
}

inline abi::Cut make_cut(PixelType type, double cut) {
    abi::Cut c{};
    c.cut = cut;
    c.cut_f32 = float_floor(cut);
    visit_pixel_type(type, [&](auto zero) {
        using T = decltype(zero);
        const bslz4::detail::PixelThreshold<T> th(cut);
        c.mode = th.mode == bslz4::detail::CutMode::none  ? abi::kCutNone
                 : th.mode == bslz4::detail::CutMode::all ? abi::kCutAll
                                                          : abi::kCutCompare;
        if constexpr (!std::is_floating_point<T>::value) c.threshold = static_cast<std::int64_t>(th.t);
    });
    return c;
}

inline int resolve_device(int requested) {
    if (requested >= 0) return requested;
    CUcontext current = nullptr;
    if (driver().cuCtxGetCurrent(&current) == CUDA_SUCCESS && current) {
        CUdevice dev = 0;
        check(driver().cuCtxGetDevice(&dev), "cuCtxGetDevice");
        return static_cast<int>(dev);
    }
    return 0;
}

// Where a staged group's chunks are: a pinned range `bytes` long, uploaded as one copy.
struct Staged {
    const std::uint8_t* from = nullptr;
    std::size_t bytes = 0;
};

// One piece of a chunk, copied into staging by one thread.
struct StagingCopy {
    std::uint8_t* to;
    const std::uint8_t* from;
    std::size_t bytes;
};

// One group's worth of buffers and its stream.
struct Slot {
    Stream stream;
    TransferBuffer chunks_host;
    DeviceBuffer chunks_dev;
    TransferBuffer meta_host;  // chunk offsets and lengths, then the cpu-unblock offsets
    DeviceBuffer chunk_offset, chunk_length, block_offset, tail_offset, status, tile_count, tile_offset, npixels;
    DeviceBuffer frame_offset, dense, values, indices;
    DeviceBuffer seq_first, seq_count, sequences;  // lz4_parse's sequences, for the span in hand
    TransferBuffer seq_first_host;
    unsigned parse_span = 1;  // batches parsed by one lz4_parse launch
    TransferBuffer status_host, npixels_host, offsets_host, lists_host;
    DeviceBuffer powder;        // group x bins sums (with a matrix)
    DeviceBuffer interleaved;   // the batch's frames 16 side by side, for integrate
    DeviceBuffer stage_values, stage_indices;  // pixels the decode kernel lists, per tile
    TransferBuffer powder_host;
    // Recorded after the group's host-to-device copies: the staging and meta buffers may be
    // refilled once it has completed, though the group's kernels may still be running.
    Event uploaded;
    bool pending = false;
    std::size_t first = 0, count = 0;

    std::uint64_t* meta() const { return reinterpret_cast<std::uint64_t*>(meta_host.data()); }
};

class GpuEngine {
public:
    std::size_t ni, nj, npix;
    PixelType type;
    std::size_t bpp;
    Chunk2SparseOptions options;
    std::vector<std::uint8_t> mask_host;
    PrimaryContext ctx;
    DeviceInfo info;
    Module module;
    CUfunction f_unblock, f_parse, f_decode, f_scan, f_offsets, f_write;
    unsigned warps_per_decode = 1;
    abi::FrameGeometry geometry{};
    std::size_t cap;
    std::size_t max_chunk_bytes;  // of a chunk that can decode to one frame
    // 1/16 of the device memory free when the object was made: a group's chunks and lists take
    // at most twice this, a batch's frames and sequences at most once, so the two slots
    // together stay under 6/16 of what was free.
    std::size_t memory_budget;
    unsigned batch, group;
    std::shared_ptr<const DeviceMask> mask;
    // With a matrix (Chunk2SparseCSC): the shared device matrix and the integrate kernel.
    std::shared_ptr<const DeviceMatrix> matrix;
    Accumulator acc = Accumulator::f64;
    CUfunction f_interleave = nullptr, f_integrate = nullptr;
    std::size_t bins = 0;
    double powder_scale = 1;
    bslz4::detail::HostBuffer powders;  // nframes x bins of the last call
    Slot slots[2];
    bslz4::Chunk2Sparse cpu;  // frames above cap, and the exact message for a bad chunk
    bslz4::detail::ThreadPool staging_threads;
    std::vector<StagingCopy> staging_copies;  // kept between calls: no allocation a call

    // Results of the last call.
    bslz4::detail::HostBuffer values, indices;
    std::vector<std::size_t> npixels;
    std::size_t host_frames = 0;
    double cut = 0;
    // What a call wants back: lists on the host (the default), and optionally the dense frames
    // or the powders in device arrays instead of the host.
    bool want_lists = true;
    DeviceArray* dense_out = nullptr;
    DeviceArray* powder_out = nullptr;

    GpuEngine(ByteView m, std::size_t ni_, std::size_t nj_, PixelType t, Chunk2SparseOptions o)
        : ni(ni_), nj(nj_), npix(ni_ * nj_), type(t), bpp(pixel_size(t)), options(o),
          mask_host(m.data, m.data + m.size), ctx(resolve_device(o.device)), info(device_info(ctx.ordinal())),
          cpu(m, ni_, nj_, t, {Codec::lz4, 1}),
          staging_threads(std::max(1u, std::min(kMaxStagingThreads, std::thread::hardware_concurrency()))) {
        if (o.codec != Codec::lz4)
            throw Error("the GPU decodes lz4 chunks only; use bslz4::Chunk2Sparse (CPU) for zstd");
        if (bpp > 4 || t == PixelType::u64 || t == PixelType::i64 || t == PixelType::f64)
            throw Error(std::string("the GPU decodes u8 u16 u32 i8 i16 i32 f32 pixels, not ") + pixel_type_name(t) +
                        "; use bslz4::Chunk2Sparse (CPU)");
        ScopedContext scope(ctx);
        module = load_kernels(info.sm, info.name);
        const std::string tn = pixel_type_name(t);
        f_unblock = kernel(module, "bslz4_unblock");
        f_parse = kernel(module, "bslz4_lz4_parse");
        f_decode = kernel(module, "bslz4_decode_" + tn);
        warps_per_decode = decode_warps(info);
        check(driver().cuFuncSetAttribute(f_decode, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                          static_cast<int>(warps_per_decode * abi::kSharedPerWarp)),
              "cuFuncSetAttribute(bslz4_decode, shared memory)");
        f_scan = kernel(module, "bslz4_scan_tiles");
        f_offsets = kernel(module, "bslz4_frame_offsets");
        f_write = kernel(module, "bslz4_write_" + tn);

        const std::size_t n = npix;
        const std::size_t shuffled = n - n % 8;
        geometry.frame_pixels = n;
        geometry.elem_size = static_cast<std::uint32_t>(bpp);
        geometry.block_elems = static_cast<std::uint32_t>(abi::kBlockBytes / bpp);
        geometry.n_blocks = static_cast<std::uint32_t>((shuffled + geometry.block_elems - 1) / geometry.block_elems);
        geometry.n_tiles = geometry.n_blocks + 1;
        geometry.last_block_elems =
            geometry.n_blocks ? static_cast<std::uint32_t>(shuffled - (geometry.n_blocks - 1) * std::size_t{geometry.block_elems}) : 0;
        geometry.tail_elems = static_cast<std::uint32_t>(n % 8);
        const std::size_t align_pixels = abi::kDenseAlign / bpp;
        geometry.dense_stride = (n + align_pixels - 1) / align_pixels * align_pixels;
        cap = n * bpp / (4 + bpp);
        // No LZ4 block of 8 kB is longer than kMaxCompressedBlock (LZ4_compressBound), so no
        // chunk the CPU decodes is longer than this; a longer one is refused before upload.
        max_chunk_bytes = kChunkHeaderBytes + std::size_t{geometry.n_blocks} * (kBlockHeaderBytes + abi::kMaxCompressedBlock) +
                          std::size_t{geometry.tail_elems} * bpp;

        const std::size_t frame_bytes = n * bpp;
        // Sized from the memory free now, not the card's: another process may hold most of it.
        std::size_t free_bytes = 0, card_bytes = 0;
        check(driver().cuMemGetInfo(&free_bytes, &card_bytes), "cuMemGetInfo");
        memory_budget = std::min(info.memory_bytes, free_bytes) / 16;
        const std::size_t budget = memory_budget;
        // Options asking for more are bounded: at most kMaxBatch and kMaxGroup, and what fits.
        batch = o.batch;
        if (batch == 0) {
            const std::size_t in_l2 = info.l2_bytes * 3 / 4 / frame_bytes;
            batch = in_l2 >= kMinL2Batch ? static_cast<unsigned>(std::min<std::size_t>(in_l2, kMaxBatch)) : kMaxBatch;
        }
        // A batch takes its dense frames, their interleaved copy (with a matrix) and, from
        // incompressible chunks, 8/3 bytes of LZ4 sequences a chunk byte: under 5 frames' bytes
        // a frame. A group takes its chunks and its lists: 2 frames' bytes a frame.
        batch = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>({batch, kMaxBatch, budget / (5 * frame_bytes)})));
        group = o.group ? o.group : kMaxGroup;
        group = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>({group, kMaxGroup, budget / frame_bytes})));
        batch = std::min(batch, group);

        mask = shared_mask(ctx.ordinal(), mask_host);
        for (Slot& s : slots) {
            s.stream = make_stream();
            s.uploaded = make_event();
            s.meta_host = TransferBuffer(group * (2 + geometry.n_blocks + 1) * sizeof(std::uint64_t), "frame offsets");
            s.chunk_offset = DeviceBuffer(group * 8, "chunk offsets");
            s.chunk_length = DeviceBuffer(group * 8, "chunk lengths");
            s.block_offset = DeviceBuffer(std::size_t{group} * geometry.n_blocks * 8, "block offsets");
            s.tail_offset = DeviceBuffer(group * 8, "tail offsets");
            s.status = DeviceBuffer(group * 4, "frame status");
            s.tile_count = DeviceBuffer(std::size_t{group} * geometry.n_tiles * 4, "tile counts");
            s.tile_offset = DeviceBuffer(std::size_t{group} * geometry.n_tiles * 4, "tile offsets");
            s.seq_first = DeviceBuffer((group + 1) * 8, "sequence slots");
            s.seq_first_host = TransferBuffer((group + 1) * 8, "sequence slots");
            s.seq_count = DeviceBuffer(std::size_t{group} * geometry.n_blocks * 4, "sequence counts");
            s.npixels = DeviceBuffer(group * 8, "pixel counts");
            s.frame_offset = DeviceBuffer(group * 8, "list offsets");
            s.offsets_host = TransferBuffer(group * 8, "list offsets");
            s.dense = DeviceBuffer(std::size_t{batch} * geometry.dense_stride * bpp, "dense frames");
            const std::size_t staged = std::size_t{batch} * geometry.n_tiles * abi::kStagedPerTile;
            s.stage_values = DeviceBuffer(staged * bpp, "staged values");
            s.stage_indices = DeviceBuffer(staged * 4, "staged indices");
            s.values = DeviceBuffer(std::size_t{group} * cap * bpp, "listed values");
            s.indices = DeviceBuffer(std::size_t{group} * cap * 4, "listed indices");
            s.status_host = TransferBuffer(group * 4, "frame status");
            s.npixels_host = TransferBuffer(group * 8, "pixel counts");
        }
    }

    // Makes this engine an integrator: the mask folded into the matrix, shared on the device.
    void add_matrix(const IntegrationMatrix& m, Accumulator a) {
        bslz4::detail::check_integrator(m, ni, nj, type, a);
        ScopedContext scope(ctx);
        matrix = shared_matrix(ctx.ordinal(), fold_mask(m, mask_host));
        acc = a;
        bins = m.bins;
        powder_scale = m.fixed_point() ? m.powder_scale : 1;
        f_interleave = kernel(module, std::string("bslz4_interleave_") + pixel_type_name(type));
        f_integrate = kernel(module, std::string("bslz4_integrate_") + pixel_type_name(type) + "_" + accumulator_name(a));
        const std::size_t bytes = std::size_t{group} * bins * accumulator_size(acc);
        const std::size_t passes = (batch + abi::kFramesPerPass - 1) / abi::kFramesPerPass;
        for (Slot& s : slots) {
            s.powder = DeviceBuffer(bytes, "powders");
            s.powder_host = TransferBuffer(bytes, "powders");
            s.interleaved = DeviceBuffer(passes * abi::kFramesPerPass * npix * bpp, "interleaved frames");
        }
    }

    Powder powder_view(std::size_t nframes) const {
        return {nframes, bins, acc, powders.data(), powder_scale};
    }

    // The CPU decoder's verdict on a chunk: "" when it decodes, else its exact message.
    std::string cpu_rejection(ByteView chunk) const {
        try {
            block_starts(chunk, bpp, npix * bpp);
            std::vector<std::uint8_t> scratch(npix * bpp);
            decode_chunk_into(chunk, bpp, Codec::lz4, scratch.data(), scratch.size());
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    }

    std::string fault_text(std::uint32_t status, ByteView chunk) const {
        // The CPU decoder names the fault exactly; the GPU's code is the fallback.
        std::string cpu = cpu_rejection(chunk);
        if (!cpu.empty()) return cpu;
        const std::uint32_t block = status >> 8;
        return (block ? "block " + std::to_string(block - 1) + ": " : std::string()) + fault_name(status & 0xFF) +
               " (found by the GPU; the CPU decoder accepts this chunk)";
    }

    // Writes the group's chunk offsets and lengths, and copies its chunks into the slot's
    // staging (unless they are in one PinnedHostMemory, uploaded by DMA straight from there),
    // once the slot's previous uploads have read them: the kernels of the slot's previous group
    // may still be running, so nothing on the device is touched here.
    template <class ChunkOf>
    Staged stage(Slot& s, std::size_t first, std::size_t count, ChunkOf&& chunk_of) {
        check(driver().cuEventSynchronize(s.uploaded.get()), "cuEventSynchronize");
        std::uint64_t* offs = s.meta();
        std::uint64_t* lens = offs + count;
        check_before_upload(first, count, chunk_of);
        const std::uint8_t* lo = nullptr;
        const std::uint8_t* hi = nullptr;
        for (std::size_t k = 0; k < count; ++k) {
            const ByteView c = chunk_of(first + k);
            if (!lo || c.data < lo) lo = c.data;
            if (!hi || c.data + c.size > hi) hi = c.data + c.size;
        }
        if (lo && hi - lo <= static_cast<std::ptrdiff_t>(2 * total_bytes(first, count, chunk_of) + 4096) &&
            is_pinned_range(lo, hi)) {
            for (std::size_t k = 0; k < count; ++k) {
                const ByteView c = chunk_of(first + k);
                offs[k] = static_cast<std::uint64_t>(c.data - lo);
                lens[k] = c.size;
            }
            return {lo, static_cast<std::size_t>(hi - lo)};
        }
        std::uint64_t total = 0;
        for (std::size_t k = 0; k < count; ++k) {
            const ByteView c = chunk_of(first + k);
            offs[k] = total;
            lens[k] = c.size;
            total += (c.size + 15) / 16 * 16;
        }
        grow_staging(s, total);
        staging_copies.clear();
        for (std::size_t k = 0; k < count; ++k) {
            const ByteView c = chunk_of(first + k);
            for (std::size_t at = 0; at < c.size; at += kStagingPiece)
                staging_copies.push_back({s.chunks_host.data() + offs[k] + at, c.data + at, std::min(kStagingPiece, c.size - at)});
        }
        if (staging_copies.size() == 1) {
            std::memcpy(staging_copies[0].to, staging_copies[0].from, staging_copies[0].bytes);
        } else if (!staging_copies.empty()) {
            staging_threads.run(staging_copies.size(), [this](std::size_t t, unsigned) {
                const StagingCopy& p = staging_copies[t];
                std::memcpy(p.to, p.from, p.bytes);
            });
        }
        return {s.chunks_host.data(), total};
    }

    template <class ChunkOf>
    static std::size_t total_bytes(std::size_t first, std::size_t count, ChunkOf&& chunk_of) {
        std::size_t n = 0;
        for (std::size_t k = 0; k < count; ++k) n += chunk_of(first + k).size;
        return n;
    }

    // Room for `total` packed bytes in the staging buffer, grown apart from the device buffer
    // (upload grows that, once the slot's kernels are done with it).
    static void grow_staging(Slot& s, std::size_t total) {
        if (s.chunks_host.size() >= total) return;
        const std::size_t grown = std::max<std::size_t>(total, s.chunks_host.size() * 5 / 4);
        s.chunks_host = TransferBuffer();
        s.chunks_host = TransferBuffer(grown, "chunk staging");
    }

    // Makes `buffer` at least `need` bytes: a quarter more when it grows (fewer regrowths), or
    // just `need` when the device has no room for the quarter. The old buffer goes first, so
    // its memory can be reused; after an error it is empty, and the next call grows it again.
    static void grow_device(DeviceBuffer& buffer, std::size_t need, const char* what) {
        if (buffer.size() >= need) return;
        const std::size_t roomy = std::max<std::size_t>(need, buffer.size() * 5 / 4);
        buffer = DeviceBuffer();
        try {
            buffer = DeviceBuffer(roomy, what);
        } catch (const CudaError& e) {
            if (e.result() != CUDA_ERROR_OUT_OF_MEMORY || roomy == need) throw;
            buffer = DeviceBuffer(need, what);
        }
    }

    // The chunks, their offsets and lengths, and where each frame's LZ4 sequences will go: a
    // run of length / kInputBytesPerSequence + 2 slots a frame, the runs of one parse launch end
    // to end (kernel_abi.h says why that is always room enough).
    void upload(Slot& s, const std::uint8_t* from, std::size_t bytes, std::size_t count) {
        grow_device(s.chunks_dev, bytes + abi::kChunkPadding, "chunks");
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
        for (std::size_t b0 = 0; b0 < count; b0 += batch)
            batch_bytes = std::max<std::size_t>(batch_bytes, (seq_first[std::min(b0 + batch, count)] - seq_first[b0]) * 8);
        const std::size_t batches = (count + batch - 1) / batch;
        s.parse_span = static_cast<unsigned>(std::max<std::size_t>(1, std::min(batches, memory_budget / 4 / batch_bytes)));
        const std::size_t span_bytes = batch_bytes * s.parse_span;
        grow_device(s.sequences, span_bytes, "LZ4 sequences");
        const CUstream st = s.stream.get();
        check(driver().cuMemcpyHtoDAsync(s.chunks_dev.get(), from, bytes, st), "cuMemcpyHtoDAsync(chunks)");
        check(driver().cuMemcpyHtoDAsync(s.chunk_offset.get(), offs, count * 8, st), "cuMemcpyHtoDAsync(offsets)");
        check(driver().cuMemcpyHtoDAsync(s.chunk_length.get(), lens, count * 8, st), "cuMemcpyHtoDAsync(lengths)");
        check(driver().cuMemcpyHtoDAsync(s.seq_first.get(), seq_first, (count + 1) * 8, st),
              "cuMemcpyHtoDAsync(sequence slots)");
    }

    // Frame `bad` of the group from `first` is refused on the host, for `why`, before the
    // kernels could look at the frames ahead of it: the error names the group's first frame the
    // CPU rejects, as the CPU would, else `bad`.
    template <class ChunkOf>
    [[noreturn]] void refuse(std::size_t first, std::size_t bad, const std::string& why, ChunkOf&& chunk_of) const {
        for (std::size_t f = first; f < bad; ++f) {
            const std::string earlier = cpu_rejection(chunk_of(f));
            if (!earlier.empty()) throw Error("frame " + std::to_string(f) + ": " + earlier);
        }
        throw Error("frame " + std::to_string(bad) + ": " + why);
    }

    // What is refused before upload: a block size the GPU does not decode, and a chunk longer
    // than any chunk of one frame (so no lying length sizes an allocation). A chunk the CPU
    // rejects too gets the CPU's message.
    template <class ChunkOf>
    void check_before_upload(std::size_t first, std::size_t count, ChunkOf&& chunk_of) const {
        for (std::size_t k = 0; k < count; ++k) {
            const ByteView c = chunk_of(first + k);
            std::uint32_t field = 0;
            if (c.size >= kChunkHeaderBytes)
                field = (std::uint32_t{c.data[8]} << 24) | (std::uint32_t{c.data[9]} << 16) | (std::uint32_t{c.data[10]} << 8) |
                        c.data[11];
            const bool other_blocks = field != 0 && field != abi::kBlockBytes;
            if (!other_blocks && c.size <= max_chunk_bytes) continue;
            std::string why = cpu_rejection(c);
            if (why.empty() && other_blocks)
                why = "block size " + std::to_string(field) +
                      " bytes; the GPU decodes 8192-byte blocks only: use bslz4::Chunk2Sparse (CPU)";
            if (why.empty())
                why = "chunk of " + std::to_string(c.size) + " bytes, longer than any chunk of one frame (" +
                      std::to_string(max_chunk_bytes) + " bytes)";
            refuse(first, first + k, why, chunk_of);
        }
    }

    template <class ChunkOf>
    void unblock_on_host(Slot& s, std::size_t first, std::size_t count, ChunkOf&& chunk_of) {
        std::uint64_t* offs = s.meta();
        std::uint64_t* blocks = offs + 2 * count;
        std::uint64_t* tails = blocks + count * geometry.n_blocks;
        auto* status = reinterpret_cast<std::uint32_t*>(s.status_host.data());
        for (std::size_t k = 0; k < count; ++k) {
            const ByteView c = chunk_of(first + k);
            BlockLayout layout;
            try {
                layout = block_starts(c, bpp, npix * bpp);
            } catch (const Error& e) {
                refuse(first, first + k, e.what(), chunk_of);
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

    // The kernels of one group (frames first.. of the call), already uploaded: unblock (gpu),
    // then batch by batch decode, integrate (with a matrix), and scan and write the lists.
    void kernels(Slot& s, std::size_t first, std::size_t count, const abi::Cut& c, bool gpu_unblock) {
        const CUstream st = s.stream.get();
        const auto n = static_cast<std::uint32_t>(count);
        if (gpu_unblock)
            launch(f_unblock, "bslz4_unblock", {(n + abi::kUnblockThreads - 1) / abi::kUnblockThreads, 1, abi::kUnblockThreads, 0},
                   st, s.chunks_dev.as<const std::uint8_t>(), s.chunk_offset.as<const std::uint64_t>(),
                   s.chunk_length.as<const std::uint64_t>(), n, geometry, s.block_offset.as<std::uint64_t>(),
                   s.tail_offset.as<std::uint64_t>(), s.status.as<std::uint32_t>());
        const unsigned tiles_x = (geometry.n_tiles + abi::kWarpsPerCta - 1) / abi::kWarpsPerCta;
        for (std::uint32_t b0 = 0; b0 < n; b0 += batch) {
            const std::uint32_t nb = std::min<std::uint32_t>(batch, n - b0);
            const std::uint32_t span_first = b0 / (batch * s.parse_span) * (batch * s.parse_span);
            if (b0 == span_first && geometry.n_blocks) {  // a frame of fewer than 8 pixels is all raw tail
                const std::uint32_t span = std::min<std::uint32_t>(batch * s.parse_span, n - b0);
                launch(f_parse, "bslz4_lz4_parse", {(geometry.n_blocks + abi::kParseThreads - 1) / abi::kParseThreads, span, abi::kParseThreads, 0},
                       st, s.chunks_dev.as<const std::uint8_t>(), s.chunk_offset.as<const std::uint64_t>(),
                       s.block_offset.as<const std::uint64_t>(), s.seq_first.as<const std::uint64_t>(),
                       s.status.as<std::uint32_t>(), b0, geometry, s.sequences.as<void>(), s.seq_count.as<std::uint32_t>());
            }
            launch(f_decode, "bslz4_decode",
                   {(geometry.n_tiles + warps_per_decode - 1) / warps_per_decode, nb, warps_per_decode * 32,
                    warps_per_decode * abi::kSharedPerWarp},
                   st, s.chunks_dev.as<const std::uint8_t>(), s.chunk_offset.as<const std::uint64_t>(),
                   s.block_offset.as<const std::uint64_t>(), s.tail_offset.as<const std::uint64_t>(),
                   s.seq_first.as<const std::uint64_t>(), s.sequences.as<const void>(),
                   s.seq_count.as<const std::uint32_t>(), s.status.as<const std::uint32_t>(), span_first, b0, geometry,
                   mask->bytes.as<const std::uint8_t>(), c, s.dense.as<void>(), int{matrix || dense_out},
                   s.stage_values.as<void>(), s.stage_indices.as<std::uint32_t>(), s.tile_count.as<std::uint32_t>());
            if (dense_out) {
                const std::size_t frame_bytes = npix * bpp;
                for (std::uint32_t j = 0; j < nb; ++j)
                    check(driver().cuMemcpyDtoDAsync(dense_out->device_pointer() + (first + b0 + j) * frame_bytes,
                                                     s.dense.get() + std::size_t{j} * geometry.dense_stride * bpp,
                                                     frame_bytes, st),
                          "cuMemcpyDtoDAsync(dense frame)");
            }
            if (matrix) {
                const std::uint32_t passes = (nb + abi::kFramesPerPass - 1) / abi::kFramesPerPass;
                launch(f_interleave, "bslz4_interleave",
                       {static_cast<unsigned>((npix + abi::kInterleaveThreads - 1) / abi::kInterleaveThreads), passes,
                        abi::kInterleaveThreads, 0},
                       st, s.dense.as<const void>(), geometry.dense_stride, nb, std::uint64_t{npix}, s.interleaved.as<void>());
                launch(f_integrate, "bslz4_integrate", {static_cast<unsigned>(bins), 1, 128, 0}, st, s.interleaved.as<const void>(),
                       std::uint64_t{npix}, nb, matrix->row_start.as<const std::uint32_t>(),
                       matrix->pixel.as<const std::uint32_t>(), matrix->weight.as<const void>(),
                       static_cast<std::uint32_t>(bins), s.powder.as<std::uint8_t>() + std::size_t{b0} * bins * accumulator_size(acc));
            }
            if (!want_lists) continue;
            launch(f_scan, "bslz4_scan_tiles", {nb, 1, abi::kScanThreads, 0}, st, s.tile_count.as<const std::uint32_t>(),
                   geometry.n_tiles, b0, s.tile_offset.as<std::uint32_t>(), s.npixels.as<std::uint64_t>());
            launch(f_offsets, "bslz4_frame_offsets", {1, 1, 32, 0}, st, s.npixels.as<const std::uint64_t>(),
                   s.status.as<const std::uint32_t>(), b0, nb, std::uint64_t{cap}, s.frame_offset.as<std::uint64_t>());
            launch(f_write, "bslz4_write", {tiles_x, nb, abi::kWarpsPerCta * 32, 0}, st, s.dense.as<const void>(), b0,
                   geometry, mask->bytes.as<const std::uint8_t>(), c, s.tile_count.as<const std::uint32_t>(),
                   s.tile_offset.as<const std::uint32_t>(),
                   s.npixels.as<const std::uint64_t>(), s.status.as<const std::uint32_t>(), std::uint64_t{cap},
                   s.frame_offset.as<const std::uint64_t>(), s.stage_values.as<const void>(),
                   s.stage_indices.as<const std::uint32_t>(), s.values.as<void>(), s.indices.as<std::uint32_t>());
        }
    }

    // Uploads a staged group (its slot's previous group finished) and queues its kernels and
    // the download of its statuses and counts.
    template <class ChunkOf>
    void submit(Slot& s, const Staged& in, std::size_t first, std::size_t count, const abi::Cut& c, ChunkOf&& chunk_of) {
        upload(s, in.from, in.bytes, count);
        const bool gpu_unblock = options.unblock == Unblock::gpu;
        if (!gpu_unblock) unblock_on_host(s, first, count, chunk_of);
        const CUstream st = s.stream.get();
        check(driver().cuEventRecord(s.uploaded.get(), st), "cuEventRecord");
        kernels(s, first, count, c, gpu_unblock);
        if (matrix) {
            const std::size_t row = bins * accumulator_size(acc);
            if (powder_out)
                check(driver().cuMemcpyDtoDAsync(powder_out->device_pointer() + first * row, s.powder.get(), count * row, st),
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
        s.pending = true;
        s.first = first;
        s.count = count;
    }

    template <class ChunkOf>
    void finish(Slot& s, ChunkOf&& chunk_of) {
        if (!s.pending) return;
        s.pending = false;
        const CUstream st = s.stream.get();
        check(driver().cuStreamSynchronize(st), "cuStreamSynchronize");
        const auto* status = reinterpret_cast<const std::uint32_t*>(s.status_host.data());
        const auto* counts = reinterpret_cast<const std::uint64_t*>(s.npixels_host.data());
        for (std::size_t k = 0; k < s.count; ++k)
            if (status[k] != abi::kFrameOk)
                throw Error("frame " + std::to_string(s.first + k) + ": " + fault_text(status[k], chunk_of(s.first + k)));
        if (matrix && !powder_out) {
            const std::size_t row = bins * accumulator_size(acc);
            std::memcpy(powders.data() + s.first * row, s.powder_host.data(), s.count * row);
        }
        if (!want_lists) return;
        // Every list of the group, packed, in two copies.
        const auto* starts = reinterpret_cast<const std::uint64_t*>(s.offsets_host.data());
        std::size_t total = 0;
        for (std::size_t k = 0; k < s.count; ++k)
            if (counts[k] <= cap) total = std::max<std::size_t>(total, starts[k] + counts[k]);
        const std::size_t index_at = (total * bpp + 15) / 16 * 16;
        if (s.lists_host.size() < index_at + total * 4) {
            const std::size_t grown = std::max<std::size_t>(index_at + total * 4, s.lists_host.size() * 5 / 4);
            s.lists_host = TransferBuffer();
            s.lists_host = TransferBuffer(grown, "lists");
        }
        if (total) {
            check(driver().cuMemcpyDtoHAsync(s.lists_host.data(), s.values.get(), total * bpp, st), "cuMemcpyDtoHAsync(values)");
            check(driver().cuMemcpyDtoHAsync(s.lists_host.data() + index_at, s.indices.get(), total * 4, st),
                  "cuMemcpyDtoHAsync(indices)");
            check(driver().cuStreamSynchronize(st), "cuStreamSynchronize");
        }
        for (std::size_t k = 0; k < s.count; ++k) {
            const std::size_t f = s.first + k, n = counts[k];
            std::uint8_t* v = values.data() + f * npix * bpp;
            auto* idx = reinterpret_cast<std::uint32_t*>(indices.data()) + f * npix;
            npixels[f] = n;
            if (n > cap) {  // not sparse: listed on the host
                const SparseFrame h = cpu(chunk_of(f), cut);
                std::memcpy(v, h.values, h.npixels * bpp);
                std::memcpy(idx, h.indices, h.npixels * 4);
                npixels[f] = h.npixels;
                ++host_frames;
                continue;
            }
            std::memcpy(v, s.lists_host.data() + starts[k] * bpp, n * bpp);
            std::memcpy(idx, s.lists_host.data() + index_at + starts[k] * 4, n * 4);
        }
    }

    void abandon() noexcept {
        for (Slot& s : slots) {
            if (s.stream) driver().cuStreamSynchronize(s.stream.get());
            s.pending = false;
        }
    }

    template <class ChunkOf>
    SparseBatch run(std::size_t nframes, double cut_value, ChunkOf&& chunk_of) {
        ScopedContext scope(ctx);
        cut = cut_value;
        host_frames = 0;
        npixels.assign(nframes, 0);
        if (want_lists) {
            values.reserve(nframes * npix * bpp);
            indices.reserve(nframes * npix * 4);
        }
        if (matrix && !powder_out) powders.reserve(nframes * bins * accumulator_size(acc));
        const abi::Cut c = make_cut(type, cut_value);
        try {
            std::size_t g = 0;
            // The first group of a call is one batch, so the kernels start after a short upload
            // and the uploads of the full groups that follow overlap them.
            // A group is staged before its slot's previous group is finished: its copies overlap
            // that group's last kernels as well as the other slot's upload and kernels.
            for (std::size_t first = 0, size = batch; first < nframes; first += size, size = group, ++g) {
                Slot& s = slots[g % 2];
                Slot& other = slots[(g + 1) % 2];
                const std::size_t count = std::min<std::size_t>(size, nframes - first);
                Staged in;
                try {
                    in = stage(s, first, count, chunk_of);
                } catch (const Error&) {
                    finish(s, chunk_of);  // an earlier frame's fault is reported first
                    finish(other, chunk_of);
                    throw;
                }
                finish(s, chunk_of);
                try {
                    submit(s, in, first, count, c, chunk_of);
                } catch (const Error&) {
                    finish(other, chunk_of);  // an earlier frame's fault is reported first
                    throw;
                }
            }
            finish(slots[g % 2], chunk_of);
            finish(slots[(g + 1) % 2], chunk_of);
        } catch (...) {
            abandon();
            throw;
        }
        return {nframes, npix, npixels.data(), values.data(), reinterpret_cast<const std::uint32_t*>(indices.data()), type};
    }

    // Kernel time alone, for the bench: the chunks (at most a group) are uploaded once into
    // each slot, then unblocked, decoded, integrated and listed `repeats` times, the slots'
    // streams taking turns as they do in a long call, between two device events.
    double time_kernels(const std::vector<ByteView>& chunks, double cut_value, unsigned repeats) {
        if (chunks.empty() || chunks.size() > group)
            throw Error("time_on_device takes 1 to group() = " + std::to_string(group) + " chunks");
        ScopedContext scope(ctx);
        const abi::Cut c = make_cut(type, cut_value);
        auto chunk_of = [&](std::size_t f) { return chunks[f]; };
        try {
            for (Slot& s : slots) {
                const Staged in = stage(s, 0, chunks.size(), chunk_of);
                upload(s, in.from, in.bytes, chunks.size());
                check(driver().cuEventRecord(s.uploaded.get(), s.stream.get()), "cuEventRecord");
                kernels(s, 0, chunks.size(), c, true);  // warm-up, and a check that the chunks are good
            }
            for (Slot& s : slots) check(driver().cuStreamSynchronize(s.stream.get()), "cuStreamSynchronize");
            Event start = make_event(true), stop = make_event(true), other_done = make_event(false);
            const CUstream first = slots[0].stream.get(), second = slots[1].stream.get();
            check(driver().cuEventRecord(start.get(), first), "cuEventRecord");
            check(driver().cuStreamWaitEvent(second, start.get(), 0), "cuStreamWaitEvent");
            for (unsigned r = 0; r < repeats; ++r) kernels(slots[r % 2], 0, chunks.size(), c, true);
            check(driver().cuEventRecord(other_done.get(), second), "cuEventRecord");
            check(driver().cuStreamWaitEvent(first, other_done.get(), 0), "cuStreamWaitEvent");
            check(driver().cuEventRecord(stop.get(), first), "cuEventRecord");
            check(driver().cuEventSynchronize(stop.get()), "cuEventSynchronize");
            float ms = 0;
            check(driver().cuEventElapsedTime(&ms, start.get(), stop.get()), "cuEventElapsedTime");
            return ms / 1e3;
        } catch (...) {
            abandon();
            throw;
        }
    }

    // decompress / integrate: the dense frames or the powders of chunks, left on the device.
    template <class ChunkOf>
    DeviceArray run_to_device(std::size_t nframes, bool frames, ChunkOf&& chunk_of) {
        const std::vector<std::size_t> shape = frames ? std::vector<std::size_t>{nframes, ni, nj}
                                                      : std::vector<std::size_t>{nframes, bins};
        const std::size_t bytes = frames ? nframes * npix * bpp : nframes * bins * accumulator_size(acc);
        DeviceArray out(std::make_unique<DeviceArrayState>(ctx.ordinal(), shape,
                                                           frames ? pixel_type_name(type) : accumulator_name(acc), bytes));
        struct Restore {
            GpuEngine& e;
            ~Restore() {
                e.want_lists = true;
                e.dense_out = nullptr;
                e.powder_out = nullptr;
            }
        } restore{*this};
        want_lists = false;
        (frames ? dense_out : powder_out) = &out;
        run(nframes, 0.0, chunk_of);
        return out;
    }
};

// Checks the arguments every GPU class shares, then builds the engine.
inline std::unique_ptr<GpuEngine> make_engine(ByteView mask, std::size_t ni, std::size_t nj, PixelType type,
                                              Chunk2SparseOptions options) {
    bslz4::detail::check_frame_mask(mask, ni, nj);
    const std::string why = unavailable_reason();
    if (!why.empty()) throw Error(why);
    return std::make_unique<GpuEngine>(mask, ni, nj, type, options);
}

}  // namespace bslz4::cuda::detail
