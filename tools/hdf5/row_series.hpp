// The powders (powder, powder_intensity) as the output file holds them: extendible datasets of
// rows of one shape, unfiltered, appended batch by batch. Their whole chunks go to the file with
// H5Dwrite_chunk straight from the batch's memory, the rows of the partial last chunk are kept
// and written padded (at a flush, and when the group closes). A 1,500 x 72 powder is 864 kB a
// frame, as much as the frame read: through H5Dwrite's selections the writer moved 1.4-1.6 GB/s
// into tmpfs here, by whole chunks 1.8-2.2 GB/s, what a plain pwrite moves (a second thread
// writing the same file adds nothing: the file's lock serialises them).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_file.hpp"

namespace bslz4::tool {

class RowSeries {
public:
    // `row`: a row's shape; `type`: the rows' type in memory, which the dataset is made with.
    RowSeries(hid_t group, const char* name, hid_t type, const std::vector<hsize_t>& row, std::size_t chunk_rows,
              const std::string& what);

    hid_t dataset() const { return dataset_.get(); }  // for its attributes

    // Appends `count` rows; the whole chunks among them are written at once.
    void append(const void* rows, std::size_t count);

    // The partial last chunk, padded with zeros past the rows appended (outside the dataset's
    // extent, so no reader sees them); not written again while the file's copy is current. Its
    // size never changes, so HDF5 keeps it in one place from one write to the next.
    void write_tail();

private:
    void write_chunk(std::size_t index, const std::uint8_t* bytes) const;

    std::string what_;
    h5::Handle dataset_;
    std::vector<hsize_t> dims_;       // the extent: rows appended, then the row's shape
    std::size_t row_bytes_, chunk_rows_;
    std::vector<std::uint8_t> tail_;  // the rows of the partial last chunk
    bool tail_written_ = true;        // the file's copy of that chunk holds them all
};

}  // namespace bslz4::tool
