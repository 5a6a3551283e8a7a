// A group's powders in the output file: powder (the sums, frames x bins of the accumulator's
// type) and, with a matrix file's axes, powder_intensity (pyFAI's intensity: sums /
// normalisation, `empty` where the normalisation is 0), made at the group's full length when the
// group starts and written frame by frame where each row lies (row_places.hpp), by the decoders'
// threads as they finish a batch, while the writer's thread goes on with the lists. A frame not
// decoded gets a zero row. A group that stops is cut to the frames it wrote.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "hdf5_file.hpp"
#include "row_places.hpp"

namespace bslz4::tool {

struct OutputInfo;

class GroupPowders {
public:
    // Makes powder (and powder_intensity, powder_normalisation and the axes) in `group` for
    // `frames` frames; h5::Lock held. `fd`: the output file open for writing.
    GroupPowders(hid_t file, int fd, hid_t group, const OutputInfo& info, std::size_t frames, const std::string& what);

    // Writes the sums of the group's frames [first, first + count), row after row from `sums`,
    // and their intensity: from any thread, no HDF5 call.
    void write(std::size_t first, std::size_t count, const void* sums) const;
    // Frame `row` could not be decoded: its sums are 0 (all bytes 0 in every accumulator type).
    void write_zero(std::size_t row) const;
    std::size_t row_bytes() const { return sums_.row_bytes(); }
    bool mapped() const { return sums_.mapped(); }
    // A write failed (a full disk under pwrite): the output is damaged, not kept.
    bool failed() const { return sums_.failed() || (intensity_ && intensity_->failed()); }

    // The group stopped after `frames` frames: the datasets are cut there; h5::Lock held.
    void shrink(std::size_t frames);

private:
    const OutputInfo& info_;
    RowPlaces sums_;
    std::unique_ptr<RowPlaces> intensity_;  // with axes
    std::vector<std::uint8_t> zeros_;       // a row
};

}  // namespace bslz4::tool
