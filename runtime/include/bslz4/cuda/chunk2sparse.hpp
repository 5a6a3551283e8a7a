// Chunk2Sparse on the GPU: the CPU class's call API, decoding on an NVIDIA GPU through the
// driver API alone (no CUDA runtime, no toolkit on the host). lz4 or zstd chunks of 8 kB blocks
// (zstd blocks are decompressed on the host by the staging threads; the bit unshuffle, cut,
// lists and powders run on the GPU), pixel types u8 u16 u32 i8 i16 i32 f32; anything else is
// refused with a message pointing to the CPU class. Results are host arrays identical to
// bslz4::Chunk2Sparse's.
//
// Threads: one object takes one call at a time. A call from a second thread while one runs
// throws Error (bad_argument: "... is in a call on another thread"), never a race on the object's
// buffers: a call's results are views of them, valid until the object's next call. The same
// thread may make calls from within a call. Objects are independent: one a thread run at once.
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/codec.hpp"
#include "bslz4/cuda/device_array.hpp"
#include "bslz4/frame_status.hpp"
#include "bslz4/pixel_type.hpp"
#include "bslz4/sparse_result.hpp"

namespace bslz4::cuda {

namespace detail {
class GpuEngine;
}

enum class Unblock { gpu, cpu };  // who walks the chunks' block headers

// Where the chunks of the calls to come will lie (reserve): ordinary memory, copied into the
// object's pinned staging; or pinned memory (PinnedHostMemory, given to from_buffer), uploaded
// by DMA from where it is, so lz4 chunks need no staging (zstd chunks are restaged anyway).
enum class ChunkMemory { pageable, pinned };

struct Chunk2SparseOptions {
    // Frames decoded together (their dense frames held on the GPU). 0: as many as fit in 3/4 of
    // the L2 cache when that is at least 8, else 64; at most 64; frames and lists of a batch
    // take at most 1/16 of the device memory free when the object is made (so a GPU mostly
    // held by another process gets smaller batches and groups, not an out-of-memory error).
    unsigned batch = 0;
    // Frames uploaded and unblocked together. 0: every frame of the call, at most 256, and at
    // most 1/16 of the free device memory of frames. The first group of a call is at most one
    // batch, and a call of 32 frames or more comes in at least 4 groups (of at least 8 frames),
    // so decoding starts while the next group uploads and results come back behind it.
    unsigned group = 0;
    // Who walks the block headers of groups of more than 4 frames; smaller groups (a one-frame
    // call's) are always walked on the host, where it is quicker. The results are the same.
    Unblock unblock = Unblock::gpu;
    int device = -1;  // -1: the device of the calling thread's current context, else 0
    // Codec::zstd: decompressed on the host as above; the same results, codes and messages as
    // the CPU class.
    Codec codec = Codec::lz4;
    // A bad frame in multi / from_buffer: throw (default) or report it in the batch and return
    // the others, as bslz4::Chunk2SparseOptions::on_error (the same codes and messages as the
    // CPU class; a chunk the GPU does not decode, of other than 8 kB blocks, is bad_argument, and
    // one the GPU refuses though the CPU decodes it is gpu_fault). operator(), coo, decompress
    // and integrate always throw.
    OnError on_error = OnError::throw_first;
    // Top pixels, as set_top_pixels(howmany, thresholds) below.
    std::optional<std::size_t> howmany = std::nullopt;
    std::optional<std::vector<double>> thresholds = std::nullopt;
};

class BSLZ4_API Chunk2Sparse {
public:
    // mask: ni*nj bytes, nonzero = use this pixel. Throws bslz4::Error when there is no usable
    // GPU (the message says why), or for a pixel type the GPU does not decode.
    Chunk2Sparse(ByteView mask, std::size_t ni, std::size_t nj, PixelType pixel_type, Chunk2SparseOptions options = {});
    ~Chunk2Sparse();
    Chunk2Sparse(Chunk2Sparse&&) noexcept;
    Chunk2Sparse& operator=(Chunk2Sparse&&) noexcept;

    SparseFrame operator()(ByteView chunk, double cut);
    SparseBatch multi(const std::vector<ByteView>& chunks, double cut);
    SparseBatch from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                            const std::vector<std::uint64_t>& lengths, double cut);
    // The same, the lists downloaded into the caller's rows (ListRows, bslz4/sparse_result.hpp)
    // while the later groups of the call are still on the GPU, rather than into this object's
    // buffers: no copy to make of them after the call (from_device takes them too).
    SparseBatch multi(const std::vector<ByteView>& chunks, double cut, const ListRows& into);
    SparseBatch from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                            const std::vector<std::uint64_t>& lengths, double cut, const ListRows& into);
    CooFrame coo(ByteView chunk, double cut);
    // The dense frames (nframes, ni, nj), left on the GPU in a new array owned by the caller.
    DeviceArray decompress(const std::vector<ByteView>& chunks);

    // Chunks already in GPU memory (a detector or GPUDirect Storage wrote them there): chunk f
    // is lengths[f] bytes at device_ptr + offsets[f]. device_ptr is a CUdeviceptr of this
    // object's device, as a plain integer; the ranges are checked against the device
    // allocation it lies in before anything runs (outside: bad_argument, or with
    // OnError::report a bad frame). The chunks are read on the device only, except a bad
    // frame's (for its message) and a frame listed on the host. Results as multi's, bit for
    // bit; lz4 chunks only (zstd chunks are decoded on the host: hand them to multi).
    SparseBatch from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                            const std::vector<std::uint64_t>& lengths, double cut);
    SparseBatch from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                            const std::vector<std::uint64_t>& lengths, double cut, const ListRows& into);
    DeviceArray decompress_from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                       const std::vector<std::uint64_t>& lengths);

    // Top pixels from the next call on, as bslz4::Chunk2Sparse::set_top_pixels (same results,
    // last_cut and last_nabove included). Chosen on the device: each frame's list holds at most
    // howmany pixels there, so a frame with more than cap() pixels above the cut is listed on the
    // host only when more than cap() are kept (howmany nullopt or above cap()).
    void set_top_pixels(std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds = std::nullopt);

    // Grows now what calls of up to `frames` chunks of up to `chunk_bytes` bytes each would grow on
    // their first run: the pinned staging the chunks are copied into, the device buffers for them,
    // their LZ4 sequences and their lists, and the host arrays of the results; so the first call is as
    // quick as the next. Takes what those calls would take, and nothing shrinks; a call with larger
    // chunks or more frames still grows what it needs. (zstd: what a chunk uploads is set by the
    // frame, whatever the chunk's length.) Chunks in pinned memory (ChunkMemory::pinned) skip the
    // staging.
    void reserve(std::size_t frames, std::size_t chunk_bytes, ChunkMemory chunks = ChunkMemory::pageable);

    // Frames of the last call with more than cap() pixels, listed on the host instead.
    std::size_t last_host() const;
    // Most pixels a frame's list may hold on the device: frame bytes / (4 + bytes per pixel).
    std::size_t cap() const;
    unsigned batch() const;
    unsigned group() const;
    int device() const;

    // Kernel-only throughput: the chunks are uploaded once, then decoded `repeats` times with
    // no host transfer, on the two streams that take turns in multi; returns the seconds the
    // GPU took (device events). For the bench.
    double time_on_device(const std::vector<ByteView>& chunks, double cut, unsigned repeats);

private:
    friend class Chunk2SparseCSC;  // which may take over an object's engine (its matrix added)
    std::unique_ptr<detail::GpuEngine> state_;
};

}  // namespace bslz4::cuda
