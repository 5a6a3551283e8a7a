// The h5:: writers the output file is made with: attributes (written over in place when their
// size is kept, as the counts are after every batch), extendible series of rows, whole float64
// datasets, and variable-length UTF-8 text as h5py writes a Python str.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_file.hpp"

namespace bslz4::tool::h5 {

// Writes attribute `name`: a scalar, or `count` values. One already there with as many values
// is written over in place (the counts are rewritten after every batch), else replaced.
void write_attribute(hid_t loc, const char* name, hid_t type, const void* value, const hsize_t* count = nullptr);
void write_attribute(hid_t loc, const char* name, std::int64_t v);
void write_attribute(hid_t loc, const char* name, double v);
void write_attribute(hid_t loc, const char* name, const std::string& v);
void write_attribute(hid_t loc, const char* name, const std::vector<std::string>& v);

// Variable-length UTF-8, as h5py writes a Python str (and as ImageD11's segmenter's itype is).
Handle text_type(const char* what);

// An extendible dataset of rows, each of shape `row` ({} for a value a row), chunked
// `chunk_rows` rows at a time, with creation properties `plist` (H5P_DEFAULT: none).
Handle series(hid_t group, const char* name, hid_t type, const std::vector<hsize_t>& row, std::size_t chunk_rows,
              hid_t plist = H5P_DEFAULT);
// One of `cols` columns (1-D when cols == 0).
Handle series(hid_t group, const char* name, hid_t type, std::size_t cols, std::size_t chunk_rows,
              hid_t plist = H5P_DEFAULT);

// Appends `rows` rows (of the dataset's own row shape) to a series.
void append_rows(hid_t dataset, hid_t type, const void* data, std::size_t rows, const char* name);

// A whole dataset of `shape` float64 values; returns it open (for its attributes).
Handle write_doubles(hid_t group, const char* name, const std::vector<hsize_t>& shape, const std::vector<double>& v);

}  // namespace bslz4::tool::h5
