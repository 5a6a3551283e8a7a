// The h5:: readers of attributes and string lists (hdf5_file.hpp): what the files' metadata
// says, with every HDF5 failure an error naming what was read, never taken for "absent".
#include "hdf5_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace bslz4::tool::h5 {

bool has_attribute(hid_t loc, const std::string& object, const std::string& name, const std::string& what) {
    const htri_t there = H5Aexists_by_name(loc, object.c_str(), name.c_str(), H5P_DEFAULT);
    if (there < 0) throw failure(what + ": cannot tell whether " + object + " has the attribute " + name + " (damaged file?)");
    return there > 0;
}

std::vector<std::int64_t> read_int_attribute(hid_t loc, const std::string& object, const std::string& name) {
    Handle a(H5Aopen_by_name(loc, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
             object + ": no attribute " + name);
    Handle space(H5Aget_space(a.get()), H5Sclose, name);
    std::vector<std::int64_t> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
    if (H5Aread(a.get(), H5T_NATIVE_INT64, out.data()) < 0) throw failure(object + ": cannot read attribute " + name);
    return out;
}

// The memory type a variable-length string of the file's `type` is read as (its character set kept).
static Handle variable_text_type(hid_t type, const std::string& what) {
    Handle mem(H5Tcopy(H5T_C_S1), H5Tclose, what);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type));
    return mem;
}

std::vector<double> read_double_attribute(hid_t loc, const std::string& object, const std::string& name) {
    Handle a(H5Aopen_by_name(loc, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
             object + ": no attribute " + name);
    Handle space(H5Aget_space(a.get()), H5Sclose, name);
    std::vector<double> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
    if (H5Aread(a.get(), H5T_NATIVE_DOUBLE, out.data()) < 0) throw failure(object + ": cannot read attribute " + name);
    return out;
}

std::string read_text_attribute(hid_t loc, const std::string& object, const std::string& name) {
    Handle a(H5Aopen_by_name(loc, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
             object + ": no attribute " + name);
    Handle type(H5Aget_type(a.get()), H5Tclose, name);
    Handle space(H5Aget_space(a.get()), H5Sclose, name);
    if (H5Tget_class(type.get()) != H5T_STRING || H5Sget_simple_extent_npoints(space.get()) != 1)
        throw Error(ErrorCode::bad_argument, object + ": attribute " + name + " is not one string");
    if (H5Tis_variable_str(type.get()) > 0) {
        const Handle mem = variable_text_type(type.get(), name);
        char* text = nullptr;
        if (H5Aread(a.get(), mem.get(), &text) < 0) throw failure(object + ": cannot read attribute " + name);
        std::string out = text ? text : "";
        H5free_memory(text);
        return out;
    }
    const std::size_t size = H5Tget_size(type.get());
    std::string out(size, '\0');
    if (H5Aread(a.get(), type.get(), out.data()) < 0) throw failure(object + ": cannot read attribute " + name);
    out.resize(std::strlen(out.c_str()));
    return out;
}

std::vector<std::string> read_text_list(hid_t dataset, const std::string& what) {
    Handle type(H5Dget_type(dataset), H5Tclose, what);
    Handle space(H5Dget_space(dataset), H5Sclose, what);
    if (H5Tget_class(type.get()) != H5T_STRING || H5Sget_simple_extent_ndims(space.get()) > 1)
        throw Error(ErrorCode::bad_argument, what + ": not a list of strings");
    const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
    constexpr std::size_t kMostStrings = 1000000;  // as many as a campaign's list takes
    if (n > kMostStrings)
        throw Error(ErrorCode::bad_argument, what + ": " + std::to_string(n) + " strings, more than the " +
                                                 std::to_string(kMostStrings) + " a list may hold");
    std::vector<std::string> out;
    if (H5Tis_variable_str(type.get()) > 0) {
        const Handle mem = variable_text_type(type.get(), what);
        std::vector<char*> text(n, nullptr);
        if (H5Dread(dataset, mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()) < 0) throw failure(what + ": cannot read");
        for (char* t : text) out.emplace_back(t ? t : "");
        H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, text.data());
        return out;
    }
    const std::size_t size = H5Tget_size(type.get());
    std::vector<char> raw(n * size);
    if (H5Dread(dataset, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) < 0) throw failure(what + ": cannot read");
    for (std::size_t i = 0; i < n; ++i) {
        const char* p = raw.data() + i * size;
        out.emplace_back(p, strnlen(p, size));
    }
    return out;
}

}  // namespace bslz4::tool::h5
