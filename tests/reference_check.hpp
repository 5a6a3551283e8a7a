// Checks every case of a reference table (written outside this project by h5py + hdf5plugin):
// the decoded pixels match the recorded sha256 and the .raw file, and the sparse list of each
// typed case equals a dense threshold of those pixels.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "bslz4/bslz4.hpp"
#include "cli/file_io.hpp"
#include "cli/reference_cases.hpp"
#include "cli/sha256.hpp"

namespace bslz4::test {

inline std::size_t check_reference_cases(const std::string& dir) {
    const auto cases = tool::read_reference_cases(dir);
    REQUIRE(!cases.empty());
    for (const tool::ReferenceCase& c : cases) {
        INFO("case " << c.name);
        const auto chunk = tool::read_file(c.chunk_path);
        REQUIRE(chunk.size() == c.chunk_bytes);
        const BlockLayout layout = block_starts(chunk, c.elem_size, c.ni * c.nj * c.elem_size);
        REQUIRE(layout.header.block_bytes_field == c.block_bytes);
        const auto pixels = decode_chunk(chunk, c.elem_size, c.codec);
        REQUIRE(tool::sha256_hex(pixels) == c.sha256);
        if (c.has_raw) REQUIRE(tool::read_file(c.raw_path) == pixels);

        // The sparse path over the same chunk, against the dense pixels.
        const std::vector<std::uint8_t> mask(c.ni * c.nj, 1);
        Chunk2Sparse sparse(mask, c.ni, c.nj, c.type, {c.codec, 1});
        const SparseFrame f = sparse(chunk, 1.0);
        visit_pixel_type(c.type, [&](auto z) {
            using T = decltype(z);
            const T* v = reinterpret_cast<const T*>(pixels.data());
            std::size_t k = 0;
            for (std::size_t i = 0; i < c.ni * c.nj; ++i)
                if (static_cast<long double>(v[i]) > 1.0L) {
                    REQUIRE(k < f.npixels);
                    REQUIRE(f.indices[k] == i);
                    ++k;
                }
            REQUIRE(k == f.npixels);
        });
    }
    return cases.size();
}

}  // namespace bslz4::test
