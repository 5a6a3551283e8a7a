// The Python object's own result arrays (grown by bslz4._results, reused call after call, as the
// seed's are), written in place from a batch's lists and powders. The C++ classes' views are
// overwritten by their next call and may move when a call needs more room, so Python never
// points into them: each frame's listed pixels are copied out (a few per cent of a frame's
// bytes), on the decoder object's own copy threads for a batch of more than a megabyte (threads
// started for each call, or one thread, cost 8 to 9 % of a 1,024-frame GPU multi on the H200).
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "bslz4/powder.hpp"
#include "bslz4/sparse_result.hpp"
#include "thread_pool.hpp"

namespace bslz4::python {

class BatchOutputs {
public:
    // out: the tuple (npixels int32[N], values [N, pixels] of the pixel type, indices uint32
    // [N, pixels], last_cut float64[N], last_nabove int64[N], powder [N, bins] or None) that
    // bslz4._results hands in; checked against the frames, pixels and types the call needs.
    // Needs the GIL.
    BatchOutputs(const pybind11::tuple& out, std::size_t nframes, std::size_t pixels, std::size_t pixel_bytes,
                 std::size_t powder_row_bytes);

    // These run without the GIL. copy_threads: made (every usable CPU) when a batch first
    // needs them.
    void write(const SparseBatch& batch, double cut, std::unique_ptr<detail::ThreadPool>& copy_threads) const;
    void write(const Powder& powder) const;

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
