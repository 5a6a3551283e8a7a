// Several decoders (one a GPU, say), each on a thread of its own, take a reader's batches in
// turn, and their rows come back in frame order: batch n goes to the sink after batch n - 1,
// whichever decoder finished first. At most `window` batches are taken and not yet sunk, so
// host memory stays bounded however unequal the decoders are.
#pragma once
#include <cstddef>
#include <functional>

#include "sparse/batch_reader.hpp"
#include "sparse/output_rows.hpp"

namespace bslz4::tool {

// Runs on decoder `k`'s thread (0 <= k < decoders), one batch at a time.
using DecodeBatch = std::function<OutputRows(const ReadBatch& batch, std::size_t k)>;
// Runs on decoder `k`'s thread after its DecodeBatch, once the batch's slot went back to the
// reader (work on the rows alone, such as labelling peaks, while the reader fills it again);
// `first_frame` is the batch's first frame.
using FinishRows = std::function<void(OutputRows& rows, std::size_t first_frame, std::size_t k)>;
// Runs on the calling thread, batch by batch in frame order; false stops the run there.
using SinkRows = std::function<bool(OutputRows&& rows)>;

// Every batch of `reader`, or those up to where `sink` said stop (then returns false). The error
// of batch n (reading, decoding or finishing it) is rethrown after batches 0 to n - 1 are sunk;
// the other decoders are stopped and joined before anything is rethrown. `finish` may be empty.
bool decode_in_order(BatchReader& reader, std::size_t decoders, std::size_t window, const DecodeBatch& decode,
                     const SinkRows& sink, const FinishRows& finish = {});

}  // namespace bslz4::tool
