#include "argument_checks.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/error.hpp"

namespace bslz4 {

namespace detail {

void check_buffer_counts(const std::vector<std::uint64_t>& offsets, const std::vector<std::uint64_t>& lengths) {
    if (offsets.size() != lengths.size())
        throw Error(ErrorCode::bad_argument, "from_buffer: " + std::to_string(offsets.size()) + " offsets but " +
                                                 std::to_string(lengths.size()) + " lengths");
}

ByteView chunk_in_buffer(ByteView base, std::uint64_t offset, std::uint64_t length) {
    if (offset > base.size || length > base.size - offset)
        throw Error(ErrorCode::bad_argument, "bytes " + std::to_string(offset) + " + " + std::to_string(length) +
                                                 " lie outside the " + std::to_string(base.size) + "-byte buffer");
    return ByteView(base.data + offset, static_cast<std::size_t>(length));
}

void check_list_rows(const ListRows& rows, std::size_t nframes, std::size_t npix, PixelType type) {
    const std::size_t bpp = pixel_size(type);
    const auto misaligned = [](const void* p, std::size_t align) { return reinterpret_cast<std::uintptr_t>(p) % align != 0; };
    std::string why;
    if (!rows.values || !rows.indices)
        why = "a null pointer";
    else if (misaligned(rows.values, bpp) || misaligned(rows.indices, sizeof(std::uint32_t)))
        why = "values not aligned to " + std::to_string(bpp) + " bytes or indices not to 4";
    else if (rows.row_length < npix)
        why = "rows of " + std::to_string(rows.row_length) + " entries for frames of " + std::to_string(npix) + " pixels";
    else if (rows.rows < nframes)
        why = std::to_string(rows.rows) + " rows for " + std::to_string(nframes) + " frames";
    else if (rows.rows != 0 && rows.row_length > std::numeric_limits<std::size_t>::max() / std::max<std::size_t>(bpp, 4) / rows.rows)
        why = std::to_string(rows.rows) + " rows of " + std::to_string(rows.row_length) + " entries overflow a size";
    if (!why.empty()) throw Error(ErrorCode::bad_argument, "list rows: " + why);
}

void check_buffer_ranges(ByteView base, const std::vector<std::uint64_t>& offsets,
                         const std::vector<std::uint64_t>& lengths) {
    check_buffer_counts(offsets, lengths);
    for (std::size_t f = 0; f < offsets.size(); ++f) {
        try {
            chunk_in_buffer(base, offsets[f], lengths[f]);
        } catch (const Error& e) {
            throw Error(e.code(), "frame " + std::to_string(f) + ": " + e.what());
        }
    }
}

unsigned checked_thread_count(unsigned threads, const char* option) {
    if (threads > kMaxThreads)
        throw Error(ErrorCode::bad_argument, std::string(option) + " is " + std::to_string(threads) + ", more than the " +
                                                 std::to_string(kMaxThreads) +
                                                 " threads bslz4 starts at most (0 means one on each CPU the process may use)");
    return threads;
}

void check_reserve_frames(std::size_t frames, std::size_t frame_result_bytes) {
    if (frame_result_bytes && frames > static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max()) / frame_result_bytes)
        throw Error(ErrorCode::bad_argument, "reserve for " + std::to_string(frames) + " frames: their results, " +
                                                 std::to_string(frame_result_bytes) +
                                                 " bytes a frame, are more than any buffer holds");
}

void check_frame_mask(ByteView mask, std::size_t ni, std::size_t nj) {
    if (ni == 0 || nj == 0)
        throw Error(ErrorCode::bad_argument,
                    "frame shape " + std::to_string(ni) + " x " + std::to_string(nj) + " is empty");
    if (ni * nj > 0xFFFFFFFFull)
        throw Error(ErrorCode::bad_argument,
                    "frame of " + std::to_string(ni * nj) + " pixels does not fit 32-bit indices");
    if (mask.size != ni * nj)
        throw Error(ErrorCode::bad_argument, "mask has " + std::to_string(mask.size) + " bytes, the frame " +
                                                 std::to_string(ni) + " x " + std::to_string(nj) + " needs " +
                                                 std::to_string(ni * nj));
}

}  // namespace detail

}  // namespace bslz4
