// A scan with bad chunks for `bslz4 sparse --on-error`: one of each kind of damage, at the start,
// at the edges of the job's 64-frame batches and at the end, behind raw chunks (filter mask 1)
// so that a bad frame's place in the decoder's call is not its place in the batch; and the same
// scan without the damage, whose output the good frames must equal. Shared by the CPU tests and
// the GPU's (test_gpu_devices.cpp).
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/scan_writer.hpp"
#include "test_support.hpp"
#include "synthetic/synthetic_eiger.hpp"

namespace bslz4::test {

constexpr std::size_t kCorruptNi = 24, kCorruptNj = 32, kCorruptFrames = 150;  // batches of 64, 64, 22

struct BadChunk {
    std::size_t frame;
    ErrorCode code;  // what the decoders say of it
};

// Frames stored raw (bitshuffle skipped, filter mask 1) in both scans.
inline std::vector<std::size_t> raw_frames() { return {10, 20, 62}; }

// The damage, in frame order: the first frame, behind raw chunks, the last of a batch, the first
// of the next (a raw chunk two bytes short), inside, the last frame.
inline const std::vector<BadChunk>& bad_chunks() {
    static const std::vector<BadChunk> chunks = {
        {0, ErrorCode::bad_lz4_sequence},    {30, ErrorCode::truncated_chunk}, {63, ErrorCode::bad_block_length},
        {64, ErrorCode::wrong_decoded_size}, {100, ErrorCode::bad_header},     {149, ErrorCode::bad_lz4_sequence}};
    return chunks;
}

inline std::vector<std::uint8_t> corrupt_frame_pixels(std::size_t f) {
    return synthetic_eiger_frame(kCorruptNi, kCorruptNj, PixelType::u16, static_cast<std::uint32_t>(f % 17));
}

// frame's chunk written over with `bytes` and `filter_mask`, through HDF5's direct chunk write.
inline void rewrite_chunk(const std::string& path, std::size_t frame, const std::vector<std::uint8_t>& bytes,
                          std::uint32_t filter_mask) {
    const tool::h5::Handle file = tool::h5::open_file(path, true);
    const tool::h5::Handle d = tool::h5::open_dataset(file.get(), "/entry/data/data", path);
    const hsize_t offset[3] = {frame, 0, 0};
    if (H5Dwrite_chunk(d.get(), H5P_DEFAULT, filter_mask, offset, bytes.size(), bytes.data()) < 0)
        throw Error(ErrorCode::io, path + ": cannot write frame " + std::to_string(frame) + "'s chunk");
}

// The chunk of bad frame `b` (the good chunk damaged as bad_chunks() says).
inline std::vector<std::uint8_t> damaged_chunk(const BadChunk& b) {
    std::vector<std::uint8_t> c = encode_chunk(corrupt_frame_pixels(b.frame), 2);
    switch (b.code) {
        case ErrorCode::bad_lz4_sequence: {  // block 0's sequences zeroed: a match at offset 0
            const std::uint32_t length = static_cast<std::uint32_t>(c[12]) << 24 | c[13] << 16 | c[14] << 8 | c[15];
            for (std::size_t k = 16; k < 16 + length; ++k) c[k] = 0;
            break;
        }
        case ErrorCode::truncated_chunk: c.resize(5); break;    // ends inside its header
        case ErrorCode::bad_block_length: c.push_back(0); break;  // a byte after the last block
        case ErrorCode::bad_header: put_be32(c, 8, 100); break;   // a block size of 50 pixels
        case ErrorCode::wrong_decoded_size:                       // a raw frame two bytes short
            c = corrupt_frame_pixels(b.frame);
            c.resize(c.size() - 2);
            break;
        default: throw Error(ErrorCode::bad_argument, "no damage of that kind");
    }
    return c;
}

// The scan at `path`, its chunks damaged where bad_chunks() says when `damaged`.
inline void write_corrupt_scan(const std::string& path, bool damaged) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::size_t f = 0; f < kCorruptFrames; ++f) chunks.push_back(encode_chunk(corrupt_frame_pixels(f), 2));
    tool::write_scan(path, kCorruptNi, kCorruptNj, PixelType::u16, kCorruptFrames, {}, chunks);
    for (std::size_t f : raw_frames()) rewrite_chunk(path, f, corrupt_frame_pixels(f), 1);
    if (!damaged) return;
    for (const BadChunk& b : bad_chunks())
        rewrite_chunk(path, b.frame, damaged_chunk(b), b.code == ErrorCode::wrong_decoded_size ? 1 : 0);
}

}  // namespace bslz4::test
