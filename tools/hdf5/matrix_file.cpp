#include "matrix_file.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bslz4/cpu_count.hpp"
#include "bslz4/error.hpp"
#include "contiguous_dataset.hpp"
#include "hdf5_file.hpp"
#include "matrix_passes.hpp"
#include "sparse/run_on_threads.hpp"

namespace bslz4::tool {

namespace {

struct Shape {
    std::size_t bins = 0, pixels = 0;
    MatrixLayout layout = MatrixLayout::csr;
};

Shape shape_from_attribute(const std::vector<std::int64_t>& shape, std::size_t indptr_size) {
    if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0)
        throw Error(ErrorCode::bad_matrix, "attribute shape is not (bins, pixels)");
    Shape s;
    s.bins = static_cast<std::size_t>(shape[0]);
    s.pixels = static_cast<std::size_t>(shape[1]);
    s.layout = indptr_size == s.bins + 1 ? MatrixLayout::csr : MatrixLayout::csc;
    return s;
}

// No shape attribute: see the header for the rule.
Shape shape_from_arrays(const std::vector<std::uint32_t>& indices, std::size_t indptr_size, std::size_t frame_pixels) {
    if (indptr_size < 2)
        throw Error(ErrorCode::bad_matrix,
                    "no attribute shape, and indptr has " + std::to_string(indptr_size) + " entries: cannot tell bins and pixels");
    const std::size_t pointers = indptr_size - 1;
    std::size_t extent = 0;  // the largest index + 1
    for (std::uint32_t i : indices) extent = std::max(extent, static_cast<std::size_t>(std::max(static_cast<std::int32_t>(i), 0)) + 1);
    Shape s;
    const bool csc = frame_pixels ? pointers == frame_pixels : pointers > extent;
    s.layout = csc ? MatrixLayout::csc : MatrixLayout::csr;
    s.bins = csc ? std::max<std::size_t>(extent, 1) : pointers;
    s.pixels = csc ? pointers : frame_pixels ? frame_pixels : std::max<std::size_t>(extent, 1);
    return s;
}

// A matrix array read whole: on several threads where the file stores it contiguously in T's
// own layout (h5py's and pyFAI's files; see contiguous_dataset.hpp), else through HDF5. Its
// fresh pages are faulted in on several threads too: zeroed by one, as the vector's sizing
// zeroes them, they took a third of the read of an Eiger 4M matrix's 72 MB.
template <class T>
std::vector<T> read_array(hid_t dataset, hid_t memtype, const char* name) {
    if (const auto storage = h5::contiguous_storage(dataset, memtype, name)) {
        std::vector<T> v;
        bslz4::detail::size_for_overwrite(v, storage->count);
        h5::read_contiguous(*storage, v.data(), name);
        return v;
    }
    return h5::read_all<T>(dataset, memtype, name);
}

// Indices or pointers as int32 values (held in uint32s, which normalise_matrix takes over), each
// in [-1, 2^31) (the values are checked against the shape by normalise_matrix). Integers that
// int32 holds whatever their values (signed of up to 4 bytes, unsigned of up to 2: scipy's and
// pyFAI's int32) are read as int32 straight away; wider ones as int64, then narrowed: an Eiger
// 4M matrix's indices are 36 MB, not 72 MB read and 36 MB copied.
std::vector<std::uint32_t> read_int32(hid_t dataset, const char* name) {
    const auto out_of_range = [&](std::size_t k) {
        return Error(ErrorCode::bad_matrix, std::string(name) + ": entry " + std::to_string(k) + " out of range");
    };
    const h5::Handle type(H5Dget_type(dataset), H5Tclose, std::string(name) + ": no datatype");
    const H5T_class_t cls = H5Tget_class(type.get());
    const std::size_t size = H5Tget_size(type.get());
    const H5T_sign_t sign = cls == H5T_INTEGER ? H5Tget_sign(type.get()) : H5T_SGN_NONE;
    if (cls == H5T_NO_CLASS || size == 0 || sign == H5T_SGN_ERROR) throw h5::failure(std::string(name) + ": cannot read its datatype");
    if (cls == H5T_INTEGER && (sign == H5T_SGN_2 ? size <= 4 : size <= 2)) {
        std::vector<std::uint32_t> v = read_array<std::uint32_t>(dataset, H5T_NATIVE_INT32, name);
        for (std::size_t k = 0; k < v.size(); ++k)
            if (static_cast<std::int32_t>(v[k]) < -1) throw out_of_range(k);
        return v;
    }
    const std::vector<std::int64_t> wide = h5::read_all<std::int64_t>(dataset, H5T_NATIVE_INT64, name);
    std::vector<std::uint32_t> out(wide.size());
    for (std::size_t k = 0; k < wide.size(); ++k) {
        if (wide[k] < -1 || wide[k] > 0x7FFFFFFF) throw out_of_range(k);
        out[k] = static_cast<std::uint32_t>(wide[k]);
    }
    return out;
}

// The axes bslz4-matrix writes, checked against the matrix; none when there is no correction.
PowderAxes read_axes(hid_t file, const MatrixSpec& spec, const IntegrationMatrix& m) {
    PowderAxes axes;
    const std::string g = spec.group;
    if (!h5::exists(file, g + "/correction", spec.file)) return axes;
    // Each of `expected` elements, checked before anything is read: the file says the sizes.
    const auto dataset = [&](const char* name, auto zero, hid_t type, std::size_t expected) {
        const std::string path = g + "/" + name;
        if (!h5::exists(file, path, spec.file))
            throw Error(ErrorCode::bad_matrix, std::string("has a correction but no ") + name + " (not bslz4-matrix's?)");
        const h5::Handle d = h5::open_dataset(file, path, spec.file);
        std::size_t n = 1;
        for (hsize_t extent : h5::dataset_shape(d.get())) n *= static_cast<std::size_t>(extent);
        if (n != expected)
            throw Error(ErrorCode::bad_matrix, std::string(name) + " has " + std::to_string(n) + " values, where " +
                                                   std::to_string(expected) + " are expected");
        return read_array<decltype(zero)>(d.get(), type, name);
    };
    const auto count = [&](const char* name) -> std::size_t {
        if (!h5::has_attribute(file, g, name, spec.file)) return 0;
        const auto v = h5::read_int_attribute(file, g, name);
        return v.size() == 1 && v[0] > 0 ? static_cast<std::size_t>(v[0]) : 0;
    };
    axes.npt_rad = count("npt_rad");
    axes.npt_azim = std::max<std::size_t>(count("npt_azim"), 1);
    const auto say = [](std::size_t n) { return std::to_string(n); };
    if (axes.npt_rad == 0 || axes.npt_rad > m.bins || axes.npt_azim > m.bins || axes.npt_rad * axes.npt_azim != m.bins)
        throw Error(ErrorCode::bad_matrix, "npt_rad x npt_azim (" + say(axes.npt_rad) + " x " + say(axes.npt_azim) +
                                               ") is not the matrix's " + say(m.bins) + " bins");
    axes.correction = dataset("correction", float{}, H5T_NATIVE_FLOAT, m.pixels);
    axes.radial = dataset("radial", double{}, H5T_NATIVE_DOUBLE, axes.npt_rad);
    const std::string radial = g + "/radial";
    if (h5::has_attribute(file, radial, "unit", spec.file)) axes.radial_unit = h5::read_text_attribute(file, radial, "unit");
    if (axes.npt_azim > 1) {
        axes.azimuthal = dataset("azimuthal", double{}, H5T_NATIVE_DOUBLE, axes.npt_azim);
        const std::string azimuthal = g + "/azimuthal";
        if (h5::has_attribute(file, azimuthal, "unit", spec.file))
            axes.azimuthal_unit = h5::read_text_attribute(file, azimuthal, "unit");
    }
    if (h5::has_attribute(file, g, "empty", spec.file)) {
        const auto e = h5::read_double_attribute(file, g, "empty");
        if (e.size() == 1) axes.empty = e[0];
    }
    return axes;
}

IntegrationMatrix read_group(const MatrixSpec& spec, std::size_t frame_pixels, PowderAxes* axes) {
    const h5::Handle file = h5::open_file(spec.file);
    if (!h5::exists(file.get(), spec.group, spec.file)) throw Error(ErrorCode::bad_argument, "no such group");  // the user named it
    const auto open_member = [&](const char* name) {
        const std::string path = spec.group + "/" + name;
        if (!h5::exists(file.get(), path, spec.file)) throw Error(ErrorCode::bad_matrix, std::string("no dataset ") + name);
        return h5::open_dataset(file.get(), path, spec.file);
    };
    auto data = read_array<float>(open_member("data").get(), H5T_NATIVE_FLOAT, "data");
    auto indices = read_int32(open_member("indices").get(), "indices");
    const auto indptr = read_int32(open_member("indptr").get(), "indptr");
    const Shape s = h5::has_attribute(file.get(), spec.group, "shape", spec.file)
                        ? shape_from_attribute(h5::read_int_attribute(file.get(), spec.group, "shape"), indptr.size())
                        : shape_from_arrays(indices, indptr.size(), frame_pixels);
    // The int32 values in uint32s, read through their signed type (which may alias them).
    IntegrationMatrix m = s.layout == MatrixLayout::csr
                              ? normalise_matrix(s.bins, s.pixels, std::move(data), std::move(indices), indptr)
                              : normalise_matrix(MatrixInput{s.layout, s.bins, s.pixels, data.data(), data.size(), IndexType::i32,
                                                             indices.data(), indices.size(), indptr.data(), indptr.size()});
    if (frame_pixels && m.pixels != frame_pixels)
        throw Error(ErrorCode::bad_matrix,
                    "the matrix has " + std::to_string(m.pixels) + " pixels, the frames have " + std::to_string(frame_pixels));
    *axes = read_axes(file.get(), spec, m);
    return m;
}

}  // namespace

