// Just enough HDF5 to read the reference files in the tests: whole datasets, an attribute, and
// raw chunks by HDF5's direct chunk read (no filter plugin involved).
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/error.hpp"

namespace bslz4::test {

class H5Object {
public:
    H5Object(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
        if (id < 0) throw Error("HDF5: cannot open " + what);
    }
    ~H5Object() { close_(id_); }
    H5Object(const H5Object&) = delete;
    H5Object& operator=(const H5Object&) = delete;
    hid_t get() const { return id_; }

private:
    hid_t id_;
    herr_t (*close_)(hid_t);
};

class H5Reader {
public:
    explicit H5Reader(const std::string& path) : file_(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, path) {}

    template <class T>
    std::vector<T> dataset(const std::string& name, hid_t memtype) const {
        H5Object d(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose, name);
        H5Object space(H5Dget_space(d.get()), H5Sclose, name + " space");
        std::vector<T> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
        if (H5Dread(d.get(), memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) throw Error("HDF5: cannot read " + name);
        return out;
    }

    std::vector<std::int64_t> attribute(const std::string& object, const std::string& name) const {
        H5Object a(H5Aopen_by_name(file_.get(), object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name);
        H5Object space(H5Aget_space(a.get()), H5Sclose, name);
        std::vector<std::int64_t> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
        if (H5Aread(a.get(), H5T_NATIVE_INT64, out.data()) < 0) throw Error("HDF5: cannot read attribute " + name);
        return out;
    }

    // The stored (compressed) chunk of frame f of a (frames, ni, nj) dataset.
    std::vector<std::uint8_t> chunk(const std::string& name, hsize_t f) const {
        H5Object d(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose, name);
        const hsize_t offset[3] = {f, 0, 0};
        hsize_t bytes = 0;
        if (H5Dget_chunk_storage_size(d.get(), offset, &bytes) < 0) throw Error("HDF5: no chunk " + std::to_string(f));
        std::vector<std::uint8_t> out(bytes);
        std::uint32_t filters = 0;
        if (H5Dread_chunk(d.get(), H5P_DEFAULT, offset, &filters, out.data()) < 0)
            throw Error("HDF5: cannot read chunk " + std::to_string(f));
        return out;
    }

private:
    H5Object file_;
};

}  // namespace bslz4::test
