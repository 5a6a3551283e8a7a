#include "scan_layout.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "bslz4/error.hpp"

namespace bslz4::tool::scan_layout {

bool hard_links_only(hid_t file, const std::string& path) {
    for (std::size_t at = path.find('/', 1);; at = path.find('/', at + 1)) {
        const std::string link = path.substr(0, at);
        H5L_info_t info{};
        if (H5Lget_info(file, link.c_str(), &info, H5P_DEFAULT) < 0)
            throw h5::failure("cannot read the link " + link + " (damaged file?)");  // it exists: exists() said so
        if (info.type != H5L_TYPE_HARD) return false;
        if (at == std::string::npos) return true;
    }
}

bool is_frames_dataset(hid_t file, const std::string& path, const std::string& file_name) {
    if (!h5::exists(file, path, file_name) || !hard_links_only(file, path)) return false;
    const hid_t object = H5Oopen(file, path.c_str(), H5P_DEFAULT);
    if (object < 0) return false;
    const bool frames = H5Iget_type(object) == H5I_DATASET && h5::dataset_shape(object).size() == 3;
    H5Oclose(object);
    return frames;
}

std::vector<std::string> lima_datasets(hid_t file, const std::string& file_name) {
    std::vector<std::string> found;
    for (const std::string& entry : h5::link_names(file, "/", file_name)) {
        if (entry.rfind("entry_", 0) != 0) continue;
        for (const std::string& instrument : h5::link_names(file, "/" + entry, file_name))
            for (const std::string& detector : h5::link_names(file, "/" + entry + "/" + instrument, file_name)) {
                const std::string path = "/" + entry + "/" + instrument + "/" + detector + "/data";
                if (is_frames_dataset(file, path, file_name)) found.push_back(path);
            }
    }
    return found;
}

std::vector<std::string> eiger_data_links(hid_t file, const std::string& file_name) {
    std::vector<std::string> names;
    for (const std::string& name : h5::link_names(file, "/entry/data", file_name)) {
        const bool printable = std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c < 127; });
        if (printable && name.rfind("data_", 0) != 0) continue;
        const bool numbered = name.size() == 11 && name.find_first_not_of("0123456789", 5) == std::string::npos;
        if (!printable || !numbered)
            throw Error(ErrorCode::io, file_name + ": /entry/data holds a link named '" + (printable ? name : "(unprintable)") +
                                           "', not data_NNNNNN: a damaged or unexpected data link; the frames cannot be "
                                           "known to be whole (give --dataset PATH to read one dataset)");
        names.push_back(name);  // in name order: numbers of six digits sort as numbers
    }
    for (std::size_t k = 0; k < names.size(); ++k) {
        char expected[32];
        std::snprintf(expected, sizeof expected, "data_%06zu", k + 1);
        if (names[k] != expected)
            throw Error(ErrorCode::io, file_name + ": /entry/data has " + names[k] + " but no " + expected +
                                           ": the data links of an Eiger master must follow on from data_000001 with no gap "
                                           "(a missing link would drop frames)");
    }
    for (std::string& name : names) name = "/entry/data/" + name;
    return names;
}

std::size_t eiger_frames_recorded(hid_t file, const std::string& file_name) {
    const std::string place = "/entry/instrument/detector/detectorSpecific/";
    auto value = [&](const char* name) -> std::int64_t {
        const std::string path = place + name;
        if (!h5::exists(file, path, file_name)) return -1;
        const h5::Handle d = h5::open_dataset(file, path, file_name);
        const auto v = h5::read_all<std::int64_t>(d.get(), H5T_NATIVE_INT64, file_name + ":" + path);
        if (v.size() != 1 || v[0] < 0) throw Error(ErrorCode::bad_argument, file_name + ":" + path + ": not one count");
        return v[0];
    };
    const std::int64_t images = value("nimages"), triggers = value("ntrigger");
    if (images < 0) return 0;
    return static_cast<std::size_t>(images) * static_cast<std::size_t>(triggers > 0 ? triggers : 1);
}

}  // namespace bslz4::tool::scan_layout
