// A mask file as bslz4 sparse's --mask and --use-mask name it: an EDF image, the whole file
// (ImageD11's maskfile, pyFAI's), or FILE:PATH of an HDF5 dataset, read in its own type (any
// nonzero value, NaN too, is nonzero). What nonzero means is the caller's (the two options differ
// only there).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_file.hpp"

namespace bslz4::tool {

struct MaskFile {
    std::vector<std::uint8_t> nonzero;  // ni x nj: 1 where the file's value is nonzero
    h5::FileIdentity file;              // the file read (to refuse an output over it)
};

// Errors name the spec: not FILE:PATH, no such file or dataset, another size than ni x nj.
MaskFile read_mask_file(const std::string& spec, std::size_t ni, std::size_t nj);

}  // namespace bslz4::tool
