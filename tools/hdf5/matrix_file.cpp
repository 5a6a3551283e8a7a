#include "matrix_file.hpp"

#include "bslz4/error.hpp"
#include "hdf5_file.hpp"

namespace bslz4::tool {

IntegrationMatrix read_matrix_file(const std::string& spec) {
    const std::size_t colon = spec.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size())
        throw Error("matrix '" + spec + "': expected FILE.h5:GROUP");
    const std::string file_name = spec.substr(0, colon);
    std::string group = spec.substr(colon + 1);
    if (group[0] != '/') group = "/" + group;
    const h5::Handle file = h5::open_file(file_name);
    const std::string what = file_name + ":" + group;
    auto read = [&](const char* name, auto zero, hid_t type) {
        const h5::Handle d = h5::open_dataset(file.get(), group + "/" + name, file_name);
        return h5::read_all<decltype(zero)>(d.get(), type, what + "/" + name);
    };
    const auto data = read("data", float{}, H5T_NATIVE_FLOAT);
    const auto indices = read("indices", std::int64_t{}, H5T_NATIVE_INT64);
    const auto indptr = read("indptr", std::int64_t{}, H5T_NATIVE_INT64);
    const auto shape = h5::read_int_attribute(file.get(), group, "shape");
    if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0) throw Error(what + ": attribute shape is not (bins, pixels)");
    // Indices as int32 (they are checked against the shape by normalise_matrix).
    auto narrow = [&](const std::vector<std::int64_t>& v, const char* name) {
        std::vector<std::int32_t> out(v.size());
        for (std::size_t k = 0; k < v.size(); ++k) {
            if (v[k] < -1 || v[k] > 0x7FFFFFFF) throw Error(what + "/" + name + ": entry " + std::to_string(k) + " out of range");
            out[k] = static_cast<std::int32_t>(v[k] < 0 ? -1 : v[k]);
        }
        return out;
    };
    const auto idx = narrow(indices, "indices"), ptr = narrow(indptr, "indptr");
    const std::size_t bins = static_cast<std::size_t>(shape[0]), pixels = static_cast<std::size_t>(shape[1]);
    const MatrixLayout layout = ptr.size() == bins + 1 ? MatrixLayout::csr : MatrixLayout::csc;
    const MatrixInput in{layout, bins, pixels, data.data(), data.size(), IndexType::i32, idx.data(), idx.size(),
                         ptr.data(), ptr.size()};
    try {
        return normalise_matrix(in);
    } catch (const Error& e) {
        throw Error(what + ": " + e.what());
    }
}

}  // namespace bslz4::tool
