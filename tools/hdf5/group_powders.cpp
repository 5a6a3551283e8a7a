#include "group_powders.hpp"

#include "bslz4/error.hpp"
#include "bslz4/powder.hpp"
#include "hdf5_writing.hpp"
#include "sparse_output.hpp"

namespace bslz4::tool {

namespace {

// Rows in a chunk of powder and powder_intensity: a reader of one frame's powder reads no more
// of an unfiltered chunk than that frame's row, and the chunks are few (a 100,000-frame scan:
// 6,250 a dataset).
constexpr std::size_t kPowderChunkRows = 16;

hid_t acc_type(Accumulator a) {
    return a == Accumulator::f32 ? H5T_NATIVE_FLOAT : a == Accumulator::i64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
}

// A matrix file's 2D bins are azimuth-major: rows of (npt_azim, npt_rad), as pyFAI's.
std::vector<hsize_t> row_shape(const OutputInfo& info) {
    const PowderAxes& axes = info.axes;
    return axes.present() && axes.npt_azim > 1 ? std::vector<hsize_t>{axes.npt_azim, axes.npt_rad} : std::vector<hsize_t>{info.bins};
}

}  // namespace

GroupPowders::GroupPowders(hid_t file, int fd, hid_t group, const OutputInfo& info, std::size_t frames, const std::string& what)
    : info_(info),
      sums_(file, fd, group, "powder", acc_type(info.acc), row_shape(info), kPowderChunkRows, frames, info.map_powders, what),
      zeros_(info.bins * accumulator_size(info.acc), 0) {
    h5::write_attribute(sums_.dataset(), "acc", std::string(accumulator_name(info.acc)));
    h5::write_attribute(sums_.dataset(), "powder_scale", info.powder_scale);
    const PowderAxes& axes = info.axes;
    if (!axes.present()) return;
    const std::vector<hsize_t> row = row_shape(info);
    intensity_ = std::make_unique<RowPlaces>(file, fd, group, "powder_intensity", H5T_NATIVE_DOUBLE, row, kPowderChunkRows, frames, info.map_powders, what);
    h5::write_attribute(intensity_->dataset(), "empty", axes.empty);
    h5::write_doubles(group, "powder_normalisation", row, info.normalisation);
    h5::write_attribute(h5::write_doubles(group, "powder_radial", {axes.npt_rad}, axes.radial).get(), "units", axes.radial_unit);
    if (axes.npt_azim > 1)
        h5::write_attribute(h5::write_doubles(group, "powder_azimuthal", {axes.npt_azim}, axes.azimuthal).get(), "units",
                            axes.azimuthal_unit);
}

void GroupPowders::write(std::size_t first, std::size_t count, const void* sums) const {
    sums_.write(first, count, sums);
    if (!intensity_) return;
    const std::size_t bins = info_.bins;
    const Powder p{count, bins, info_.acc, sums, info_.powder_scale};
    std::vector<double> row(bins);  // a row at a time: a batch of 2D rows would be 55 MB
    for (std::size_t f = 0; f < count; ++f) {
        for (std::size_t b = 0; b < bins; ++b) {
            const double n = info_.normalisation[b];
            row[b] = n != 0 ? p.value(f, b) / n : info_.axes.empty;
        }
        intensity_->write(first + f, 1, row.data());
    }
}

void GroupPowders::write_zero(std::size_t row) const { write(row, 1, zeros_.data()); }

void GroupPowders::shrink(std::size_t frames) {
    sums_.shrink(frames);
    if (intensity_) intensity_->shrink(frames);
}

}  // namespace bslz4::tool
