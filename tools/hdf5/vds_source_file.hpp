// Where a VDS mapping's source file is, found as HDF5 finds it.
#pragma once
#include <string>
#include <vector>

namespace bslz4::tool {

// The file a mapping's source file name names, found as HDF5 finds it for a VDS: an absolute
// name as it is, then (with an absolute name's last part) each folder of $HDF5_VDS_PREFIX
// ("${ORIGIN}" the VDS file's folder), the dataset access's virtual prefix, the VDS file's folder,
// the working folder, and the folder of the VDS file's name with links resolved. "" when none is
// an HDF5 file; `tried` lists what was looked at.
std::string resolve_source_file(const std::string& name, const std::string& vds_file, const std::string& access_prefix,
                                std::vector<std::string>& tried);

}  // namespace bslz4::tool
