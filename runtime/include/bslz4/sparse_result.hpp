// What Chunk2Sparse returns: views of the object's own buffers (overwritten by the next call),
// or owned copies (coo).
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "bslz4/error.hpp"
#include "bslz4/frame_status.hpp"
#include "bslz4/pixel_type.hpp"

namespace bslz4 {

// One frame's list: npixels values (of pixel_type) and flat indices (row * nj + col), ascending.
struct SparseFrame {
    std::size_t npixels = 0;
    const void* values = nullptr;
    const std::uint32_t* indices = nullptr;
    PixelType pixel_type = PixelType::u16;
    // Top pixels (set_top_pixels; the seed's last_cut and last_nabove): the cut this frame ended
    // up with (the call's cut unless howmany raised it) and the number of pixels above it before
    // the list was cut to howmany (npixels when nothing was cut). NaN and 0 from a class that
    // does not fill them (the GPU classes, for now).
    double last_cut = std::numeric_limits<double>::quiet_NaN();
    std::size_t last_nabove = 0;

    template <class T>
    const T* values_as() const {
        if (pixel_type_of<T>() != pixel_type)
            throw Error(ErrorCode::bad_argument, std::string("values are ") + pixel_type_name(pixel_type));
        return static_cast<const T*>(values);
    }
};

// nframes lists; row f of values and indices (row_length entries each: ni*nj, or the caller's
// ListRows row_length) holds frame f's.
struct SparseBatch {
    std::size_t nframes = 0;
    std::size_t row_length = 0;
    const std::size_t* npixels = nullptr;
    const void* values = nullptr;
    const std::uint32_t* indices = nullptr;
    PixelType pixel_type = PixelType::u16;
    // Each frame's status: codes[f] is ErrorCode::ok for a frame listed, else the code of the
    // fault that made it a bad frame (0 pixels, a zero powder row); bad[0, nbad) are the bad
    // frames in frame order with their messages. Bad frames are reported only with
    // OnError::report; otherwise the call throws at the first and every frame returned is ok.
    const ErrorCode* codes = nullptr;
    const FrameError* bad = nullptr;
    std::size_t nbad = 0;
    // Per frame, as SparseFrame::last_cut and last_nabove (a bad frame: the call's cut and 0);
    // null from a class that does not fill them (the GPU classes, for now).
    const double* last_cut = nullptr;
    const std::size_t* last_nabove = nullptr;

    ErrorCode code(std::size_t f) const {
        check_in_batch(f);
        return codes ? codes[f] : ErrorCode::ok;
    }

    SparseFrame frame(std::size_t f) const {
        check_in_batch(f);
        const std::size_t off = f * row_length;
        SparseFrame out{npixels[f], static_cast<const std::uint8_t*>(values) + off * pixel_size(pixel_type),
                        indices + off, pixel_type};
        if (last_cut) out.last_cut = last_cut[f];
        if (last_nabove) out.last_nabove = last_nabove[f];
        return out;
    }

private:
    void check_in_batch(std::size_t f) const {
        if (f >= nframes)
            throw Error(ErrorCode::bad_argument,
                        "frame " + std::to_string(f) + " of a batch of " + std::to_string(nframes));
    }
};

// Rows the caller owns, for a batch's lists (a Python package's arrays, a program's own
// buffers): frame f's values start at entry f * row_length of `values` (entries of the pixel
// type), its indices at entry f * row_length of `indices`; room for `rows` frames, and
// row_length at least ni*nj (a frame may list every pixel). A call given them writes each list
// there once, instead of into the object's buffers to be copied out again, and the SparseBatch
// it returns points there (row_length = this row_length). A call may use a row's first ni*nj
// entries as it likes (what follows a frame's npixels is unspecified) and writes nothing past
// them, nor into rows past its frames. Refused (bad_argument) when a pointer is null or misaligned for its type,
// row_length is short of ni*nj or there are fewer rows than frames.
//
// powder_rows (optional, for the integrating classes): room for the call's powders, frame f's
// bins at entry f * bins (entries of the accumulator's type, aligned to it). A GPU call given
// it copies each group's powders there from its pinned staging, on its threads, while the next
// group's kernels run, and the Powder it returns points there; null, or a class that does not
// take it, leaves them in the object's own buffer (the Powder says which).
struct ListRows {
    void* values = nullptr;
    std::uint32_t* indices = nullptr;
    std::size_t row_length = 0;
    std::size_t rows = 0;
    void* powder_rows = nullptr;
};

// An owned copy of one frame's list, in coordinates.
struct CooFrame {
    std::size_t npixels = 0;
    std::vector<std::uint32_t> row;
    std::vector<std::uint32_t> col;
    std::vector<std::uint8_t> value_bytes;  // npixels values of pixel_type
    PixelType pixel_type = PixelType::u16;
    double last_cut = std::numeric_limits<double>::quiet_NaN();  // as SparseFrame's
    std::size_t last_nabove = 0;

    template <class T>
    const T* values_as() const {
        if (pixel_type_of<T>() != pixel_type)
            throw Error(ErrorCode::bad_argument, std::string("values are ") + pixel_type_name(pixel_type));
        return reinterpret_cast<const T*>(value_bytes.data());
    }
};

// An owned copy of a frame's list in (row, col) form, for a frame of nj columns.
BSLZ4_API CooFrame make_coo(const SparseFrame& frame, std::size_t nj);

}  // namespace bslz4
