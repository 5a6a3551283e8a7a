#include "hdf5_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace bslz4::tool::h5 {

Handle::Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id < 0) throw Error(what);
}
Handle::~Handle() {
    if (id_ >= 0 && close_) close_(id_);
}
Handle::Handle(Handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
}
Handle& Handle::operator=(Handle&& o) noexcept {
    Handle tmp(std::move(o));
    std::swap(id_, tmp.id_);
    std::swap(close_, tmp.close_);
    return *this;
}

std::mutex& library_mutex() {
    static std::mutex m;
    return m;
}

void quiet_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

Handle open_file(const std::string& path, bool write) {
    quiet_errors();
    if (std::FILE* f = std::fopen(path.c_str(), "rb"))
        std::fclose(f);
    else
        throw Error(path + ": cannot open: " + std::strerror(errno));
    if (H5Fis_hdf5(path.c_str()) <= 0) throw Error(path + ": not an HDF5 file");
    return Handle(H5Fopen(path.c_str(), write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                  path + ": cannot open as HDF5");
}

Handle create_file(const std::string& path) {
    quiet_errors();
    return Handle(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                  path + ": cannot create the output file (directory missing or not writable?)");
}

bool exists(hid_t loc, const std::string& path) {
    std::string sofar;
    std::size_t at = 0;
    while (at < path.size()) {
        const std::size_t next = path.find('/', at + 1);
        sofar = path.substr(0, next);
        if (sofar != "/" && !sofar.empty() && H5Lexists(loc, sofar.c_str(), H5P_DEFAULT) <= 0) return false;
        if (next == std::string::npos) break;
        at = next;
    }
    return H5Oexists_by_name(loc, path.c_str(), H5P_DEFAULT) > 0;
}

Handle open_dataset(hid_t file, const std::string& path, const std::string& file_name) {
    if (!exists(file, path)) throw Error(file_name + ": no dataset " + path);
    return Handle(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose, file_name + ": cannot open dataset " + path);
}

std::vector<hsize_t> dataset_shape(hid_t dataset) {
    Handle space(H5Dget_space(dataset), H5Sclose, "dataset space");
    const int rank = H5Sget_simple_extent_ndims(space.get());
    std::vector<hsize_t> dims(rank > 0 ? static_cast<std::size_t>(rank) : 0);
    if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    return dims;
}

std::vector<hsize_t> chunk_shape(hid_t dataset) {
    Handle plist(H5Dget_create_plist(dataset), H5Pclose, "dataset creation properties");
    if (H5Pget_layout(plist.get()) != H5D_CHUNKED) return {};
    std::vector<hsize_t> dims(dataset_shape(dataset).size());
    H5Pget_chunk(plist.get(), static_cast<int>(dims.size()), dims.data());
    return dims;
}

template <class T>
std::vector<T> read_all(hid_t dataset, hid_t memtype, const std::string& what) {
    Handle space(H5Dget_space(dataset), H5Sclose, what + ": no dataspace");
    std::vector<T> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
    if (H5Dread(dataset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) throw Error(what + ": cannot read");
    return out;
}
template std::vector<float> read_all<float>(hid_t, hid_t, const std::string&);
template std::vector<double> read_all<double>(hid_t, hid_t, const std::string&);
template std::vector<std::int32_t> read_all<std::int32_t>(hid_t, hid_t, const std::string&);
template std::vector<std::uint32_t> read_all<std::uint32_t>(hid_t, hid_t, const std::string&);
template std::vector<std::uint8_t> read_all<std::uint8_t>(hid_t, hid_t, const std::string&);
template std::vector<std::int64_t> read_all<std::int64_t>(hid_t, hid_t, const std::string&);

std::vector<std::int64_t> read_int_attribute(hid_t loc, const std::string& object, const std::string& name) {
    Handle a(H5Aopen_by_name(loc, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
             object + ": no attribute " + name);
    Handle space(H5Aget_space(a.get()), H5Sclose, name);
    std::vector<std::int64_t> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
    if (H5Aread(a.get(), H5T_NATIVE_INT64, out.data()) < 0) throw Error(object + ": cannot read attribute " + name);
    return out;
}

std::vector<std::uint8_t> read_chunk(hid_t dataset, const std::vector<hsize_t>& offset, const std::string& what) {
    hsize_t bytes = 0;
    if (H5Dget_chunk_storage_size(dataset, offset.data(), &bytes) < 0) throw Error(what + ": chunk not stored");
    std::vector<std::uint8_t> out(bytes);
    std::uint32_t filters = 0;
    if (bytes && H5Dread_chunk(dataset, H5P_DEFAULT, offset.data(), &filters, out.data()) < 0)
        throw Error(what + ": direct chunk read failed");
    if (filters != 0) throw Error(what + ": the chunk was stored with its filter skipped (filter mask " + std::to_string(filters) + ")");
    return out;
}

}  // namespace bslz4::tool::h5
