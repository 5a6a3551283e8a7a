// Reading HDF5 files in the tests, through the tools' own HDF5 layer (tools/hdf5).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/decode.hpp"
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

    // A dataset's values as memtype. A 1-D dataset stored with bitshuffle (filter 32008) is read
    // as a program with HDF5's bitshuffle plugin reads it, through HDF5, when HDF5 has the plugin,
    // and else chunk by chunk by our decoder (a chunk with the filter skipped, filter mask 1, as
    // it is), then converted by HDF5.
    template <class T>
    std::vector<T> dataset(const std::string& path, hid_t memtype) const {
        const tool::h5::Handle d = tool::h5::open_dataset(file_.get(), path, name_);
        H5Z_filter_t id = -1;
        filter_values(path, id);
        const auto shape = tool::h5::dataset_shape(d.get());
        if (id != kBitshuffle || H5Zfilter_avail(kBitshuffle) > 0) {
            hsize_t n = 1;
            for (hsize_t e : shape) n *= e;
            std::vector<T> out(n);
            if (n && H5Dread(d.get(), memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
                throw tool::h5::failure(name_ + ":" + path + ": cannot read");
            return out;
        }
        const auto chunk = tool::h5::chunk_shape(d.get());
        if (shape.size() != 1 || chunk.size() != 1) throw Error(ErrorCode::bad_argument, path + ": a bitshuffle dataset of other than 1-d");
        const tool::h5::Handle type(H5Dget_type(d.get()), H5Tclose, path);
        const tool::h5::Handle native(H5Tget_native_type(type.get(), H5T_DIR_ASCEND), H5Tclose, path);
        const std::size_t elem = H5Tget_size(native.get()), n = shape[0];
        std::vector<std::uint8_t> bytes(std::max(n * elem, n * sizeof(T)));
        for (hsize_t first = 0; first < n; first += chunk[0]) {
            hsize_t stored = 0;
            if (H5Dget_chunk_storage_size(d.get(), &first, &stored) < 0) throw tool::h5::failure(path + ": chunk not stored");
            std::vector<std::uint8_t> raw(stored);
            std::uint32_t filter_mask = 0;
            if (H5Dread_chunk(d.get(), H5P_DEFAULT, &first, &filter_mask, raw.data()) < 0) throw tool::h5::failure(path + ": cannot read a chunk");
            const std::vector<std::uint8_t> pixels = filter_mask ? raw : decode_chunk(raw, elem);
            if (pixels.size() != chunk[0] * elem) throw Error(ErrorCode::wrong_decoded_size, path + ": a chunk of another size");
            std::copy_n(pixels.begin(), std::min<std::size_t>(chunk[0], n - first) * elem, bytes.begin() + first * elem);
        }
        if (H5Tconvert(native.get(), memtype, n, bytes.data(), nullptr, H5P_DEFAULT) < 0) throw tool::h5::failure(path + ": cannot convert");
        std::vector<T> out(n);
        std::copy_n(bytes.data(), n * sizeof(T), reinterpret_cast<std::uint8_t*>(out.data()));
        return out;
    }
    std::vector<std::int64_t> attribute(const std::string& object, const std::string& name) const {
        return tool::h5::read_int_attribute(file_.get(), object, name);
    }
    // A string attribute's values (one for a scalar), as h5py writes a str: variable-length
    // UTF-8; any other type is an Error saying so.
    std::vector<std::string> text_attribute(const std::string& object, const std::string& name) const {
        const tool::h5::Handle a(H5Aopen_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                                 object + ": no attribute " + name);
        const tool::h5::Handle type(H5Aget_type(a.get()), H5Tclose, name);
        const tool::h5::Handle space(H5Aget_space(a.get()), H5Sclose, name);
        if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) <= 0 || H5Tget_cset(type.get()) != H5T_CSET_UTF8)
            throw Error(ErrorCode::bad_argument, object + ": attribute " + name + " is not a variable-length UTF-8 string");
        std::vector<char*> texts(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())), nullptr);
        if (H5Aread(a.get(), type.get(), texts.data()) < 0) throw tool::h5::failure(object + ": cannot read attribute " + name);
        std::vector<std::string> out;
        for (char* t : texts) {
            out.emplace_back(t ? t : "");
            H5free_memory(t);
        }
        return out;
    }
    // Each chunk's filter mask, in order (0: every filter applied; 1: the first skipped), of a
    // chunked 1-D dataset.
    std::vector<std::uint32_t> chunk_filter_masks(const std::string& path) const {
        const tool::h5::Handle d = tool::h5::open_dataset(file_.get(), path, name_);
        const hsize_t n = tool::h5::dataset_shape(d.get()).at(0), chunk = tool::h5::chunk_shape(d.get()).at(0);
        std::vector<std::uint32_t> masks;
        for (hsize_t first = 0; first < n; first += chunk) {
            hsize_t stored = 0;
            if (H5Dget_chunk_storage_size(d.get(), &first, &stored) < 0) throw tool::h5::failure(path + ": chunk not stored");
            std::vector<std::uint8_t> raw(stored);
            std::uint32_t mask = 0;
            if (H5Dread_chunk(d.get(), H5P_DEFAULT, &first, &mask, raw.data()) < 0) throw tool::h5::failure(path + ": cannot read a chunk");
            masks.push_back(mask);
        }
        return masks;
    }
    // The type of a dataset's elements is `type` (an HDF5 predefined type, e.g. H5T_STD_U16LE).
    bool stored_as(const std::string& path, hid_t type) const {
        const tool::h5::Handle d = tool::h5::open_dataset(file_.get(), path, name_);
        const tool::h5::Handle t(H5Dget_type(d.get()), H5Tclose, path);
        return H5Tequal(t.get(), type) > 0;
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
    static constexpr H5Z_filter_t kBitshuffle = 32008;
    std::string name_;
    tool::h5::Handle file_;
};

}  // namespace bslz4::test
