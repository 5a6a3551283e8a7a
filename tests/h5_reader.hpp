// Reading HDF5 files in the tests, through the tools' own HDF5 layer (tools/hdf5).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5/hdf5_file.hpp"

namespace bslz4::test {

class H5Reader {
public:
    explicit H5Reader(const std::string& path) : name_(path), file_(tool::h5::open_file(path)) {}

    template <class T>
    std::vector<T> dataset(const std::string& path, hid_t memtype) const {
        const tool::h5::Handle d = tool::h5::open_dataset(file_.get(), path, name_);
        return tool::h5::read_all<T>(d.get(), memtype, name_ + ":" + path);
    }
    std::vector<std::int64_t> attribute(const std::string& object, const std::string& name) const {
        return tool::h5::read_int_attribute(file_.get(), object, name);
    }
    std::vector<std::uint8_t> chunk(const std::string& path, hsize_t f) const {
        const tool::h5::Handle d = tool::h5::open_dataset(file_.get(), path, name_);
        return tool::h5::read_chunk(d.get(), {f, 0, 0}, name_ + ":" + path);
    }
    // The values stored with the dataset's first filter (its id in `id`).
    std::vector<unsigned> filter_values(const std::string& path, H5Z_filter_t& id) const {
        const tool::h5::Handle d = tool::h5::open_dataset(file_.get(), path, name_);
        const tool::h5::Handle plist(H5Dget_create_plist(d.get()), H5Pclose, name_ + ":" + path);
        std::size_t n = 32;
        std::vector<unsigned> values(n);
        unsigned flags = 0, config = 0;
        id = H5Pget_filter2(plist.get(), 0, &flags, &n, values.data(), 0, nullptr, &config);
        values.resize(std::min<std::size_t>(n, values.size()));
        return values;
    }
    bool exists(const std::string& path) const { return tool::h5::exists(file_.get(), path); }
    hid_t file() const { return file_.get(); }

private:
    std::string name_;
    tool::h5::Handle file_;
};

}  // namespace bslz4::test
