#include "c_results.hpp"

#include "c_arguments.hpp"
#include "c_status.hpp"

namespace bslz4::c_api {

namespace {
void lend_powder(const Powder& p, bslz4_powder* out) {
    *out = bslz4_powder{p.nframes, p.bins, accumulator_to_c(p.acc), p.data, p.powder_scale};
}
}  // namespace

void lend(const SparseFrame& f, LentResults&, bslz4_frame* out, bslz4_powder*) {
    *out = bslz4_frame{f.npixels, f.values, f.indices, pixel_type_to_c(f.pixel_type), f.last_cut, f.last_nabove};
}

void lend(const IntegratedFrame& f, LentResults& held, bslz4_frame* out, bslz4_powder* powder) {
    lend(f.sparse, held, out, powder);
    lend_powder(f.powder, powder);
}

void lend(const SparseBatch& b, LentResults& held, bslz4_batch* out, bslz4_powder*) {
    held.status.assign(b.nframes, BSLZ4_OK);
    if (b.codes)
        for (std::size_t f = 0; f < b.nframes; ++f) held.status[f] = b.codes[f] == ErrorCode::ok ? BSLZ4_OK : status_of(b.codes[f]);
    held.bad.resize(b.nbad);
    for (std::size_t k = 0; k < b.nbad; ++k)
        held.bad[k] = bslz4_bad_frame{b.bad[k].frame, status_of(b.bad[k].code), b.bad[k].message.c_str()};
    *out = bslz4_batch{b.nframes, b.row_length, b.npixels, b.values, b.indices, pixel_type_to_c(b.pixel_type),
                       held.status.data(), held.bad.data(), b.nbad, b.last_cut, b.last_nabove};
}

void lend(const IntegratedBatch& b, LentResults& held, bslz4_batch* out, bslz4_powder* powder) {
    lend(b.sparse, held, out, powder);
    lend_powder(b.powder, powder);
}

void lend(CooFrame&& coo, LentResults& held, bslz4_coo* out, bslz4_powder*) {
    held.coo = std::move(coo);
    const CooFrame& c = held.coo;
    *out = bslz4_coo{c.npixels, c.row.data(), c.col.data(), c.value_bytes.data(), pixel_type_to_c(c.pixel_type),
                     c.last_cut, c.last_nabove};
}

void lend(IntegratedCoo&& coo, LentResults& held, bslz4_coo* out, bslz4_powder* powder) {
    held.integrated_coo = std::move(coo);
    lend(std::move(held.integrated_coo.coo), held, out, powder);
    lend_powder(held.integrated_coo.powder(), powder);
}

}  // namespace bslz4::c_api
