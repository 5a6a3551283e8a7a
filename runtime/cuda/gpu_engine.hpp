// The GPU decoding engine behind bslz4::cuda::Chunk2Sparse and Chunk2SparseCSC. A call's
// frames go through in groups, each group in one of a few slots (group_slot.hpp) and through
// four stages: staging (chunk_staging.hpp: pinned already, or packed into pinned staging by
// several host threads, zstd chunks decompressed there into lz4 chunks of literals), upload
// (group_upload.hpp), kernels (group_kernels.hpp), and collection (group_collector.hpp:
// statuses, lists, frames above cap on the host). A group is staged as soon as its slot's
// previous uploads are done, while the other slots' groups upload and decode on their own
// streams; the uploads go one at a time in group order, each group's in parts whose kernels
// start as each part arrives, so uploads, kernels and the host's work overlap.
// With a matrix, each batch's dense frames are also integrated on the device.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/cuda/device_array.hpp"
#include "bslz4/integration_matrix.hpp"
#include "bslz4/powder.hpp"
#include "bslz4/sparse_result.hpp"
#include "call_guard.hpp"
#include "call_outputs.hpp"
#include "call_status.hpp"
#include "chunk_source.hpp"
#include "chunk_staging.hpp"
#include "context.hpp"
#include "device_chunks.hpp"
#include "driver_objects.hpp"
#include "frame_faults.hpp"
#include "frame_format.hpp"
#include "group_collector.hpp"
#include "group_kernels.hpp"
#include "group_slot.hpp"
#include "group_upload.hpp"
#include "powder_spec.hpp"
#include "shared_matrices.hpp"
#include "thread_pool.hpp"
#include "top_pixels.hpp"

namespace bslz4::cuda::detail {

class GpuEngine {
public:
    GpuEngine(ByteView mask, std::size_t ni, std::size_t nj, PixelType type, Chunk2SparseOptions options);
    GpuEngine(const GpuEngine&) = delete;
    GpuEngine& operator=(const GpuEngine&) = delete;

    // Makes this engine an integrator: the mask folded into the matrix, shared on the device.
    void add_matrix(const IntegrationMatrix& m, Accumulator a);
    // Top pixels from the next call on (Chunk2Sparse::set_top_pixels): chosen on the device,
    // and by the host for frames it lists.
    void set_top_pixels(const bslz4::detail::TopPixelsRule& rule);

    // The lists of `nframes` chunks (and their powders, with a matrix): views of this
    // engine's arrays, overwritten by the next call. A bad frame throws, or with
    // OnError::report is returned bad (bslz4/frame_status.hpp); `known_bad` are frames the
    // caller found bad already (reporting calls), their chunks never read.
    // With `on_device`, the chunks are on the device already and `chunks` reads them back (only
    // what the host must see). With `rows`, the lists go into the caller's rows (ListRows).
    SparseBatch run(std::size_t nframes, double cut, ChunkSource chunks, OnError on_error,
                    const std::vector<FrameError>& known_bad = {}, DeviceChunks* on_device = nullptr,
                    const ListRows* rows = nullptr);
    // from_buffer: the chunks at offsets[f], lengths[f] of `base`, with the options' on_error. A
    // chunk outside `base` throws before any frame is decoded, or is a bad frame (bad_argument).
    SparseBatch run_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                           const std::vector<std::uint64_t>& lengths, double cut, const ListRows* rows = nullptr);
    // from_device: chunk f is lengths[f] bytes at device address base + offsets[f], with the
    // options' on_error (a chunk outside base's allocation throws first, or is a bad frame).
    SparseBatch run_device(std::uint64_t base, const std::vector<std::uint64_t>& offsets,
                           const std::vector<std::uint64_t>& lengths, double cut, const ListRows* rows = nullptr);
    Powder powders(std::size_t nframes) const { return collector_.powders(nframes); }
    // Grows now what calls of up to `frames` chunks of up to `chunk_bytes` bytes would grow on
    // their first run (Chunk2Sparse::reserve): each slot's staging, device chunks, LZ4
    // sequences, lists and powders for the largest group it would take, and the host result
    // arrays; no staging for lz4 chunks in pinned memory.
    void reserve(std::size_t frames, std::size_t chunk_bytes, ChunkMemory chunks);
    // decompress / integrate: the dense frames or the powders of chunks, left on the device.
    DeviceArray run_to_device(std::size_t nframes, bool frames, ChunkSource chunks, DeviceChunks* on_device = nullptr);
    // decompress_from_device / integrate_from_device.
    DeviceArray run_device_to_device(std::uint64_t base, const std::vector<std::uint64_t>& offsets,
                                     const std::vector<std::uint64_t>& lengths, bool frames);
    // Kernel time alone, for the bench: the chunks (at most a group) are uploaded once into
    // each slot, then unblocked, decoded, integrated and listed `repeats` times, the slots'
    // streams taking turns as they do in a long call, between two device events.
    double time_kernels(const std::vector<ByteView>& chunks, double cut, unsigned repeats);

