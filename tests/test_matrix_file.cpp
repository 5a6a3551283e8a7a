// Matrix files read as users' tools write them: indices and indptr stored as int32 (scipy's and
// pyFAI's), narrower integers or int64 give the same matrix; a stored value int32 cannot hold,
// or a negative one below -1, is refused naming the array and the entry.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/error.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/matrix_file.hpp"
#include "matrix_support.hpp"
#include "tool_runner.hpp"

using namespace bslz4;
using test::temp_path;

namespace {

constexpr std::size_t kPixels = 97, kBins = 13;

// One 1-D dataset `name` of `values` stored as `file_type`.
template <class T>
void put(hid_t group, const char* name, const std::vector<T>& values, hid_t file_type, hid_t memory_type) {
    const hsize_t n = values.size();
    const tool::h5::Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "space");
    const tool::h5::Handle d(H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, name);
    REQUIRE(H5Dwrite(d.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
}

// m's CSR arrays in group /m of a new file, indices and indptr as int64 values stored as `index_type`.
std::string matrix_file(const std::string& name, const IntegrationMatrix& m, hid_t index_type,
                        std::vector<std::int64_t> indices = {}) {
    const std::string path = temp_path(name);
    std::remove(path.c_str());
    const tool::h5::Handle file = tool::h5::create_file(path);
    const tool::h5::Handle g(H5Gcreate2(file.get(), "m", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "group");
    if (indices.empty()) indices.assign(m.pixel.begin(), m.pixel.end());
    const std::vector<std::int64_t> indptr(m.row_start.begin(), m.row_start.end());
    put(g.get(), "data", m.weight, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT);
    put(g.get(), "indices", indices, index_type, H5T_NATIVE_INT64);
    put(g.get(), "indptr", indptr, index_type, H5T_NATIVE_INT64);
    return path;
}

std::string refusal(const std::string& spec) {
    try {
        tool::read_matrix_file(spec, kPixels);
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::bad_matrix);
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("matrix files with int32, narrower or int64 indices give the same matrix", "[matrix-file]") {
    const IntegrationMatrix m = normalise_matrix(test::random_csr(kBins, kPixels, 2.0, 5).input());
    const hid_t types[] = {H5T_STD_I32LE, H5T_STD_I32BE, H5T_STD_U16LE, H5T_STD_I16LE, H5T_STD_U32LE, H5T_STD_I64LE, H5T_STD_U64BE};
    int k = 0;
    for (hid_t type : types) {
        const IntegrationMatrix got =
            tool::read_matrix_file(matrix_file("matrix_types_" + std::to_string(k++) + ".h5", m, type) + ":/m", kPixels).matrix;
        CHECK(got.bins == m.bins);
        CHECK(got.row_start == m.row_start);
        CHECK(got.pixel == m.pixel);
        CHECK(got.weight == m.weight);
    }
}

TEST_CASE("an index int32 cannot hold, or below -1, is refused naming the array and the entry", "[matrix-file]") {
    const IntegrationMatrix m = normalise_matrix(test::random_csr(kBins, kPixels, 2.0, 6).input());
    std::vector<std::int64_t> indices(m.pixel.begin(), m.pixel.end());
    indices[3] = std::int64_t{1} << 31;
    CHECK_THAT(refusal(matrix_file("matrix_wide.h5", m, H5T_STD_I64LE, indices) + ":/m"),
               Catch::Contains("indices: entry 3 out of range"));
    CHECK_THAT(refusal(matrix_file("matrix_wide_u32.h5", m, H5T_STD_U32LE, indices) + ":/m"),
               Catch::Contains("indices: entry 3 out of range"));
    indices[3] = -5;
    CHECK_THAT(refusal(matrix_file("matrix_negative.h5", m, H5T_STD_I32LE, indices) + ":/m"),
               Catch::Contains("indices: entry 3 out of range"));
    CHECK_THAT(refusal(matrix_file("matrix_negative64.h5", m, H5T_STD_I64LE, indices) + ":/m"),
               Catch::Contains("indices: entry 3 out of range"));
}
