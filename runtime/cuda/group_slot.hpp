// One group's worth of buffers, on the device and pinned on the host, and the two streams its
// work runs on: the upload on one, the kernels and downloads on the other, so the kernels of
// a group's first part can run while its later parts upload. The engine keeps a few and gives them out in turn;
// each stage of the pipeline fills or reads its part.
#pragma once
#include <cstddef>
#include <cstdint>

#include "driver_objects.hpp"
#include "frame_format.hpp"

namespace bslz4::cuda::detail {

// A group is uploaded in at most this many parts, each of whole batches, so its first
// part's kernels start while the rest uploads and what is left after a call's last upload
// is short. A parse launch stays inside a part, so more parts parse in smaller launches
// (H200, groups of 4 batches: 2 parts from pinned memory 0.83 x the upload rate, kernels
// 62,400 frames/s; 4 parts 0.84 x, 55,900; 1 part 0.80 x, 66,500).
constexpr unsigned kMaxParts = 2;

struct GroupSlot {
    // Sized for `group` frames decoded `batch` at a time. The chunks, their staging, the LZ4
    // sequences and the host copy of the lists grow with the calls.
    GroupSlot(const FrameFormat& format, unsigned batch, unsigned group);
    // With a matrix: the group's powders, and the batch's partial sums by tile.
    void add_powders(std::size_t partial_bytes);  // the powders themselves grow with the groups called for

    std::uint64_t* meta() const { return reinterpret_cast<std::uint64_t*>(meta_host.data()); }

    Stream stream;         // kernels and downloads
    Stream upload_stream;  // host-to-device copies
    // The group's host-to-device copies go on the kernel stream instead when nothing needs them
    // to overlap its kernels (a call's first group: one batch, one part), saving the kernels
    // the wait on an event of another stream.
    bool copies_on_kernel_stream = false;
    CUstream copy_stream() const { return copies_on_kernel_stream ? stream.get() : upload_stream.get(); }
    TransferBuffer chunks_host;  // staging for chunks not in one PinnedHostMemory
    DeviceBuffer chunks_dev;
    TransferBuffer meta_host;  // chunk offsets and lengths, then the host walk's offsets and statuses
    DeviceBuffer chunk_offset, chunk_length, block_offset, tail_offset, status, tile_count, tile_offset, npixels;
    DeviceBuffer frame_offset, dense;
    DeviceBuffer values, indices;  // the lists, cap a frame: grown for the groups called for (GpuEngine::size_group)
    DeviceBuffer seq_first, seq_count, sequences;  // lz4_parse's sequences, for the span in hand
    TransferBuffer seq_first_host;
    unsigned parse_span = 1;  // batches parsed by one lz4_parse launch
    TransferBuffer status_host, npixels_host, offsets_host, lists_host;
    DeviceBuffer powder;        // frames x bins sums of the largest group called for (with a matrix)
    DeviceBuffer partial;       // the batch's sums a slot of the tiled matrix (integrate_tiles)
    DeviceBuffer stage_values, stage_indices;  // pixels the decode kernel lists, per tile
    TransferBuffer powder_host;
    // Top pixels: the batch's per-tile counts above each level (grown on the first call that
    // asks), and each frame's chosen level and pixels above its final cut, with their host copies.
    DeviceBuffer level_count, frame_level, nabove;
    TransferBuffer frame_level_host, nabove_host;
    // Chunks already on the device (device_chunks.hpp): where each lies in the caller's buffer.
    DeviceBuffer source_offset;
    TransferBuffer source_offset_host;
    // Recorded after the group's host-to-device copies: the staging and meta buffers may be
    // refilled once it has completed, though the group's kernels may still be running.
    Event uploaded;
    // The group's parts: frames part_frames a part (a whole number of batches), part p's
    // chunks on the device once part_uploaded[p] has completed.
    std::size_t part_frames = 0;
    Event part_uploaded[kMaxParts];
    // A group submitted and not yet finished: frames first .. first + count of the call.
    bool pending = false;
    std::size_t first = 0, count = 0;
};

// Makes `buffer` at least `need` bytes: a quarter more when it grows (fewer regrowths), or
// just `need` when the device has no room for the quarter. The old buffer goes first, so
// its memory can be reused; after an error it is empty, and the next call grows it again.
void grow_device(DeviceBuffer& buffer, std::size_t need, const char* what);
// The same for host transfer memory (no fallback: pinned memory refused is pageable memory).
void grow_transfer(TransferBuffer& buffer, std::size_t need, const char* what);

}  // namespace bslz4::cuda::detail
