// Matrix files read as users' tools write them: indices and indptr stored as int32 (scipy's and
// pyFAI's), narrower integers or int64 give the same matrix; a stored value int32 cannot hold,
// or a negative one below -1, is refused naming the array and the entry.
#include <catch2/catch.hpp>

#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/error.hpp"
#include "hdf5/contiguous_dataset.hpp"
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
// place of m's), with the storage and weight type given; returns FILE:/m.
std::string matrix_file(const std::string& name, const test::RawMatrix& m, hid_t index_type,
                        const std::vector<std::int64_t>& indices = {}, hid_t storage = H5P_DEFAULT,
                        hid_t data_type = H5T_NATIVE_FLOAT) {
    const std::string path = temp_path(name);
    std::remove(path.c_str());
    const tool::h5::Handle file = tool::h5::create_file(path);
    test::write_matrix_arrays(file.get(), "m", m, false, index_type, indices, storage, data_type);
    return path + ":/m";
}

void check_same(const IntegrationMatrix& got, const IntegrationMatrix& m) {
    CHECK(got.bins == m.bins);
    CHECK(got.pixels == m.pixels);
    CHECK(got.row_start == m.row_start);
    CHECK(got.pixel == m.pixel);
    CHECK(got.weight == m.weight);
}

// raw with each bin's pixels in order, as pyFAI and scipy write them.
test::RawMatrix rows_in_order(test::RawMatrix raw) {
    for (std::size_t b = 0; b < raw.bins; ++b) {
        std::vector<std::pair<std::int32_t, float>> row;
        for (std::int32_t k = raw.indptr[b]; k < raw.indptr[b + 1]; ++k) row.emplace_back(raw.indices[k], raw.data[k]);
        std::stable_sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        for (std::int32_t k = raw.indptr[b]; k < raw.indptr[b + 1]; ++k) std::tie(raw.indices[k], raw.data[k]) = row[k - raw.indptr[b]];
    }
    return raw;
}

// normalise_matrix's answer for arrays handed over: the matrix, or the refusal's message.
std::string handed_over(const test::RawMatrix& raw, IntegrationMatrix& out) {
    try {
        out = normalise_matrix(raw.bins, raw.pixels, raw.data, std::vector<std::uint32_t>(raw.indices.begin(), raw.indices.end()),
                               std::vector<std::uint32_t>(raw.indptr.begin(), raw.indptr.end()));
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}
std::string viewed(const test::RawMatrix& raw) {
    try {
        normalise_matrix(raw.input());
    } catch (const Error& e) {
        return e.what();
    }
    return "";
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

TEST_CASE("a CSR matrix handed over is the matrix its arrays viewed give, refused alike", "[matrix-file]") {
    for (const bool ordered : {true, false}) {  // taken over as they are, or sorted into a copy
        const test::RawMatrix raw = ordered ? rows_in_order(test::random_csr(kBins, kPixels, 2.0, 7)) : test::random_csr(kBins, kPixels, 2.0, 7);
        IntegrationMatrix got;
        REQUIRE(handed_over(raw, got).empty());
        check_same(got, normalise_matrix(raw.input()));
        test::RawMatrix bad = raw;
        bad.indices[4] = -1;
        CHECK(handed_over(bad, got) == viewed(bad));
        CHECK_THAT(handed_over(bad, got), Catch::Contains("matrix index -1 at entry 4"));
        bad = raw;
        bad.indices[2] = static_cast<std::int32_t>(kPixels);
        CHECK(handed_over(bad, got) == viewed(bad));
        bad = raw;
        bad.indptr[3] = bad.indptr[4] + 1;
        CHECK(handed_over(bad, got) == viewed(bad));
        CHECK_THAT(handed_over(bad, got), Catch::Contains("indptr decreases"));
        bad = raw;
        bad.indptr.pop_back();
        CHECK(handed_over(bad, got) == viewed(bad));
    }
}

TEST_CASE("matrix arrays stored contiguously, chunked, compressed or big-endian give the same matrix", "[matrix-file]") {
    // Contiguous little-endian arrays are read by position on several threads; the rest through HDF5.
    for (const bool ordered : {true, false}) {
        const test::RawMatrix raw = ordered ? rows_in_order(test::random_csr(kBins, kPixels, 2.0, 8)) : test::random_csr(kBins, kPixels, 2.0, 8);
        const IntegrationMatrix m = normalise_matrix(raw.input());
        const std::string tag = ordered ? "ordered" : "unordered";
        check_same(tool::read_matrix_file(matrix_file("matrix_contiguous_" + tag + ".h5", raw, H5T_STD_I32LE), kPixels).matrix, m);
        const tool::h5::Handle chunked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "storage");
        const hsize_t chunk[1] = {7};
        REQUIRE(H5Pset_chunk(chunked.get(), 1, chunk) >= 0);
        check_same(tool::read_matrix_file(matrix_file("matrix_chunked_" + tag + ".h5", raw, H5T_STD_I32LE, {}, chunked.get()), kPixels).matrix, m);
        REQUIRE(H5Pset_deflate(chunked.get(), 4) >= 0);
        check_same(tool::read_matrix_file(matrix_file("matrix_deflate_" + tag + ".h5", raw, H5T_STD_I32LE, {}, chunked.get()), kPixels).matrix, m);
        check_same(tool::read_matrix_file(matrix_file("matrix_be_" + tag + ".h5", raw, H5T_STD_I32BE, {}, H5P_DEFAULT, H5T_IEEE_F32BE), kPixels)
                       .matrix,
                   m);
    }
}

TEST_CASE("a matrix file larger than one thread's share is read whole", "[matrix-file]") {
    // 4 M weights: 16 MB arrays, read by position in pieces on several threads.
    constexpr std::size_t pixels = 3000000;
    const test::RawMatrix raw = rows_in_order(test::random_csr(40, pixels, 2.0, 9));
    REQUIRE(raw.data.size() > 3000000);
    const std::string path = temp_path("matrix_large.h5");
    std::remove(path.c_str());
    {
        const tool::h5::Handle file = tool::h5::create_file(path);
        test::write_matrix_arrays(file.get(), "m", raw, true);
    }
    check_same(tool::read_matrix_file(path + ":/m", pixels).matrix, normalise_matrix(raw.input()));
    {
        const tool::h5::Handle file = tool::h5::open_file(path);
        const tool::h5::Handle data = tool::h5::open_dataset(file.get(), "/m/data", path);
        const auto storage = tool::h5::contiguous_storage(data.get(), H5T_NATIVE_FLOAT, "data");
        REQUIRE(storage);  // the path the read above took
        CHECK(storage->count == raw.data.size());
        CHECK_FALSE(tool::h5::contiguous_storage(data.get(), H5T_NATIVE_DOUBLE, "data"));  // another type: HDF5 converts
    }
    std::remove(path.c_str());
}

TEST_CASE("bin normalisation is each bin's sum of weight x correction over the pixels used, on any number of threads",
          "[matrix-file]") {
    // Over 2 M weights: summed on several threads, a bin on one, in the matrix's order.
    constexpr std::size_t pixels = 1000000;
    const IntegrationMatrix m = normalise_matrix(test::random_csr(300, pixels, 3.5, 10).input());
    REQUIRE(m.nnz() > 2000000);
    std::vector<float> correction(pixels);
    std::vector<std::uint8_t> use(pixels);
    for (std::size_t p = 0; p < pixels; ++p) {
        correction[p] = 0.5f + static_cast<float>(p % 1013) / 1013.0f;
        use[p] = p % 11 != 0;
    }
    const std::vector<double> got = tool::bin_normalisation(m, correction, use);
    REQUIRE(got.size() == m.bins);
    for (std::size_t b = 0; b < m.bins; ++b) {
        double sum = 0;
        for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k)
            if (use[m.pixel[k]]) sum += double(m.weight[k]) * double(correction[m.pixel[k]]);
        CHECK(got[b] == sum);
    }
}

