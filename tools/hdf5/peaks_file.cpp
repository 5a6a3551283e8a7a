#include "peaks_file.hpp"

#include <sys/stat.h>

#include "bslz4/error.hpp"
#include "hdf5_file.hpp"
#include "sparse/output_file.hpp"

namespace bslz4::tool {

namespace {

void text_attribute(hid_t loc, const char* name, const std::string& value) {
    const std::string what = std::string("cannot write attribute ") + name;
    h5::Handle type(H5Tcopy(H5T_C_S1), H5Tclose, what);
    if (H5Tset_size(type.get(), H5T_VARIABLE) < 0 || H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0) throw h5::failure(what);
    h5::Handle space(H5Screate(H5S_SCALAR), H5Sclose, what);
    h5::Handle a(H5Acreate2(loc, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, what);
    const char* text = value.c_str();
    if (H5Awrite(a.get(), type.get(), &text) < 0) throw h5::failure(what);
}

template <class T>
void number_attribute(hid_t loc, const char* name, hid_t file_type, hid_t mem_type, T value) {
    const std::string what = std::string("cannot write attribute ") + name;
    h5::Handle space(H5Screate(H5S_SCALAR), H5Sclose, what);
    h5::Handle a(H5Acreate2(loc, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, what);
    if (H5Awrite(a.get(), mem_type, &value) < 0) throw h5::failure(what);
}

// A whole int64 dataset of `shape`, with ImageD11's description.
void int64_dataset(hid_t group, const char* name, const std::vector<hsize_t>& shape, const std::int64_t* values,
                   const char* description) {
    const std::string what = std::string("cannot write pks2d/") + name;
    h5::Handle space(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr), H5Sclose, what);
    h5::Handle d(H5Dcreate2(group, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, what);
    hsize_t n = 1;
    for (const hsize_t s : shape) n *= s;
    if (n > 0 && H5Dwrite(d.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) throw h5::failure(what);
    if (description) text_attribute(d.get(), "description", description);
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {}, sb {};
    return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace

void check_peaks_output(const std::string& path, const PeaksFileInfo& info) {
    const OutputTarget where = output_target(path, info.overwrite);
    for (const std::string& input : info.inputs)
        if (same_file(where.target, input))
            throw Error(ErrorCode::bad_argument, path + " is " + input + ", which this run reads: give another output");
}

void write_peaks_file(const std::string& path, const peaks::PeakTable& t, const PeaksFileInfo& info) {
    check_peaks_output(path, info);
    const OutputTarget where = output_target(path, info.overwrite);
    TemporaryFile temporary(where);
    bool written = false;
    {
        const h5::Lock lock;
        h5::Handle file = h5::create_file(temporary.path());
        const hid_t root = file.get();
        text_attribute(root, "writer", "bslz4 peaks");
        text_attribute(root, "command_line", info.command_line);
        text_attribute(root, "sparse_file", info.sparse_file);
        text_attribute(root, "dataset_file", info.dataset_file);
        text_attribute(root, "algorithm", info.algorithm);
        if (info.wtmax) number_attribute(root, "wtmax", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, *info.wtmax);
        {
            h5::Handle g(H5Gcreate2(root, "pks2d", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "cannot create group pks2d");
            const hsize_t rows = t.npk.size(), peaks = t.peaks();
            int64_dataset(g.get(), "ipk", {rows + 1}, t.ipk.data(), "pointer to start of a scan");
            std::vector<std::int64_t> props;
            props.reserve(5 * peaks);
            for (const auto& column : t.properties) props.insert(props.end(), column.begin(), column.end());
            int64_dataset(g.get(), "pk_props", {5, peaks}, props.data(), "[ ( s1, sI, srI, scI, id ),  Npks ]");
            std::vector<std::int64_t> npk;
            for (const auto& r : t.npk) npk.insert(npk.end(), r.begin(), r.end());
            int64_dataset(g.get(), "npk", {rows, 3}, npk.data(), "[ nscans, (N_peaks_in_scan, N_pairs_ii, N_pairs_ij) ]");
            int64_dataset(g.get(), "glabel", {peaks}, t.glabel.data(), nullptr);
            number_attribute(g.get(), "nlabel", H5T_STD_I64LE, H5T_NATIVE_INT64, t.nlabel);
        }
        const bool flushed = H5Fflush(root, H5F_SCOPE_GLOBAL) >= 0;
        written = file.close() && flushed;
        if (!written) H5Eclear2(H5E_DEFAULT);
    }
    if (!written) {
        temporary.remove();
        throw Error(ErrorCode::io, path + ": cannot write the peaks file (disk full or quota exceeded?); " +
                                       (where.exists ? "it is left unchanged" : "it is not written"));
    }
    temporary.move_to(where.target);
}

}  // namespace bslz4::tool
