#include "vds_source_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include <hdf5.h>

namespace bslz4::tool {

namespace {

std::string folder_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string joined(const std::string& folder, const std::string& name) {
    if (folder.empty()) return name;
    return folder.back() == '/' ? folder + name : folder + "/" + name;
}

std::string expand_origin(const std::string& prefix, const std::string& vds_file) {
    const std::string origin = "${ORIGIN}";
    if (prefix.compare(0, origin.size(), origin) != 0) return prefix;
    std::string folder = folder_of(vds_file);
    if (folder.size() > 1) folder.pop_back();  // its trailing '/'
    return (folder.empty() ? std::string(".") : folder) + prefix.substr(origin.size());
}

bool is_hdf5_file(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    return H5Fis_hdf5(path.c_str()) > 0;
}

}  // namespace

std::string resolve_source_file(const std::string& name, const std::string& vds_file, const std::string& access_prefix,
                                std::vector<std::string>& tried) {
    const auto found = [&](const std::string& path) {
        tried.push_back(path);
        return is_hdf5_file(path);
    };
    std::string relative = name;
    if (!name.empty() && name[0] == '/') {
        if (found(name)) return name;
        relative = name.substr(name.rfind('/') + 1);
    }
    if (const char* env = std::getenv("HDF5_VDS_PREFIX")) {
        const std::string prefixes = env;
        for (std::size_t at = 0; at <= prefixes.size();) {
            const std::size_t colon = std::min(prefixes.find(':', at), prefixes.size());
            const std::string prefix = prefixes.substr(at, colon - at);
            if (!prefix.empty() && found(joined(expand_origin(prefix, vds_file), relative))) return tried.back();
            at = colon + 1;
        }
    }
    if (!access_prefix.empty() && access_prefix != "." && found(joined(expand_origin(access_prefix, vds_file), relative)))
        return tried.back();
    const std::string folder = folder_of(vds_file);
    if (!folder.empty() && found(joined(folder, relative))) return tried.back();
    if (found(relative)) return relative;
    char real[PATH_MAX];
    if (realpath(vds_file.c_str(), real)) {
        const std::string real_folder = folder_of(real);
        if (real_folder != folder && found(joined(real_folder, relative))) return tried.back();
    }
    return "";
}

}  // namespace bslz4::tool
