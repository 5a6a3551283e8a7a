// The Python object's own result arrays (grown by bslz4._results, reused call after call, as the
// seed's are). The C++ call writes the lists straight into their rows (bslz4::ListRows): a
// second pass over 1,024 rows nine megabytes apart costs a page walk a row, 0.3 to 0.5 ms a
// call, 4 to 6 % of a very sparse GPU multi on the H200. Here the per-frame counts, cuts and
// powders are copied in after the call.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>

#include "bslz4/powder.hpp"
#include "bslz4/sparse_result.hpp"

namespace bslz4::python {

class BatchOutputs {
public:
    // out: the tuple (npixels int32[N], values [N, pixels] of the pixel type, indices uint32
    // [N, pixels], last_cut float64[N], last_nabove int64[N], powder [N, bins] or None) that
    // bslz4._results hands in; checked against the frames, pixels and types the call needs.
    // Needs the GIL.
    BatchOutputs(const pybind11::tuple& out, std::size_t nframes, std::size_t pixels, std::size_t pixel_bytes,
                 std::size_t powder_row_bytes);

    // The rows the call lists into (values and indices).
    ListRows rows() const;
    // These run without the GIL: the batch must be the one listed into rows().
    void write(const SparseBatch& batch, double cut) const;
    void write(const Powder& powder) const;
    // A batch in the C++ object's own buffers (from_frames, which takes no ListRows): the lists
    // copied into the rows as well.
    void copy(const SparseBatch& batch, double cut) const;

private:
    std::size_t nframes_, pixels_, pixel_bytes_, powder_row_bytes_;
    std::int32_t* npixels_;
    std::uint8_t* values_;
    std::uint32_t* indices_;
    double* last_cut_;
    std::int64_t* last_nabove_;
    std::uint8_t* powder_ = nullptr;
};

}  // namespace bslz4::python