MatrixSpec parse_matrix_spec(const std::string& spec) {
    const std::size_t colon = spec.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size())
        throw Error(ErrorCode::bad_argument,
                    "matrix '" + spec + "': FILE.h5:GROUP expected (the group holding data, indices and indptr)");
    MatrixSpec s{spec.substr(0, colon), spec.substr(colon + 1)};
    if (s.group[0] != '/') s.group = "/" + s.group;
    return s;
}

MatrixFile read_matrix_file(const std::string& spec_text, std::size_t frame_pixels) {
    const MatrixSpec spec = parse_matrix_spec(spec_text);
    const std::string where = spec.file + ":" + spec.group + ": ";
    try {
        MatrixFile out;
        out.matrix = read_group(spec, frame_pixels, &out.axes);
        return out;
    } catch (const Error& e) {
        // The HDF5 layer's messages may start with the file's name already.
        std::string what = e.what();
        if (what.rfind(spec.file + ": ", 0) == 0) what.erase(0, spec.file.size() + 2);
        throw Error(e.code(), where + what);
    }
}

std::size_t matrix_file_bins(const std::string& spec_text, std::size_t frame_pixels) {
    try {
        const MatrixSpec spec = parse_matrix_spec(spec_text);
        const h5::Handle file = h5::open_file(spec.file);
        const std::string indptr = spec.group + "/indptr";
        if (!h5::exists(file.get(), indptr, spec.file)) return 0;
        std::size_t indptr_size = 1;
        for (const hsize_t n : h5::dataset_shape(h5::open_dataset(file.get(), indptr, spec.file).get())) indptr_size *= n;
        if (h5::has_attribute(file.get(), spec.group, "shape", spec.file))
            return shape_from_attribute(h5::read_int_attribute(file.get(), spec.group, "shape"), indptr_size).bins;
        // Without it, only a CSR matrix of frames of a known size says its bins without its indices.
        if (frame_pixels == 0) return 0;
        const Shape s = shape_from_arrays({}, indptr_size, frame_pixels);
        return s.layout == MatrixLayout::csr ? s.bins : 0;
    } catch (const Error&) {
        return 0;  // not taken for an answer: read_matrix_file reads it and names the fault
    }
}

