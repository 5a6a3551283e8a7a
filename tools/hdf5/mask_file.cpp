#include "mask_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "bslz4/error.hpp"
#include "edf/edf_mask.hpp"

namespace bslz4::tool {

MaskFile read_mask_file(const std::string& spec, std::size_t ni, std::size_t nj) {
    MaskFile m;
    if (is_edf_file(spec)) {
        m.nonzero = read_edf_nonzero(spec, ni, nj);
        struct stat st {};
        if (stat(spec.c_str(), &st) != 0)
            throw Error(ErrorCode::io, "mask " + spec + ": cannot tell which file it is (" + std::strerror(errno) + ")");
        m.file = {spec, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
        return m;
    }
    const std::size_t colon = spec.rfind(':');
    if (colon == std::string::npos || colon == 0) throw Error(ErrorCode::bad_argument, "mask '" + spec + "': expected FILE:PATH");
    const std::string file_name = spec.substr(0, colon), path = spec.substr(colon + 1);
    const h5::Handle file = h5::open_file(file_name);
    m.file = h5::file_identity(file.get(), spec);
    const h5::Handle d = h5::open_dataset(file.get(), path, file_name);
    m.nonzero = h5::read_nonzero(d.get(), ni * nj, spec);
    return m;
}

}  // namespace bslz4::tool
