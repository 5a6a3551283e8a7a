// A matrix group written as a pyFAI engine's arrays may be saved (data, indices, indptr, and the
// attribute shape when asked), for the tests that read matrix files: the index arrays stored as
// any integer type, and indices no int32 holds for the refusals.
#pragma once
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "hdf5/hdf5_file.hpp"
#include "matrix_support.hpp"

namespace bslz4::test {

// `index_type`: how indices and indptr are stored. `indices`, when given, are stored in place
// of m's. `storage`: the arrays' creation properties (chunks, filters); `data_type`: how the
// weights are stored.
inline void write_matrix_arrays(hid_t file, const std::string& group, const RawMatrix& m, bool with_shape,
                                hid_t index_type = H5T_NATIVE_INT32, const std::vector<std::int64_t>& indices = {},
                                hid_t storage = H5P_DEFAULT, hid_t data_type = H5T_NATIVE_FLOAT) {
    tool::h5::Handle g(H5Gcreate2(file, group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, group);
    auto put = [&](const char* name, hid_t stored, hid_t type, const void* data, std::size_t n) {
        const hsize_t dims[1] = {n};
        tool::h5::Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, name);
        tool::h5::Handle d(H5Dcreate2(g.get(), name, stored, space.get(), H5P_DEFAULT, storage, H5P_DEFAULT), H5Dclose, name);
        REQUIRE(H5Dwrite(d.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    };
    put("data", data_type, H5T_NATIVE_FLOAT, m.data.data(), m.data.size());
    if (indices.empty())
        put("indices", index_type, H5T_NATIVE_INT32, m.indices.data(), m.indices.size());
    else
        put("indices", index_type, H5T_NATIVE_INT64, indices.data(), indices.size());
    put("indptr", index_type, H5T_NATIVE_INT32, m.indptr.data(), m.indptr.size());
    if (with_shape) {
        const std::int64_t shape[2] = {static_cast<std::int64_t>(m.bins), static_cast<std::int64_t>(m.pixels)};
        const hsize_t dims[1] = {2};
        tool::h5::Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose, "shape");
        tool::h5::Handle a(H5Acreate2(g.get(), "shape", H5T_NATIVE_INT64, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                           "shape");
        REQUIRE(H5Awrite(a.get(), H5T_NATIVE_INT64, shape) >= 0);
    }
}

}  // namespace bslz4::test
