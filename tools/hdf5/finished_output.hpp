// Whether an existing output file is finished work, for a campaign's --resume: a scan whose
// output says it is done is not run again, and anything else at that name is left alone.
#pragma once
#include <string>

namespace bslz4::tool {

// "" when `output` was written by bslz4 sparse from the file `input` (the same file, by
// identity where the names differ), with cut `cut`, and every group of lists in it is complete;
// else what it is not ("written from OTHER.h5", "group /entry/data/data is incomplete", ...).
// An output that cannot be read is no answer: the HDF5 failure is thrown (io), never taken for
// "not finished" (which would replace it) or "finished" (which would skip it).
std::string unfinished_because(const std::string& output, const std::string& input, double cut);

}  // namespace bslz4::tool
