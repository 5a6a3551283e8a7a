#include "row_series.hpp"

#include <algorithm>

#include "bslz4/error.hpp"
#include "hdf5_writing.hpp"

namespace bslz4::tool {

RowSeries::RowSeries(hid_t group, const char* name, hid_t type, const std::vector<hsize_t>& row, std::size_t chunk_rows,
                     const std::string& what)
    : what_(what + "/" + name), chunk_rows_(chunk_rows) {
    dataset_ = h5::series(group, name, type, row, chunk_rows);
    // Raw chunks are the memory's bytes: the dataset's type must be the memory type (it is made
    // from it; checked, as a chunk written raw in another type would be read as garbage).
    const h5::Handle stored(H5Dget_type(dataset_.get()), H5Tclose, what_ + ": no type");
    if (H5Tequal(stored.get(), type) <= 0)
        throw Error(ErrorCode::io, what_ + ": stored in another type than the rows in memory; cannot write it by chunks");
    dims_.push_back(0);
    dims_.insert(dims_.end(), row.begin(), row.end());
    std::size_t elems = 1;
    for (const hsize_t n : row) elems *= n;
    row_bytes_ = elems * H5Tget_size(type);
}

void RowSeries::write_chunk(std::size_t index, const std::uint8_t* bytes) const {
    std::vector<hsize_t> offset(dims_.size(), 0);
    offset[0] = index * chunk_rows_;
    if (H5Dwrite_chunk(dataset_.get(), H5P_DEFAULT, 0, offset.data(), chunk_rows_ * row_bytes_, bytes) < 0)
        throw h5::failure("cannot write " + what_ + " rows " + std::to_string(offset[0]) + " to " +
                          std::to_string(offset[0] + chunk_rows_ - 1));
}

void RowSeries::append(const void* rows, std::size_t count) {
    if (count == 0) return;
    std::size_t done = dims_[0];
    dims_[0] += count;
    if (H5Dset_extent(dataset_.get(), dims_.data()) < 0) throw h5::failure("cannot extend " + what_);
    const auto* bytes = static_cast<const std::uint8_t*>(rows);
    while (count) {
        if (tail_.empty() && done % chunk_rows_ == 0 && count >= chunk_rows_) {
            write_chunk(done / chunk_rows_, bytes);
            bytes += chunk_rows_ * row_bytes_;
            done += chunk_rows_;
            count -= chunk_rows_;
            continue;
        }
        const std::size_t take = std::min(count, chunk_rows_ - tail_.size() / row_bytes_);
        tail_.insert(tail_.end(), bytes, bytes + take * row_bytes_);
        tail_written_ = false;
        bytes += take * row_bytes_;
        done += take;
        count -= take;
        if (tail_.size() == chunk_rows_ * row_bytes_) {
            write_chunk((done - 1) / chunk_rows_, tail_.data());
            tail_.clear();
            tail_written_ = true;
        }
    }
}

void RowSeries::write_tail() {
    if (tail_.empty() || tail_written_) return;
    std::vector<std::uint8_t> chunk(chunk_rows_ * row_bytes_, 0);
    std::copy(tail_.begin(), tail_.end(), chunk.begin());
    write_chunk(dims_[0] / chunk_rows_, chunk.data());
    tail_written_ = true;
}

}  // namespace bslz4::tool
