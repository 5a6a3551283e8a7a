// What the host runtime and the kernels agree on: launch shapes, limits and the per-frame
// status word. Included by both nvcc (kernels/) and the C++ runtime (runtime/cuda/).
#pragma once
#include <stdint.h>

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
// integrate sums 16 frames a pass, from a copy of the batch with each pass's 16 frames side
// by side (interleave.cu).
constexpr unsigned kFramesPerPass = 16;
constexpr unsigned kInterleaveThreads = 256;
// integrate: blocks of kIntegrateThreads, a warp a matrix row (kIntegrateWarps rows a block) or
// the whole block a row; the host picks which by the matrix (group_kernels.cpp).
constexpr unsigned kIntegrateThreads = 128;
constexpr unsigned kIntegrateWarps = kIntegrateThreads / 32;
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

}  // namespace bslz4_abi
