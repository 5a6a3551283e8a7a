// What the host runtime and the kernels agree on: launch shapes, limits and the per-frame
// status word. Included by both nvcc (kernels/) and the C++ runtime (runtime/cuda/).
#pragma once
#include <stdint.h>

// Functions both sides compute the same way.
#ifdef __CUDACC__
#define BSLZ4_ABI_FUNCTION __host__ __device__ constexpr
#else
#define BSLZ4_ABI_FUNCTION constexpr
#endif

namespace bslz4_abi {

// The GPU decodes bitshuffle's default 8 kB blocks: one block is one warp's work, held in
// shared memory while it is decoded.
constexpr unsigned kBlockBytes = 8192;
// LZ4_compressBound(8192) = 8192 + 8192/255 + 16: no valid LZ4 block of 8 kB is longer.
constexpr unsigned kMaxCompressedBlock = 8240;
constexpr unsigned kWarpsPerCta = 4;    // write kernel: 4 warps, one tile each
constexpr unsigned kSharedPerWarp = kBlockBytes;
// decode kernel: one tile a warp, and as many warps a block (at most this) as fill the most
// warps per multiprocessor, which its shared memory bounds; the host picks (gpu_engine.hpp).
constexpr unsigned kMaxDecodeWarps = 8;
// Dense frames on the device start every kDenseAlign bytes, so 16-byte stores stay aligned.
constexpr unsigned kDenseAlign = 256;
constexpr unsigned kScanThreads = 1024;
constexpr unsigned kUnblockThreads = 256;  // unblock: one block a frame, loading its chunk into shared memory
constexpr unsigned kParseThreads = 128;  // lz4_parse: one thread a block
constexpr unsigned kParseWarps = 4;      // lz4_parse_warp: one warp a block
constexpr unsigned kGatherThreads = 256;  // gather: one block a chunk
// integrate_tiles: a block of kTileThreads a tile of kTileSide x kTileSide pixels of the
// frame (the host's tile_matrix.hpp says how the matrix is regrouped for it), with up to
// kTileStagedEntries of the tile's matrix entries in its shared memory; reduce_tiles: blocks of
// kReduceWarps warps, a bin a warp and 32 frames a block. A launch of integrate_tiles sums at
// most kTileLaunchFrames frames when the matrix's bins are scattered (group_kernels.cpp).
constexpr unsigned kTileSide = 32;
constexpr unsigned kTilePixels = kTileSide * kTileSide;
constexpr unsigned kTileThreads = 256;
constexpr unsigned kTileStagedEntries = 2560;
constexpr unsigned kReduceWarps = 8;
constexpr unsigned kTileLaunchFrames = 16;
// integrate_tiles' shared memory: a pass of frames (16, 8 of 4-byte pixels) of the tile, pixel by
// pixel (a pixel's pass of frames side by side: 32 bytes, 16 of 1-byte pixels), then the staged
// entries of entry_bytes each: a weight and its pixel's place in the tile, 8 bytes (a float
// weight; an int64 weight w, -2^47 <= w < 2^47, packed with its place) or 16 (any int64 weight).
BSLZ4_ABI_FUNCTION unsigned tile_pass_frames(unsigned pixel_bytes) { return pixel_bytes == 4 ? 8 : 16; }
BSLZ4_ABI_FUNCTION unsigned tile_shared_bytes(unsigned pixel_bytes, unsigned entry_bytes) {
    return kTilePixels * tile_pass_frames(pixel_bytes) * pixel_bytes + kTileStagedEntries * entry_bytes;
}
// Whether an int64 weight packs with its place (16 bits) into 8 bytes: -2^47 <= w < 2^47. A
// matrix all of whose weights do takes the _i64_packed kernels.
BSLZ4_ABI_FUNCTION bool weight_packs(long long w) { return w >= -(1LL << 47) && w < (1LL << 47); }
static_assert(weight_packs(-(1LL << 47)) && weight_packs((1LL << 47) - 1) && !weight_packs(1LL << 47) &&
                  !weight_packs(-(1LL << 47) - 1),
              "the packed entry's weight is a signed 48-bit integer");
// The decode kernel lists up to this many pixels of a tile itself, into the tile's staging
// slots (tile_staging.cuh); the write kernel then only copies them.
constexpr unsigned kStagedPerTile = 64;

// peak_labels: a thread a listed pixel, blocks of kPeakThreads; a batch has at most
// kMaxPeakFrames frames (its peaks' starts are scanned in one block's shared memory).
constexpr unsigned kPeakThreads = 256;
constexpr unsigned kMaxPeakFrames = 4096;

// Every LZ4 sequence but a block's last takes at least 3 input bytes (a token and a 2-byte
// offset), so a chunk of L bytes holds at most L / 3 + 2 sequences over all its blocks. The
// parse writes block b's sequences from slot (offset of b in its chunk) / 3 of its frame's
// run, and a frame's run of slots is L / 3 + 2 long: the runs never overlap.
constexpr unsigned kInputBytesPerSequence = 3;
// The chunk buffer on the device has this many bytes to spare past its last chunk: the parse
// reads its input in aligned 16-byte words.
constexpr unsigned kChunkPadding = 16;

// A frame's status: kFrameOk, or (block + 1) << 8 | code for a block's fault, or code alone
// for a fault of the chunk as a whole. Kernels keep the smallest (atomicMin), so the report
// is the first fault in the chunk whatever the thread timing.
constexpr uint32_t kFrameOk = 0xFFFFFFFFu;
enum FaultCode : uint32_t {
    kChunkShort = 1,        // shorter than the 12-byte header
    kSizeMismatch = 2,      // decoded size is not the frame size
    kBlockSize = 3,         // block size is not 8192 bytes
    kBlockPastEnd = 4,      // a block's length field or data runs past the chunk
    kTailShort = 5,         // the raw tail elements are cut off
    kLeftover = 6,          // bytes left after the last block and the tail
    kBlockTooLong = 7,      // compressed block longer than LZ4's bound for 8 kB
    kLz4Truncated = 8,      // a sequence runs past the block's end
    kLz4BadOffset = 9,      // a match offset of 0 or before the block's start
    kLz4TooMany = 10,       // decodes to more bytes than the block holds
    kLz4TooFew = 11,        // decodes to fewer bytes than the block holds
    kLz4EndOfBlock = 12,    // a match in the block's last 12 bytes, or ending in its last 5
};

// value > cut for the launch's pixel type: integers compare with an integer threshold
// (mode), f32 with a float threshold. Same rule as the CPU decoder.
enum CutMode : int32_t { kCutCompare = 0, kCutNone = 1, kCutAll = 2 };
struct Cut {
    int32_t mode;
    float cut_f32;      // f32: listed when value > cut_f32, the largest float not above cut,
                        // which is the CPU's (double)value > cut for every float value
    int64_t threshold;  // integers: listed when value > threshold
    double cut;         // the cut as given
};

// Top pixels (the seed's howmany / thresholds): a frame with more than `howmany` pixels above
// the cut keeps those above levels[L] too, L the first level fewer than howmany pixels pass
// (else the last), then the first howmany of them in pixel order. n_levels 0: simply the first
// howmany. Passed by value to the kernels that choose and list.
constexpr unsigned kMaxTopLevels = 16;
struct TopPixels {
    uint32_t active;    // 0: every pixel above the cut, as without top pixels
    uint32_t n_levels;
    uint64_t howmany;
    Cut levels[kMaxTopLevels];
};
// A frame's chosen level: one of 0 .. n_levels - 1, or kNoLevel when its list kept the call's
// cut (top pixels off, at most howmany pixels, or no levels).
constexpr int32_t kNoLevel = -1;

// Where a group's frames are: chunks packed in one buffer.
struct FrameGeometry {
    uint64_t frame_pixels;   // ni * nj
    uint32_t elem_size;      // bytes per pixel: 1, 2 or 4
    uint32_t block_elems;    // kBlockBytes / elem_size
    uint32_t n_blocks;       // compressed blocks a frame
    uint32_t n_tiles;        // n_blocks + 1: the last tile holds the raw tail
    uint32_t last_block_elems;
    uint32_t tail_elems;
    uint64_t dense_stride;   // pixels from one dense frame to the next (a multiple of kDenseAlign bytes)
};

// ---- Kernel arguments ----------------------------------------------------------------------
// Each kernel's arguments are one list, ARGS(F, N, T...): F names the first, N each next one,
// T the pixel (and weight, powder) types. The list makes both the kernel's parameters
// (BSLZ4_KERNEL_PARAMS) and the host's struct (BSLZ4_ARGS_STRUCT, T = void), so a field the
// kernel reads is a field the host fills by name, of the type the kernel takes, in its place.
// The struct travels as the launch's parameter buffer (runtime/cuda/kernel_launch.hpp), whose
// layout the runtime checks against the kernel's when it loads it. Separate parameters and not
// one struct parameter because the kernels' code stays as it was: a struct parameter costs the
// decode kernel 16 registers (64 -> 80, u16), which cost a fifth of its speed.
#define BSLZ4_PARAM_FIRST(type, name) type name
#define BSLZ4_PARAM_NEXT(type, name) , type name
#define BSLZ4_ARGS_FIELD(type, name) type name;
#define BSLZ4_KERNEL_PARAMS(list, ...) list(BSLZ4_PARAM_FIRST, BSLZ4_PARAM_NEXT, __VA_ARGS__)
#define BSLZ4_ARGS_STRUCT(Name, list, ...) \
    struct Name {                          \
        list(BSLZ4_ARGS_FIELD, BSLZ4_ARGS_FIELD, __VA_ARGS__)   \
    };

// An LZ4 sequence as the parse writes it: x the literal run, y the match (lz4_sequences.cuh).
#ifdef __CUDACC__
using SequenceWord = uint2;
#else
struct SequenceWord {
    uint32_t x, y;
};
#endif

// gather: chunks packed by the host at src_offset go to dst_offset.
#define BSLZ4_GATHER_ARGS(F, N, ...) \
    F(const uint8_t*, src) N(const uint64_t*, src_offset) N(const uint64_t*, length) N(uint8_t*, dst) \
    N(const uint64_t*, dst_offset) N(uint32_t, first)
// unblock: each frame's block and tail offsets from its chunk's block headers.
#define BSLZ4_UNBLOCK_ARGS(F, N, ...) \
    F(const uint8_t*, chunks) N(const uint64_t*, chunk_offset) N(const uint64_t*, chunk_length) \
    N(uint32_t, n_frames) N(bslz4_abi::FrameGeometry, g) N(uint64_t*, block_offset) N(uint64_t*, tail_offset) \
    N(uint32_t*, status)
// lz4_parse and lz4_parse_warp: each block's sequences, checked, from slot seq_first.
#define BSLZ4_PARSE_ARGS(F, N, ...) \
    F(const uint8_t*, chunks) N(const uint64_t*, chunk_offset) N(const uint64_t*, block_offset) \
    N(const uint64_t*, seq_first) N(uint32_t*, status) N(uint32_t, first_frame) N(bslz4_abi::FrameGeometry, g) \
    N(bslz4_abi::SequenceWord*, sequences) N(uint32_t*, seq_count)
// decode: the tiles of frames first_frame + blockIdx.y (span_first: the parse span's first).
#define BSLZ4_DECODE_ARGS(F, N, T) \
    F(const uint8_t*, chunks) N(const uint64_t*, chunk_offset) N(const uint64_t*, block_offset) \
    N(const uint64_t*, tail_offset) N(const uint64_t*, seq_first) N(const bslz4_abi::SequenceWord*, sequences) \
    N(const uint32_t*, seq_count) N(const uint32_t*, status) N(uint32_t, span_first) N(uint32_t, first_frame) \
    N(bslz4_abi::FrameGeometry, g) N(const uint8_t*, mask) N(bslz4_abi::Cut, cut) N(T*, dense) N(int, write_dense) \
    N(T*, stage_values) N(uint32_t*, stage_indices) N(uint32_t*, tile_count)
// scan_tiles: a frame's tile offsets and its count of listed pixels.
#define BSLZ4_SCAN_TILES_ARGS(F, N, ...) \
    F(const uint32_t*, tile_count) N(uint32_t, n_tiles) N(uint32_t, first_frame) N(uint32_t*, tile_offset) \
    N(uint64_t*, npixels)
// frame_offsets: where each frame's list starts in the group's packed lists.
#define BSLZ4_FRAME_OFFSETS_ARGS(F, N, ...) \
    F(const uint64_t*, npixels) N(const uint32_t*, status) N(uint32_t, first_frame) N(uint32_t, n_frames) \
    N(uint64_t, cap) N(uint64_t*, frame_offset)
// write: the frames' lists, from the staged pixels or the dense frame.
#define BSLZ4_WRITE_ARGS(F, N, T) \
    F(const T*, dense) N(uint32_t, first_frame) N(bslz4_abi::FrameGeometry, g) N(const uint8_t*, mask) N(bslz4_abi::Cut, cut) \
    N(const uint32_t*, tile_count) N(const uint32_t*, tile_offset) N(const uint64_t*, npixels) \
    N(const uint32_t*, status) N(uint64_t, cap) N(const uint64_t*, frame_offset) N(const T*, stage_values) \
    N(const uint32_t*, stage_indices) N(bslz4_abi::TopPixels, top) N(const int32_t*, frame_level) \
    N(const uint32_t*, level_count) N(T*, values) N(uint32_t*, indices)
// top_levels: each tile's count of pixels above each top-pixel level.
#define BSLZ4_TOP_LEVELS_ARGS(F, N, T) \
    F(const T*, dense) N(uint32_t, first_frame) N(bslz4_abi::FrameGeometry, g) N(const uint8_t*, mask) N(bslz4_abi::Cut, cut) \
    N(bslz4_abi::TopPixels, top) N(const uint32_t*, tile_count) N(const uint64_t*, npixels) N(const uint32_t*, status) \
    N(const T*, stage_values) N(uint32_t*, level_count)
// top_choose: each frame's level, list length and tile offsets at that level.
#define BSLZ4_TOP_CHOOSE_ARGS(F, N, ...) \
    F(bslz4_abi::TopPixels, top) N(uint32_t, first_frame) N(uint32_t, n_tiles) N(const uint32_t*, level_count) \
    N(const uint32_t*, status) N(uint64_t*, npixels) N(uint32_t*, tile_offset) N(int32_t*, frame_level) \
    N(uint64_t*, nabove)
// integrate_tiles: each slot's (a tile's bin's) sums of the batch's frames, into
// partial[slot * n_frames + frame]; W the weights (float or int64), A the sums.
#define BSLZ4_INTEGRATE_TILES_ARGS(F, N, T, W, A) \
    F(const T*, dense) N(uint64_t, dense_stride) N(uint32_t, rows) N(uint32_t, cols) N(uint32_t, tiles_x) \
    N(uint32_t, n_frames) N(const uint32_t*, tile_slot_first) N(const uint32_t*, slot_entry_first) \
    N(const uint16_t*, entry_pixel) N(const W*, entry_weight) N(A*, partial)
// reduce_tiles: powder[frame * bins + bin] = the sum of the bin's slots, in tile order.
#define BSLZ4_REDUCE_TILES_ARGS(F, N, A, O) \
    F(const A*, partial) N(uint32_t, n_frames) N(const uint32_t*, bin_slot_first) N(const uint32_t*, bin_slot) \
    N(uint32_t, bins) N(O*, powder) N(double, sum_to_f64)
// peak labels, a thread a listed pixel of the batch's frames (first: each frame's first pixel).
#define BSLZ4_PEAKS_IDENTITY_ARGS(F, N, ...) F(const uint64_t*, first) N(uint32_t*, link)
#define BSLZ4_PEAKS_SMOOTH_ARGS(F, N, ...) \
    F(const uint64_t*, first) N(const uint16_t*, row) N(const uint16_t*, col) N(const float*, value) \
    N(float*, smoothed)
#define BSLZ4_PEAKS_UPHILL_ARGS(F, N, ...) \
    F(const uint64_t*, first) N(const uint16_t*, row) N(const uint16_t*, col) N(const float*, smoothed) \
    N(uint32_t*, link)
#define BSLZ4_PEAKS_JOIN_ARGS(F, N, ...) \
    F(const uint64_t*, first) N(const uint16_t*, row) N(const uint16_t*, col) N(const float*, value) \
    N(uint32_t*, link)
#define BSLZ4_PEAKS_ROOTS_ARGS(F, N, ...) \
    F(const uint64_t*, first) N(const float*, value) N(int, above_zero_only) N(uint32_t*, link) \
    N(uint32_t*, is_root)
#define BSLZ4_PEAKS_NUMBER_ARGS(F, N, ...) \
    F(const uint64_t*, first) N(const uint32_t*, is_root) N(uint32_t*, number) N(uint32_t*, nlabels)
#define BSLZ4_PEAKS_FIRST_ARGS(F, N, ...) F(const uint32_t*, nlabels) N(uint32_t, frames) N(uint64_t*, peak_first)
#define BSLZ4_PEAKS_MEASURE_ARGS(F, N, ...) \
    F(const uint64_t*, first) N(const uint16_t*, row) N(const uint16_t*, col) N(const float*, value) \
    N(int, above_zero_only) N(const uint32_t*, link) N(const uint32_t*, number) N(const uint64_t*, peak_first) \
    N(int, has_wtmax) N(double, wtmax) N(int32_t*, labels) N(unsigned long long*, props)

// The host's side of each list: the kernel families' structs (pixel types void).
#define BSLZ4_KERNEL_ARGS(X)                                                    \
    X(GatherArgs, BSLZ4_GATHER_ARGS) X(UnblockArgs, BSLZ4_UNBLOCK_ARGS)         \
    X(ParseArgs, BSLZ4_PARSE_ARGS) X(DecodeArgs, BSLZ4_DECODE_ARGS)             \
    X(ScanTilesArgs, BSLZ4_SCAN_TILES_ARGS) X(FrameOffsetsArgs, BSLZ4_FRAME_OFFSETS_ARGS) \
    X(WriteArgs, BSLZ4_WRITE_ARGS) X(TopLevelsArgs, BSLZ4_TOP_LEVELS_ARGS)      \
    X(TopChooseArgs, BSLZ4_TOP_CHOOSE_ARGS) \
    X(PeaksIdentityArgs, BSLZ4_PEAKS_IDENTITY_ARGS) X(PeaksSmoothArgs, BSLZ4_PEAKS_SMOOTH_ARGS) \
    X(PeaksUphillArgs, BSLZ4_PEAKS_UPHILL_ARGS) X(PeaksJoinArgs, BSLZ4_PEAKS_JOIN_ARGS) \
    X(PeaksRootsArgs, BSLZ4_PEAKS_ROOTS_ARGS) X(PeaksNumberArgs, BSLZ4_PEAKS_NUMBER_ARGS) \
    X(PeaksFirstArgs, BSLZ4_PEAKS_FIRST_ARGS) X(PeaksMeasureArgs, BSLZ4_PEAKS_MEASURE_ARGS)
#define BSLZ4_DECLARE_ARGS(Name, list) BSLZ4_ARGS_STRUCT(Name, list, void)
BSLZ4_KERNEL_ARGS(BSLZ4_DECLARE_ARGS)
BSLZ4_ARGS_STRUCT(IntegrateTilesArgs, BSLZ4_INTEGRATE_TILES_ARGS, void, void, void)
BSLZ4_ARGS_STRUCT(ReduceTilesArgs, BSLZ4_REDUCE_TILES_ARGS, void, void)
#undef BSLZ4_DECLARE_ARGS

}  // namespace bslz4_abi
