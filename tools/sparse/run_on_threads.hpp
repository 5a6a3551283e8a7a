// A loop over n items spread on a few threads started for it: for work split once in a while
// (the labelling of a batch's frames, a matrix file's pieces), where a thread started for it
// costs far less than the work. The writer's list chunks, encoded batch after batch, go to
// threads it keeps instead (hdf5/sparse_output.cpp).
#pragma once
#include <cstddef>
#include <functional>

namespace bslz4::tool {

// Runs work(k) for every k < n on up to `threads` threads, this one among them; rethrows the
// first failure once all have stopped. A thread that cannot be started leaves its share to the
// others.
void run_on_threads(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& work);

}  // namespace bslz4::tool