std::vector<double> bin_normalisation(const IntegrationMatrix& m, const std::vector<float>& correction,
                                      const std::vector<std::uint8_t>& use) {
    if (correction.size() != m.pixels || use.size() != m.pixels)
        throw Error(ErrorCode::bad_argument, "bin_normalisation: " + std::to_string(correction.size()) + " corrections and " +
                                                 std::to_string(use.size()) + " mask pixels for a matrix of " +
                                                 std::to_string(m.pixels));
    // Bins split over threads, each bin summed in order by one: the same sums on any number of
    // them (an Eiger 4M matrix: 9 M weights read at random places of the correction, 0.05 s on
    // one thread, on the job's way to its first batch).
    std::vector<double> out(m.bins, 0.0);
    constexpr std::size_t kBinsPerPiece = 64, kWeightsPerThread = std::size_t{1} << 20;
    const std::size_t pieces = (m.bins + kBinsPerPiece - 1) / kBinsPerPiece;
    const auto threads = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>({8, usable_cpu_count(), m.nnz() / kWeightsPerThread})));
    run_on_threads(pieces, threads, [&](std::size_t piece) {
        for (std::size_t b = piece * kBinsPerPiece; b < std::min(m.bins, (piece + 1) * kBinsPerPiece); ++b) {
            double sum = 0;
            for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k)
                if (use[m.pixel[k]]) sum += static_cast<double>(m.weight[k]) * static_cast<double>(correction[m.pixel[k]]);
            out[b] = sum;
        }
    });
    return out;
}

}  // namespace bslz4::tool
