// Reading HDF5 files in the tests, through the tools' own HDF5 layer (tools/hdf5).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5/hdf5_file.hpp"

namespace bslz4::test {

// One row of a sparse output's bad_frames.
struct BadFrameRow {
    std::int64_t frame = 0;
    std::int32_t code = 0;
    std::string code_name, message;
};

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
    // The names of the members of a compound dataset's type, in order ({} for other types).
    std::vector<std::string> member_names(const std::string& path) const {
        const tool::h5::Handle d = tool::h5::open_dataset(file_.get(), path, name_);
        const tool::h5::Handle type(H5Dget_type(d.get()), H5Tclose, name_ + ":" + path);
        std::vector<std::string> names;
        if (H5Tget_class(type.get()) != H5T_COMPOUND) return names;
        for (int k = 0; k < H5Tget_nmembers(type.get()); ++k) {
            char* name = H5Tget_member_name(type.get(), static_cast<unsigned>(k));
            names.emplace_back(name ? name : "");
            H5free_memory(name);
        }
        return names;
    }
    // A bad_frames dataset read by its members' names (frame, code, code_name, message), as h5py
    // reads a compound; the strings must be variable-length.
    std::vector<BadFrameRow> bad_frames(const std::string& path) const {
        struct Record {
            std::int64_t frame;
            std::int32_t code;
            char* code_name;
            char* message;
        };
        const tool::h5::Handle d = tool::h5::open_dataset(file_.get(), path, name_);
        const tool::h5::Handle text(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
        H5Tset_size(text.get(), H5T_VARIABLE);
        H5Tset_cset(text.get(), H5T_CSET_UTF8);
        const tool::h5::Handle type(H5Tcreate(H5T_COMPOUND, sizeof(Record)), H5Tclose, "record type");
        H5Tinsert(type.get(), "frame", HOFFSET(Record, frame), H5T_NATIVE_INT64);
        H5Tinsert(type.get(), "code", HOFFSET(Record, code), H5T_NATIVE_INT32);
        H5Tinsert(type.get(), "code_name", HOFFSET(Record, code_name), text.get());
        H5Tinsert(type.get(), "message", HOFFSET(Record, message), text.get());
        const tool::h5::Handle space(H5Dget_space(d.get()), H5Sclose, name_ + ":" + path);
        std::vector<Record> records(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
        if (records.empty()) return {};
        if (H5Dread(d.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, records.data()) < 0)
            throw tool::h5::failure(name_ + ":" + path + ": cannot read");
        std::vector<BadFrameRow> rows;
        for (const Record& r : records)
            rows.push_back({r.frame, r.code, r.code_name ? r.code_name : "", r.message ? r.message : ""});
#if H5_VERSION_GE(1, 12, 0)
        H5Treclaim(type.get(), space.get(), H5P_DEFAULT, records.data());
#else
        H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, records.data());
#endif
        return rows;
    }
    bool exists(const std::string& path) const { return tool::h5::exists(file_.get(), path); }
    hid_t file() const { return file_.get(); }

private:
    std::string name_;
    tool::h5::Handle file_;
};

}  // namespace bslz4::test
