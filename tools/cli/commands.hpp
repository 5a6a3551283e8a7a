// The subcommands of bslz4. Each returns the exit code; UsageError -> 2, bslz4::Error -> 1.
#pragma once
#include <string>
#include <vector>

namespace bslz4::tool {

using Args = std::vector<std::string>;

int cmd_info(const Args& args);
int cmd_decode(const Args& args);
int cmd_encode(const Args& args);
int cmd_bench(const Args& args);
int cmd_demo(const Args& args);
int cmd_sparse(const Args& args);  // needs HDF5
int cmd_peaks(const Args& args);   // needs HDF5

}  // namespace bslz4::tool
