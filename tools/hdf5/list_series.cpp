#include "list_series.hpp"

#include <algorithm>

#include "bslz4/encode.hpp"
#include "bslz4/error.hpp"
#include "hdf5_writing.hpp"
#include "scan_input.hpp"

namespace bslz4::tool {

namespace {

// Bitshuffle's values for the dataset's creation, as its own set_local records them (see
// bitshuffle_codec): with the plugin found, it puts (version major, minor, element size) in
// front of what it is given, so it gets only the block size (0: its default) and the codec
// (2: lz4); without it, the values are written whole, with the version Debian's bitshuffle
// records (0.3).
void set_bitshuffle_lz4(hid_t plist, std::size_t elem_size, const std::string& what) {
    const unsigned whole[5] = {0, 3, static_cast<unsigned>(elem_size), 0, 2};
    const bool plugin = H5Zfilter_avail(kBitshuffleFilter) > 0;
    if (H5Pset_filter(plist, kBitshuffleFilter, H5Z_FLAG_OPTIONAL, plugin ? 2 : 5, plugin ? whole + 3 : whole) < 0)
        throw h5::failure(what + ": cannot set the bitshuffle filter");
}

}  // namespace

ListSeries::ListSeries(hid_t group, const char* name, hid_t type, std::size_t elem_size, ListCompression compression,
                       const std::string& what)
    : elem_(elem_size), type_(type), compression_(compression), what_(what + "/" + name) {
    h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "properties");
    if (compression == ListCompression::bitshuffle_lz4) {
        set_bitshuffle_lz4(plist.get(), elem_size, what_);
    } else if (compression == ListCompression::deflate) {
        if (H5Pset_shuffle(plist.get()) < 0 || H5Pset_deflate(plist.get(), 1) < 0)
            throw h5::failure(what_ + ": cannot set shuffle and deflate");
    }
    dataset_ = h5::series(group, name, type, 0, kListChunk, plist.get());
    // what a reader will find: a plugin's set_local may have changed what was given
    if (compression == ListCompression::bitshuffle_lz4 && bitshuffle_codec(dataset_.get(), elem_size, what_) != Codec::lz4)
        throw Error(ErrorCode::io, what_ + ": the bitshuffle filter's values, as written, name another codec than lz4");
}

void ListSeries::append(const void* data, std::size_t count, std::vector<ListChunk>& whole) {
    if (count == 0) return;
    if (compression_ != ListCompression::bitshuffle_lz4) {
        h5::append_rows(dataset_.get(), type_, data, count, what_.c_str());
        size_ += count;
        return;
    }
    const hsize_t grown = size_ + count;
    if (H5Dset_extent(dataset_.get(), &grown) < 0) throw h5::failure("cannot extend " + what_);
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    std::size_t chunk = size_ / kListChunk;
    while (count) {
        const std::size_t take = std::min(count, kListChunk - tail_.size() / elem_);
        if (tail_.empty() && take == kListChunk) {
            whole.push_back({this, chunk++, bytes, {}, {}});
        } else {
            tail_.insert(tail_.end(), bytes, bytes + take * elem_);
            if (tail_.size() == kListChunk * elem_) {
                whole.push_back({this, chunk++, nullptr, std::move(tail_), {}});
                whole.back().data = whole.back().owned.data();
                tail_.clear();
                tail_written_ = 0;
                tail_encoded_ = false;
            }
        }
        bytes += take * elem_;
        count -= take;
    }
    size_ = grown;
}

void ListSeries::encode(ListChunk& c) { c.coded = encode_chunk(ByteView(c.data, kListChunk * c.list->elem_), c.list->elem_); }

void ListSeries::write(const ListChunk& c) const {
    const hsize_t offset = c.index * kListChunk;
    if (H5Dwrite_chunk(dataset_.get(), H5P_DEFAULT, 0, &offset, c.coded.size(), c.coded.data()) < 0)
        throw h5::failure("cannot write " + what_ + " chunk " + std::to_string(c.index));
}

void ListSeries::write_tail(bool last) {
    if (tail_.empty() || (tail_written_ == tail_.size() && (tail_encoded_ || !last))) return;
    ListChunk c{this, size_ / kListChunk, nullptr, tail_, {}};
    c.owned.resize(kListChunk * elem_, 0);
    c.data = c.owned.data();
    if (last) {
        encode(c);
        write(c);
    } else {
        const hsize_t offset = c.index * kListChunk;
        if (H5Dwrite_chunk(dataset_.get(), H5P_DEFAULT, 1, &offset, c.owned.size(), c.owned.data()) < 0)
            throw h5::failure("cannot write " + what_ + " chunk " + std::to_string(c.index));
    }
    tail_written_ = tail_.size();
    tail_encoded_ = last;
}

}  // namespace bslz4::tool
