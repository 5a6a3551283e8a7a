#include "hdf5_writing.hpp"

namespace bslz4::tool::h5 {

void write_attribute(hid_t loc, const char* name, hid_t type, const void* value, const hsize_t* count) {
    const std::string what = std::string("cannot write attribute ") + name;
    if (H5Aexists(loc, name) > 0) {
        Handle a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose, what);
        Handle space(H5Aget_space(a.get()), H5Sclose, what);
        if (H5Sget_simple_extent_npoints(space.get()) == static_cast<hssize_t>(count ? *count : 1)) {
            if (H5Awrite(a.get(), type, value) < 0) throw failure(what);
            return;
        }
        a = Handle();
        if (H5Adelete(loc, name) < 0) throw failure(what);
    }
    Handle space(count ? H5Screate_simple(1, count, nullptr) : H5Screate(H5S_SCALAR), H5Sclose, "attribute space");
    Handle a(H5Acreate2(loc, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, what);
    if (H5Awrite(a.get(), type, value) < 0) throw failure(what);
}
void write_attribute(hid_t loc, const char* name, std::int64_t v) { write_attribute(loc, name, H5T_NATIVE_INT64, &v); }
void write_attribute(hid_t loc, const char* name, double v) { write_attribute(loc, name, H5T_NATIVE_DOUBLE, &v); }

Handle text_type(const char* what) {
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose, what);
    if (H5Tset_size(type.get(), H5T_VARIABLE) < 0 || H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0)
        throw failure(std::string(what) + ": cannot make the string type");
    return type;
}
void write_attribute(hid_t loc, const char* name, const std::string& v) {
    const char* text = v.c_str();
    write_attribute(loc, name, text_type(name).get(), &text);
}
void write_attribute(hid_t loc, const char* name, const std::vector<std::string>& v) {
    std::vector<const char*> texts;
    for (const std::string& s : v) texts.push_back(s.c_str());
    const hsize_t n = texts.size();
    write_attribute(loc, name, text_type(name).get(), texts.data(), &n);
}

Handle series(hid_t group, const char* name, hid_t type, const std::vector<hsize_t>& row, std::size_t chunk_rows,
                  hid_t plist) {
    const int rank = static_cast<int>(row.size()) + 1;
    std::vector<hsize_t> dims{0}, maxdims{H5S_UNLIMITED}, chunk{chunk_rows};
    dims.insert(dims.end(), row.begin(), row.end());
    maxdims.insert(maxdims.end(), row.begin(), row.end());
    chunk.insert(chunk.end(), row.begin(), row.end());
    Handle space(H5Screate_simple(rank, dims.data(), maxdims.data()), H5Sclose, "dataspace");
    Handle own;
    if (plist == H5P_DEFAULT) {
        own = Handle(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "properties");
        plist = own.get();
    }
    if (H5Pset_chunk(plist, rank, chunk.data()) < 0) throw failure(std::string("cannot chunk dataset ") + name);
    return Handle(H5Dcreate2(group, name, type, space.get(), H5P_DEFAULT, plist, H5P_DEFAULT), H5Dclose,
                      std::string("cannot create dataset ") + name);
}
Handle series(hid_t group, const char* name, hid_t type, std::size_t cols, std::size_t chunk_rows,
                  hid_t plist) {
    return series(group, name, type, cols ? std::vector<hsize_t>{cols} : std::vector<hsize_t>{}, chunk_rows, plist);
}

void append_rows(hid_t dataset, hid_t type, const void* data, std::size_t rows, const char* name) {
    if (rows == 0) return;
    std::vector<hsize_t> dims;
    {
        Handle space(H5Dget_space(dataset), H5Sclose, name);
        dims.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.get())));
        H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    }
    std::vector<hsize_t> start(dims.size(), 0), count(dims), grown(dims);
    start[0] = dims[0];
    count[0] = rows;
    grown[0] = dims[0] + rows;
    if (H5Dset_extent(dataset, grown.data()) < 0) throw failure(std::string("cannot extend ") + name);
    Handle file_space(H5Dget_space(dataset), H5Sclose, name);
    H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
    Handle mem_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose, name);
    if (H5Dwrite(dataset, type, mem_space.get(), file_space.get(), H5P_DEFAULT, data) < 0)
        throw failure(std::string("cannot write ") + name);
}

Handle write_doubles(hid_t group, const char* name, const std::vector<hsize_t>& shape, const std::vector<double>& v) {
    Handle space(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr), H5Sclose, name);
    Handle d(H5Dcreate2(group, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
                 std::string("cannot create dataset ") + name);
    if (H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
        throw failure(std::string("cannot write ") + name);
    return d;
}

}  // namespace bslz4::tool::h5
