// An integration matrix stored as in powder.h5 (pyFAI, scipy): a group with data (float32),
// indices and indptr (int32 or uint32) and an attribute shape = (bins, pixels). The layout is
// read from the indptr length (bins + 1: CSR, pixels + 1: CSC).
//
// Without the shape attribute (a pyFAI engine saved as its three arrays), the shape is inferred:
// with the frame's pixel count known, indptr of pixels + 1 entries is CSC (bins = the largest
// index + 1) and anything else CSR (bins = indptr entries - 1); without it, the layout whose
// indptr runs over the smaller dimension is taken (CSR when indptr has fewer entries than the
// largest index + 2: an azimuthal integration has fewer bins than pixels), and pixels (CSR) or
// bins (CSC) = the largest index + 1.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "bslz4/integration_matrix.hpp"

namespace bslz4::tool {

struct MatrixSpec {
    std::string file, group;  // group starts with '/'
};

// "FILE.h5:GROUP" -> its parts; anything else is an Error saying FILE.h5:GROUP is expected.
MatrixSpec parse_matrix_spec(const std::string& spec);

// What bslz4-matrix (python/bslz4/matrix_file.py) stores beside the matrix so that the sums
// become pyFAI's intensities: the bin centres with their units, the per-pixel correction pyFAI
// divides by (solid angle x polarisation, float32), the bins' layout (npt_azim x npt_rad,
// azimuth-major) and pyFAI's value for an empty bin. Absent (no correction) in a plain matrix.
struct PowderAxes {
    std::vector<double> radial, azimuthal;  // azimuthal empty for 1D
    std::string radial_unit, azimuthal_unit;
    std::vector<float> correction;  // a factor a pixel
    std::size_t npt_rad = 0, npt_azim = 1;  // npt_rad 0: absent
    double empty = 0;
    bool present() const { return npt_rad > 0; }
};

struct MatrixFile {
    IntegrationMatrix matrix;
    PowderAxes axes;
};

// frame_pixels: the scan's ni * nj, 0 when unknown; when known, a matrix of another pixel count
// is an Error naming the file and group. Axes that do not fit the matrix (sizes, units) are an
// Error too. Every error names the file and the group.
MatrixFile read_matrix_file(const std::string& spec, std::size_t frame_pixels = 0);

// The bins of the matrix at `spec`, as its shape attribute or the length of its indptr says,
// without reading its arrays (for the job's placement, before the matrix is read); 0 where that
// does not tell (a CSC matrix without the attribute, whose bins are its largest index + 1) or
// the file cannot say (missing, damaged: read_matrix_file, which the job calls next, then says
// what is wrong). h5::Lock held.
std::size_t matrix_file_bins(const std::string& spec, std::size_t frame_pixels);

// Each bin's pyFAI sum_normalization: sum(weight x correction) over the pixels `use` keeps
// (nonzero), in float64, in the matrix's order (the order its sums take).
std::vector<double> bin_normalisation(const IntegrationMatrix& m, const std::vector<float>& correction,
                                      const std::vector<std::uint8_t>& use);

}  // namespace bslz4::tool