    OnError on_error() const { return options_.on_error; }
    std::size_t host_frames() const { return collector_.host_frames(); }
    std::size_t cap() const { return format_.cap; }
    std::size_t nj() const { return format_.nj; }
    unsigned batch() const { return sizes_.batch; }
    unsigned group() const { return sizes_.group; }
    int device() const { return ctx_.ordinal(); }
    std::size_t bins() const { return powder_spec_.bins; }
    Accumulator acc() const { return powder_spec_.acc; }

    // Frames decoded together, and frames uploaded together.
    struct GroupSizes {
        unsigned batch, group;
    };

private:
    // Frames in group g of a call of `nframes` frames, the group starting at frame `first`.
    std::size_t group_frames(std::size_t g, std::size_t first, std::size_t nframes) const;
    // Uploads group `first .. first + count`, staged into `s`, once the call's previous group
    // (in `previous`, if any) is uploaded, and queues its kernels and downloads (the slot's
    // previous group finished).
    void submit(GroupSlot& s, const GroupSlot* previous, const Staged& in, std::size_t first, std::size_t count,
                const bslz4_abi::Cut& cut, ChunkSource chunks, const DeviceChunks* on_device);
    // The list (where `lists`) and powder buffers of an idle slot, grown for a group of `count`
    // frames.
    void size_group(GroupSlot& s, std::size_t count, bool lists);
    // The largest group each slot takes in a call of `frames` frames (group_frames, in turn).
    std::vector<std::size_t> largest_groups(std::size_t frames) const;
    // Whether a group of `count` frames has its block headers walked on the host (not when its
    // chunks are on the device).
    bool walks_on_host(std::size_t count, const DeviceChunks* on_device) const;
    // Before a group is staged: the host's checks (FrameFaults::before_upload), each refused
    // frame thrown at once or, when the call reports, marked bad and staged as an empty chunk.
    // Chunks on the device are not read here: only their lengths are checked.
    void screen(std::size_t first, std::size_t count, ChunkSource chunks, const DeviceChunks* on_device);
    // The device-input form of `screen`'s length check.
    void screen_lengths(std::size_t first, std::size_t count, ChunkSource chunks, const DeviceChunks& on_device);
    // After a group is staged: each frame whose zstd chunk does not decode (ChunkStaging::
    // refused) thrown at once, the first, or when the call reports marked bad.
    void take_refused(bool reporting);
    // Finishes the groups still pending after `groups` groups of a call, oldest first: the
    // error reported is that of the earliest frame.
    void finish_pending(std::size_t groups, ChunkSource chunks);
    void abandon() noexcept;

    FrameFormat format_;
    std::vector<std::uint8_t> mask_host_;
    PrimaryContext ctx_;
    DeviceInfo info_;
    PowderSpec powder_spec_;
    CallStatus status_;  // the call in hand's bad frames
    bslz4::detail::ThreadPool staging_threads_;
    GroupCollector collector_;
    Chunk2SparseOptions options_;
    std::shared_ptr<const Module> module_;  // shared by the device's objects
    // 1/24 of the device memory free when the object was made: a group's chunks and lists take
    // at most twice this, a batch's frames and sequences at most once, so the three slots
    // together stay under 9/24 of what was free.
    std::size_t memory_budget_;
    GroupSizes sizes_;
    std::shared_ptr<const DeviceMask> mask_;
    FrameFaults faults_;
    ChunkStaging staging_;
    GroupUpload upload_;
    GroupKernels kernels_;
    std::vector<GroupSlot> slots_;
    CallOutputs outputs_;
    std::atomic<std::thread::id> caller_{};  // the thread in a call (call_guard.hpp)
};

// Checks the arguments every GPU class shares, then builds the engine.
std::unique_ptr<GpuEngine> make_engine(ByteView mask, std::size_t ni, std::size_t nj, PixelType type,
                                       Chunk2SparseOptions options);

// A GPU object's engine, or a bad_argument Error where the object was moved from (a
// Chunk2Sparse handed to Chunk2SparseCSC, and the C handle that held it): a clear refusal, not
// a null engine used.
GpuEngine& live_engine(const std::unique_ptr<GpuEngine>& engine);

}  // namespace bslz4::cuda::detail
