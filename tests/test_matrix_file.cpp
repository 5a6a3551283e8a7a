// Matrix files read as users' tools write them: indices and indptr stored as int32 (scipy's and
// pyFAI's), narrower integers or int64 give the same matrix; a stored value int32 cannot hold,
// or a negative one below -1, is refused naming the array and the entry.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/error.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/matrix_file.hpp"
#include "matrix_file_writer.hpp"
#include "matrix_support.hpp"
#include "tool_runner.hpp"

using namespace bslz4;
using test::temp_path;

namespace {

constexpr std::size_t kPixels = 97, kBins = 13;

// m in group /m of a new file `name`, its index arrays stored as index_type (indices given: in
// place of m's); returns FILE:/m.
std::string matrix_file(const std::string& name, const test::RawMatrix& m, hid_t index_type,
                        const std::vector<std::int64_t>& indices = {}) {
    const std::string path = temp_path(name);
    std::remove(path.c_str());
    const tool::h5::Handle file = tool::h5::create_file(path);
    test::write_matrix_arrays(file.get(), "m", m, false, index_type, indices);
    return path + ":/m";
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
    const test::RawMatrix raw = test::random_csr(kBins, kPixels, 2.0, 5);
    const IntegrationMatrix m = normalise_matrix(raw.input());
    const hid_t types[] = {H5T_STD_I32LE, H5T_STD_I32BE, H5T_STD_U16LE, H5T_STD_I16LE, H5T_STD_U32LE, H5T_STD_I64LE, H5T_STD_U64BE};
    int k = 0;
    for (hid_t type : types) {
        const IntegrationMatrix got =
            tool::read_matrix_file(matrix_file("matrix_types_" + std::to_string(k++) + ".h5", raw, type), kPixels).matrix;
        CHECK(got.bins == m.bins);
        CHECK(got.row_start == m.row_start);
        CHECK(got.pixel == m.pixel);
        CHECK(got.weight == m.weight);
    }
}

TEST_CASE("an index int32 cannot hold, or below -1, is refused naming the array and the entry", "[matrix-file]") {
    const test::RawMatrix raw = test::random_csr(kBins, kPixels, 2.0, 6);
    std::vector<std::int64_t> indices(raw.indices.begin(), raw.indices.end());
    indices[3] = std::int64_t{1} << 31;
    CHECK_THAT(refusal(matrix_file("matrix_wide.h5", raw, H5T_STD_I64LE, indices)), Catch::Contains("indices: entry 3 out of range"));
    CHECK_THAT(refusal(matrix_file("matrix_wide_u32.h5", raw, H5T_STD_U32LE, indices)),
               Catch::Contains("indices: entry 3 out of range"));
    indices[3] = -5;
    CHECK_THAT(refusal(matrix_file("matrix_negative.h5", raw, H5T_STD_I32LE, indices)),
               Catch::Contains("indices: entry 3 out of range"));
    CHECK_THAT(refusal(matrix_file("matrix_negative64.h5", raw, H5T_STD_I64LE, indices)),
               Catch::Contains("indices: entry 3 out of range"));
}
