// The sparse lists (row, col, intensity, labels) as the output file holds them: extendible 1-D
// datasets appended batch by batch, their whole chunks encoded with bitshuffle + LZ4 apart from
// HDF5 (on the writer's threads) and written raw, the partial last chunk kept in memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_file.hpp"
#include "list_compression.hpp"

namespace bslz4::tool {

// Elements in a chunk of row, col or intensity. ImageD11's segmenter stores 10,000; bitshuffle
// encodes 8 kB blocks, so larger chunks do not compress better, and the partial last chunk,
// written again after every batch, costs less when small (measurements in doc/output-file.md).
constexpr std::size_t kListChunk = 1 << 14;

class ListSeries;

// A chunk of a list to encode and write (bitshuffle): its elements, as given or owned.
struct ListChunk {
    ListSeries* list = nullptr;
    std::size_t index = 0;
    const std::uint8_t* data = nullptr;
    std::vector<std::uint8_t> owned;  // data, when the chunk was gathered from several batches
    std::vector<std::uint8_t> coded;
};

// One of the lists (row, col, intensity): an extendable 1-D dataset, appended batch by batch.
// With bitshuffle, the whole chunks are encoded (by the caller, on several threads at once)
// and written as they are; the last, partial, chunk stays in memory between flushes and is
// written by write_tail(): at a flush, padded with zeros and unencoded (filter mask 1: the
// filter skipped, which every reader of HDF5 honours), so the flushed file holds every element
// appended as of its flush; encoded when its group is closed.
class ListSeries {
public:
    ListSeries(hid_t group, const char* name, hid_t type, std::size_t elem_size, ListCompression compression,
               const std::string& what);

    // Extends the dataset by `count` elements. Through HDF5's pipeline (deflate, none) they are
    // written here; with bitshuffle, the chunks they complete are added to `whole` (pointing
    // into `data`, which must live until they are written), the rest kept in memory for
    // write_tail().
    void append(const void* data, std::size_t count, std::vector<ListChunk>& whole);

    // Any thread: c.coded from c's elements.
    static void encode(ListChunk& c);
    // The encoded chunk into the file (the thread holding HDF5).
    void write(const ListChunk& c) const;

    // The partial last chunk (bitshuffle), padded with zeros: unencoded at a flush while more may
    // come, encoded (last) when the group closes; not written when the file's copy is current.
    // HDF5 moves a chunk rewritten in another size and never reuses the space it left once the
    // file is closed, so the unencoded copy is written at a flush only (it keeps its size, and
    // its place, from one flush to the next) and after the batch's other writes (it lies at the
    // file's end, where the space it leaves when encoded is given back): written after every
    // batch, with nnz's chunk behind it, it left about three quarters of a small scan's file
    // unused.
    void write_tail(bool last);

private:
    std::size_t elem_;
    hid_t type_;
    ListCompression compression_;
    std::string what_;
    h5::Handle dataset_;
    std::size_t size_ = 0;            // elements appended
    std::vector<std::uint8_t> tail_;  // bitshuffle: the elements of the last, partial chunk
    std::size_t tail_written_ = 0;    // bytes of tail_ in the file's copy of that chunk
    bool tail_encoded_ = false;       // that copy is encoded
};

}  // namespace bslz4::tool
