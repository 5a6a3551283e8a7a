#include "imaged11_dataset.hpp"

#include "bslz4/error.hpp"
#include "hdf5_file.hpp"

namespace bslz4::tool {

namespace {

std::string joined(const std::string& folder, const std::string& name) {
    if (folder.empty() || (!name.empty() && name[0] == '/')) return name;
    return folder.back() == '/' ? folder + name : folder + "/" + name;
}

}  // namespace

std::vector<std::string> ImageD11Dataset::inputs() const {
    std::vector<std::string> out;
    for (const std::string& f : imagefiles) out.push_back(joined(datapath, f));
    return out;
}

std::vector<std::string> ImageD11Dataset::outputs() const {
    std::vector<std::string> out;
    for (const std::string& f : sparsefiles) out.push_back(joined(analysispath, f));
    return out;
}

ImageD11Dataset read_imaged11_dataset(const std::string& path) {
    const h5::Handle file = h5::open_file(path);
    const hid_t f = file.get();
    ImageD11Dataset ds;
    ds.file = path;
    const std::string where = path + " (ImageD11's dataset file): ";
    // DataSet.save writes its names as attributes of the root, its string lists as datasets
    // there; the segmenter's options load them from either.
    const auto text = [&](const char* name) -> std::string {
        if (h5::has_attribute(f, "/", name, path)) return h5::read_text_attribute(f, "/", name);
        if (h5::exists(f, std::string("/") + name, path)) {
            const auto v = h5::read_text_list(h5::open_dataset(f, std::string("/") + name, path).get(), path + ":" + name);
            if (v.size() == 1) return v[0];
        }
        throw Error(ErrorCode::bad_argument, where + "no " + name + " (not a DataSet saved by ImageD11?)");
    };
    const auto list = [&](const char* name) {
        if (!h5::exists(f, std::string("/") + name, path))
            throw Error(ErrorCode::bad_argument, where + "no " + name +
                                                     " (ImageD11 writes it when the dataset imports its image files: "
                                                     "DataSet.import_all)");
        return h5::read_text_list(h5::open_dataset(f, std::string("/") + name, path).get(), path + ":" + name);
    };
    ds.datapath = text("datapath");
    ds.analysispath = text("analysispath");
    ds.limapath = text("limapath");
    ds.imagefiles = list("imagefiles");
    ds.sparsefiles = list("sparsefiles");
    if (ds.imagefiles.size() != ds.sparsefiles.size())
        throw Error(ErrorCode::bad_argument, where + std::to_string(ds.imagefiles.size()) + " imagefiles but " +
                                                 std::to_string(ds.sparsefiles.size()) + " sparsefiles");
    if (ds.imagefiles.empty()) throw Error(ErrorCode::bad_argument, where + "no imagefiles");
    const std::string seg = "/lima_segmenter";
    if (h5::exists(f, seg, path)) {
        const auto number = [&](const char* name) -> std::optional<double> {
            if (!h5::has_attribute(f, seg, name, path)) return std::nullopt;
            const auto v = h5::read_double_attribute(f, seg, name);
            if (v.size() != 1) throw Error(ErrorCode::bad_argument, where + "lima_segmenter's " + name + " is not one number");
            return v[0];
        };
        const auto count = [&](const char* name) -> std::optional<std::size_t> {
            const auto v = number(name);
            if (!v) return std::nullopt;
            if (!(*v >= 0) || *v != static_cast<double>(static_cast<std::size_t>(*v)))
                throw Error(ErrorCode::bad_argument, where + "lima_segmenter's " + name + " = " + std::to_string(*v) +
                                                         " is not a count");
            return static_cast<std::size_t>(*v);
        };
        ds.cut = number("cut");
        ds.howmany = count("howmany");
        ds.pixels_in_spot = count("pixels_in_spot");
        if (h5::has_attribute(f, seg, "maskfile", path)) ds.maskfile = h5::read_text_attribute(f, seg, "maskfile");
    }
    return ds;
}

}  // namespace bslz4::tool