TEST_CASE("a matrix file's bins are told from its shape or its CSR indptr without reading it; where that does not "
          "tell, or the file cannot, the answer is 0, never a guess",
          "[matrix-file]") {
    const test::RawMatrix raw = test::random_csr(kBins, kPixels, 2.0, 9);
    CHECK(tool::matrix_file_bins(matrix_file("bins_csr.h5", raw, H5T_NATIVE_INT32), kPixels) == kBins);
    // frames of unknown size: without the attribute, CSR and CSC cannot be told apart
    CHECK(tool::matrix_file_bins(matrix_file("bins_csr.h5", raw, H5T_NATIVE_INT32), 0) == 0);
    const std::string with_shape = temp_path("bins_shape.h5");
    {
        const tool::h5::Handle file = tool::h5::create_file(with_shape);
        test::write_matrix_arrays(file.get(), "m", raw, true);
    }
    CHECK(tool::matrix_file_bins(with_shape + ":/m", kPixels) == kBins);
    CHECK(tool::matrix_file_bins(with_shape + ":/m", 0) == kBins);
    // CSC without the attribute: indptr runs over the pixels, and the bins are the largest index + 1
    test::RawMatrix csc = raw;
    csc.indptr.assign(kPixels + 1, 0);
    csc.indices.clear();
    csc.data.clear();
    CHECK(tool::matrix_file_bins(matrix_file("bins_csc.h5", csc, H5T_NATIVE_INT32), kPixels) == 0);
    CHECK(tool::matrix_file_bins(temp_path("bins_missing.h5") + ":/m", kPixels) == 0);
    CHECK(tool::matrix_file_bins(with_shape + ":/nothing", kPixels) == 0);
    CHECK(tool::matrix_file_bins("no colon", kPixels) == 0);
    const std::string junk = temp_path("bins_junk.h5");
    {
        std::FILE* f = std::fopen(junk.c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fputs("not HDF5", f);
        std::fclose(f);
    }
    CHECK(tool::matrix_file_bins(junk + ":/m", kPixels) == 0);
    for (const char* name : {"bins_csr.h5", "bins_shape.h5", "bins_csc.h5", "bins_junk.h5"}) std::remove(temp_path(name).c_str());
}
