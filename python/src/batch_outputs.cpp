#include "batch_outputs.hpp"

#include <cstring>
#include <string>

#include "bslz4/error.hpp"

namespace py = pybind11;

namespace bslz4::python {

namespace {

// The writable C-contiguous data of out[k], at least `bytes` long, elements of `item_bytes`.
template <class T>
T* out_array(const py::tuple& out, std::size_t k, std::size_t bytes, std::size_t item_bytes, const char* name) {
    py::array a = py::reinterpret_borrow<py::array>(out[k]);
    if (!(a.flags() & py::array::c_style) || !a.writeable() || static_cast<std::size_t>(a.itemsize()) != item_bytes ||
        static_cast<std::size_t>(a.nbytes()) < bytes)
        throw Error(ErrorCode::bad_argument, std::string("internal: the result array ") + name + " does not fit the call");
    return static_cast<T*>(a.mutable_data());
}

}  // namespace

BatchOutputs::BatchOutputs(const py::tuple& out, std::size_t nframes, std::size_t pixels, std::size_t pixel_bytes,
                           std::size_t powder_row_bytes)
    : nframes_(nframes), pixels_(pixels), pixel_bytes_(pixel_bytes), powder_row_bytes_(powder_row_bytes) {
    if (out.size() != 6) throw Error(ErrorCode::bad_argument, "internal: six result arrays expected");
    npixels_ = out_array<std::int32_t>(out, 0, nframes * 4, 4, "npixels");
    values_ = out_array<std::uint8_t>(out, 1, nframes * pixels * pixel_bytes, pixel_bytes, "values");
    indices_ = out_array<std::uint32_t>(out, 2, nframes * pixels * 4, 4, "indices");
    last_cut_ = out_array<double>(out, 3, nframes * 8, 8, "last_cut");
    last_nabove_ = out_array<std::int64_t>(out, 4, nframes * 8, 8, "last_nabove");
    if (powder_row_bytes != 0) {
        if (out[5].is_none()) throw Error(ErrorCode::bad_argument, "internal: no powder array");
        py::array p = py::reinterpret_borrow<py::array>(out[5]);
        powder_ = out_array<std::uint8_t>(out, 5, nframes * powder_row_bytes, static_cast<std::size_t>(p.itemsize()), "powder");
    }
}

ListRows BatchOutputs::rows() const { return {values_, indices_, pixels_, nframes_, powder_}; }

void BatchOutputs::write(const SparseBatch& batch, double cut) const {
    if (batch.nframes != nframes_ || batch.values != values_ || batch.indices != indices_ || batch.row_length != pixels_)
        throw Error(ErrorCode::bad_argument, "internal: a batch not listed into its result arrays");
    for (std::size_t f = 0; f < nframes_; ++f) {
        npixels_[f] = static_cast<std::int32_t>(batch.npixels[f]);
        last_cut_[f] = batch.last_cut ? batch.last_cut[f] : cut;
        last_nabove_[f] = static_cast<std::int64_t>(batch.last_nabove ? batch.last_nabove[f] : batch.npixels[f]);
    }
}

void BatchOutputs::copy(const SparseBatch& batch, double cut) const {
    if (batch.nframes != nframes_ || batch.row_length < pixels_ || pixel_size(batch.pixel_type) != pixel_bytes_)
        throw Error(ErrorCode::bad_argument, "internal: a batch that does not fit its result arrays");
    for (std::size_t f = 0; f < nframes_; ++f) {
        const std::size_t n = batch.npixels[f];
        std::memcpy(values_ + f * pixels_ * pixel_bytes_,
                    static_cast<const std::uint8_t*>(batch.values) + f * batch.row_length * pixel_bytes_, n * pixel_bytes_);
        std::memcpy(indices_ + f * pixels_, batch.indices + f * batch.row_length, n * 4);
        npixels_[f] = static_cast<std::int32_t>(n);
        last_cut_[f] = batch.last_cut ? batch.last_cut[f] : cut;
        last_nabove_[f] = static_cast<std::int64_t>(batch.last_nabove ? batch.last_nabove[f] : n);
    }
}

void BatchOutputs::write(const Powder& powder) const {
    if (!powder_) return;
    const std::size_t row = powder.bins * accumulator_size(powder.acc);
    if (powder.nframes != nframes_ || row != powder_row_bytes_)
        throw Error(ErrorCode::bad_argument, "internal: the powder does not fit its result array");
    if (row != 0 && powder.data != powder_) std::memcpy(powder_, powder.data, nframes_ * row);  // else copied in by the call
}

}  // namespace bslz4::python
