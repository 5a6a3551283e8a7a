#include "peaks_input.hpp"

#include <algorithm>
#include <cstring>

#include "bslz4/decode.hpp"
#include "bslz4/error.hpp"
#include "scan_input.hpp"

namespace bslz4::tool {

namespace {

Error bad(const std::string& what) { return Error(ErrorCode::bad_argument, what); }

// Whether the dataset's only filter is bitshuffle (32008) and HDF5 has no plugin for it: then
// its chunks are read raw and decoded here, so that lists written with bitshuffle (ours, ImageD11's
// segmenter's) read on a host without the plugin.
bool bitshuffle_without_plugin(hid_t dataset) {
    if (H5Zfilter_avail(kBitshuffleFilter) > 0) return false;
    h5::Handle plist(H5Dget_create_plist(dataset), H5Pclose, "dataset creation properties");
    if (H5Pget_nfilters(plist.get()) != 1) return false;
    unsigned flags = 0, filter_config = 0;
    std::size_t n = 0;
    return H5Pget_filter2(plist.get(), 0, &flags, &n, nullptr, 0, nullptr, &filter_config) == H5Z_filter_t(kBitshuffleFilter);
}

// The first `count` values of a 1-D bitshuffle-lz4 dataset, its chunks decoded here, converted
// to `type` by HDF5. Every chunk's stored size is checked against the file and against what a
// chunk of its elements can take before it is read.
template <class T>
std::vector<T> read_head_decoding(hid_t dataset, hid_t type, std::size_t count, const std::string& what) {
    const auto chunk = h5::chunk_shape(dataset);
    if (chunk.size() != 1 || chunk[0] == 0) throw bad(what + ": a bitshuffle dataset of other than 1-D chunks");
    h5::Handle stored_type(H5Dget_type(dataset), H5Tclose, what);
    h5::Handle native(H5Tget_native_type(stored_type.get(), H5T_DIR_ASCEND), H5Tclose, what);
    const std::size_t elem = H5Tget_size(native.get()), per = static_cast<std::size_t>(chunk[0]);
    if (elem == 0 || elem > 8) throw bad(what + ": elements of " + std::to_string(elem) + " bytes");
    const std::size_t raw_bytes = per * elem, largest = raw_bytes + raw_bytes / 255 * 2 + 64 * (raw_bytes / 8192 + 1) + 16;
    std::vector<std::uint8_t> bytes(count * std::max(elem, sizeof(T)));
    for (std::size_t first = 0; first < count; first += per) {
        const std::vector<std::uint8_t> raw = h5::read_chunk(dataset, {hsize_t(first)}, what, largest);
        const std::vector<std::uint8_t> values = decode_chunk(ByteView(raw.data(), raw.size()), elem);
        if (values.size() != raw_bytes)
            throw Error(ErrorCode::wrong_decoded_size, what + ": the chunk at " + std::to_string(first) + " decodes to " +
                                                           std::to_string(values.size()) + " bytes, not " + std::to_string(raw_bytes));
        std::memcpy(bytes.data() + first * elem, values.data(), std::min(per, count - first) * elem);
    }
    if (count && H5Tconvert(native.get(), type, count, bytes.data(), nullptr, H5P_DEFAULT) < 0)
        throw h5::failure(what + ": cannot convert its values");
    std::vector<T> out(count);
    std::memcpy(out.data(), bytes.data(), count * sizeof(T));
    return out;
}

// The first `count` values of a 1-D dataset, in memory type `type`.
template <class T>
std::vector<T> read_head(hid_t dataset, hid_t type, std::size_t count, const std::string& what) {
    if (bitshuffle_without_plugin(dataset)) return read_head_decoding<T>(dataset, type, count, what);
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

std::vector<std::vector<std::string>> files_of_scans(const std::vector<std::string>& files, const std::string& limapath,
                                                     std::size_t scans, std::size_t frames) {
    std::vector<std::vector<std::string>> out(scans);
    std::size_t scan = 0, have = 0;
    for (const std::string& name : files) {
        std::size_t n = 0;
        {
            const h5::Lock lock;
            const h5::Handle f = h5::open_file(name);
            if (!h5::exists(f.get(), limapath, name)) throw bad(name + ": no group " + limapath + " (not a segmenter's sparse file?)");
            n = count_attribute(f.get(), limapath, "nframes", name + ":" + limapath);
        }
        if (scan == scans) throw bad(name + ": a sparse file beyond the dataset's " + std::to_string(scans) + " scans");
        if (have + n > frames)
            throw bad(name + ": its " + std::to_string(n) + " frames run past scan " + std::to_string(scan) + "'s " +
                      std::to_string(frames) + " (" + std::to_string(have) + " before it)");
        out[scan].push_back(name);
        have += n;
        if (have == frames) {
            ++scan;
            have = 0;
        }
    }
    if (scan != scans)
        throw bad("the sparse files make " + std::to_string(scan) + " of the dataset's " + std::to_string(scans) + " scans of " +
                  std::to_string(frames) + " frames");
    return out;
}

peaks::ScanPixels read_segmenter_files(const std::vector<std::string>& files, const std::string& limapath,
                                       const std::string& name, const std::vector<double>& omega, const std::string& algorithm) {
    peaks::ScanPixels scan;
    scan.name = name;
    bool all_labelled = true;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const SparsePixelsFile file(files[i]);
        const peaks::ScanPixels part = file.read(limapath, std::vector<double>(), algorithm);
        if (i == 0) {
            scan.rows = part.rows;
            scan.cols = part.cols;
        } else if (part.rows != scan.rows || part.cols != scan.cols) {
            throw bad(part.name + " has frames of " + std::to_string(part.rows) + " x " + std::to_string(part.cols) + ", " +
                      files[0] + " of " + std::to_string(scan.rows) + " x " + std::to_string(scan.cols) + ": one scan's files differ");
        }
        const std::uint64_t base = scan.first.back();
        for (std::size_t f = 1; f < part.first.size(); ++f) scan.first.push_back(base + part.first[f]);
        scan.row.insert(scan.row.end(), part.row.begin(), part.row.end());
        scan.col.insert(scan.col.end(), part.col.begin(), part.col.end());
        scan.intensity.insert(scan.intensity.end(), part.intensity.begin(), part.intensity.end());
        all_labelled = all_labelled && !part.nlabels.empty();
        if (all_labelled) {
            scan.labels.insert(scan.labels.end(), part.labels.begin(), part.labels.end());
            scan.nlabels.insert(scan.nlabels.end(), part.nlabels.begin(), part.nlabels.end());
        }
    }
    if (!all_labelled) {
        scan.labels.clear();
        scan.nlabels.clear();
    }
    scan.omega = omega;
    return scan;
}

}  // namespace bslz4::tool
