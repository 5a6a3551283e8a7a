// How `bslz4 sparse` stores its lists (row, col, intensity): a choice of the job and of the
// command line (--compression), so it is kept apart from the HDF5 writer, which builds without
// HDF5 only where the command does.
#pragma once
#include <string>

namespace bslz4::tool {

enum class ListCompression {
    // Bitshuffle + LZ4 (HDF5 filter 32008) by our own encoder, each chunk written as it is
    // (H5Dwrite_chunk), on up to 4 threads: fast enough for the GPU's lists, read with hdf5plugin
    // (which ImageD11 imports) or the system's bitshuffle plugin.
    bitshuffle_lz4,
    // HDF5's shuffle + deflate (level 1), through HDF5's own pipeline: readable without any
    // plugin and about 0.65 x the size, but compressed on the writer's one thread at about a
    // third of bitshuffle's rate.
    deflate,
    none,
};

// "bitshuffle-lz4", "deflate", "none".
inline const char* list_compression_name(ListCompression c) {
    switch (c) {
        case ListCompression::bitshuffle_lz4: return "bitshuffle-lz4";
        case ListCompression::deflate: return "deflate";
        case ListCompression::none: return "none";
    }
    return "?";
}

// Takes the names list_compression_name gives; false for any other.
inline bool parse_list_compression(const std::string& name, ListCompression& c) {
    for (const ListCompression k : {ListCompression::bitshuffle_lz4, ListCompression::deflate, ListCompression::none})
        if (name == list_compression_name(k)) {
            c = k;
            return true;
        }
    return false;
}

}  // namespace bslz4::tool
