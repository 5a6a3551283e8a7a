// The argument checks the CPU and GPU classes share, so both refuse alike.
#pragma once
#include <cstdint>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/pixel_type.hpp"
#include "bslz4/sparse_result.hpp"

namespace bslz4::detail {

// from_buffer: as many offsets as lengths (else the call as a whole is wrong).
void check_buffer_counts(const std::vector<std::uint64_t>& offsets, const std::vector<std::uint64_t>& lengths);
// from_buffer's chunk at [offset, offset + length) of base, refused unless it lies inside.
ByteView chunk_in_buffer(ByteView base, std::uint64_t offset, std::uint64_t length);
// Both, for every frame before any is decoded (an error names the first frame outside).
void check_buffer_ranges(ByteView base, const std::vector<std::uint64_t>& offsets,
                         const std::vector<std::uint64_t>& lengths);

// threads, the CPU classes' option, unless past kMaxThreads: then a bad_argument Error naming
// `option` (checked before the pool starts any).
unsigned checked_thread_count(unsigned threads, const char* option);

// A GPU class's reserve(frames, ...): the host lists (and powders) of `frames` frames,
// frame_result_bytes each, must add up to a size, else a bad_argument Error (a count past that
// would wrap into a small reservation).
void check_reserve_frames(std::size_t frames, std::size_t frame_result_bytes);

// A frame shape that is not empty and fits 32-bit indices, and a mask of ni*nj bytes.
void check_frame_mask(ByteView mask, std::size_t ni, std::size_t nj);

// Caller's rows (ListRows) for a call of `nframes` frames of `npix` pixels of `type`.
void check_list_rows(const ListRows& rows, std::size_t nframes, std::size_t npix, PixelType type);

}  // namespace bslz4::detail
