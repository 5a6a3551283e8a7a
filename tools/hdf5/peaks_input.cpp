#include "peaks_input.hpp"

#include "bslz4/error.hpp"

namespace bslz4::tool {

namespace {

Error bad(const std::string& what) { return Error(ErrorCode::bad_argument, what); }

// The first `count` values of a 1-D dataset, in memory type `type`.
template <class T>
std::vector<T> read_head(hid_t dataset, hid_t type, std::size_t count, const std::string& what) {
    std::vector<T> out(count);
    if (count == 0) return out;
    h5::Handle file_space(H5Dget_space(dataset), H5Sclose, what + ": no dataspace");
    const hsize_t start = 0, n = count;
    if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &n, nullptr) < 0)
        throw h5::failure(what + ": cannot select its first " + std::to_string(count) + " values");
    h5::Handle mem_space(H5Screate_simple(1, &n, nullptr), H5Sclose, what);
    if (H5Dread(dataset, type, mem_space.get(), file_space.get(), H5P_DEFAULT, out.data()) < 0)
        throw h5::failure(what + ": cannot read");
    return out;
}

std::size_t length_of(hid_t dataset, const std::string& what) {
    const auto shape = h5::dataset_shape(dataset);
    if (shape.size() != 1) throw bad(what + " is not 1-D (" + std::to_string(shape.size()) + " dimensions)");
    return static_cast<std::size_t>(shape[0]);
}

std::size_t count_attribute(hid_t file, const std::string& group, const char* name, const std::string& where) {
    if (!h5::has_attribute(file, group, name, where)) throw bad(where + " has no attribute " + name);
    const auto v = h5::read_int_attribute(file, group, name);
    if (v.size() != 1 || v[0] < 0) throw bad(where + "'s attribute " + name + " is not one count");
    return static_cast<std::size_t>(v[0]);
}

}  // namespace

ImageD11Scans read_imaged11_scans(const std::string& path) {
    const h5::Lock lock;
    const h5::Handle file = h5::open_file(path);
    const hid_t f = file.get();
    ImageD11Scans ds;
    ds.file = path;
    const std::string where = path + " (ImageD11's dataset file)";
    const auto text = [&](const char* name) -> std::string {
        return h5::has_attribute(f, "/", name, path) ? h5::read_text_attribute(f, "/", name) : std::string();
    };
    ds.sparsefile = text("sparsefile");
    ds.pksfile = text("pksfile");
    if (!h5::exists(f, "/scans", path)) throw bad(where + " has no scans (DataSet.import_scans writes them)");
    ds.scans = h5::read_text_list(h5::open_dataset(f, "/scans", path).get(), path + ":scans");
    if (ds.scans.empty()) throw bad(where + ": its scans are empty");
    if (!h5::exists(f, "/omega", path)) throw bad(where + " has no omega (DataSet.import_motors writes it)");
    const h5::Handle omega = h5::open_dataset(f, "/omega", path);
    const auto shape = h5::dataset_shape(omega.get());
    if (shape.size() != 2 || shape[0] != ds.scans.size())
        throw bad(where + ": omega is not " + std::to_string(ds.scans.size()) + " rows (one a scan) of angles");
    const auto values = h5::read_all<double>(omega.get(), H5T_NATIVE_DOUBLE, path + ":omega");
    const std::size_t frames = static_cast<std::size_t>(shape[1]);
    for (std::size_t r = 0; r < ds.scans.size(); ++r)
        ds.omega.emplace_back(values.begin() + std::ptrdiff_t(r * frames), values.begin() + std::ptrdiff_t((r + 1) * frames));
    return ds;
}

SparsePixelsFile::SparsePixelsFile(const std::string& path) : path_(path) {
    const h5::Lock lock;
    file_ = h5::open_file(path);
}

peaks::ScanPixels SparsePixelsFile::read(const std::string& group, const std::vector<double>& omega,
                                         const std::string& algorithm) const {
    const h5::Lock lock;
    const hid_t f = file_.get();
    const std::string where = path_ + ":" + group;
    if (group.find("::") != std::string::npos)
        throw bad(where + ": a scan of a range of frames (\"SCAN::[start:end]\") is not read; give whole scans");
    if (!h5::exists(f, group, path_)) throw bad(where + ": no such scan group in the sparse file");
    peaks::ScanPixels p;
    p.name = where;
    const std::size_t frames = count_attribute(f, group, "nframes", where);
    p.rows = count_attribute(f, group, "shape0", where);
    p.cols = count_attribute(f, group, "shape1", where);
    if (p.rows > 65536 || p.cols > 65536) throw bad(where + ": frames of " + std::to_string(p.rows) + " x " +
                                                    std::to_string(p.cols) + " do not fit uint16 row/col");
    const h5::Handle nnz_set = h5::open_dataset(f, group + "/nnz", path_);
    const std::size_t nnz_length = length_of(nnz_set.get(), where + "/nnz");
    if (nnz_length < frames)
        throw bad(where + ": nnz has " + std::to_string(nnz_length) + " values for its nframes = " + std::to_string(frames));
    const auto nnz = read_head<std::int64_t>(nnz_set.get(), H5T_NATIVE_INT64, frames, where + "/nnz");
    const std::uint64_t frame_pixels = std::uint64_t(p.rows) * p.cols;
    for (std::size_t k = 0; k < frames; ++k) {
        if (nnz[k] < 0 || std::uint64_t(nnz[k]) > frame_pixels)
            throw bad(where + ": frame " + std::to_string(k) + " lists " + std::to_string(nnz[k]) +
                      " pixels, not 0 to its " + std::to_string(frame_pixels));
        p.first.push_back(p.first.back() + std::uint64_t(nnz[k]));
    }
    const std::uint64_t total = p.first.back();
    const auto column = [&](const char* name) {
        h5::Handle d = h5::open_dataset(f, group + "/" + name, path_);
        const std::size_t n = length_of(d.get(), where + "/" + name);
        if (n < total)
            throw bad(where + ": " + name + " has " + std::to_string(n) + " values but nnz lists " + std::to_string(total) +
                      " pixels");
        return d;
    };
    const h5::Handle row = column("row"), col = column("col"), intensity = column("intensity");
    p.row = read_head<std::uint16_t>(row.get(), H5T_NATIVE_UINT16, total, where + "/row");
    p.col = read_head<std::uint16_t>(col.get(), H5T_NATIVE_UINT16, total, where + "/col");
    p.intensity = read_head<float>(intensity.get(), H5T_NATIVE_FLOAT, total, where + "/intensity");
    p.omega = omega;
    if (h5::has_attribute(f, group, "peaks_algorithm", where) && h5::read_text_attribute(f, group, "peaks_algorithm") == algorithm &&
        h5::exists(f, group + "/labels", path_) && h5::exists(f, group + "/nlabels", path_)) {
        const h5::Handle labels = column("labels"), nlabels = h5::open_dataset(f, group + "/nlabels", path_);
        if (length_of(nlabels.get(), where + "/nlabels") < frames)
            throw bad(where + ": nlabels has fewer values than its nframes = " + std::to_string(frames));
        p.labels = read_head<std::int32_t>(labels.get(), H5T_NATIVE_INT32, total, where + "/labels");
        p.nlabels = read_head<std::uint32_t>(nlabels.get(), H5T_NATIVE_UINT32, frames, where + "/nlabels");
    }
    return p;
}

}  // namespace bslz4::tool
