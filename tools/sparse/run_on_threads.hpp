// A loop over n items spread on a few threads started for it: for the stages that split one
// batch's work (the writer's list chunks, the labelling of a batch's frames), where a thread
// started per batch costs far less than the batch's work.
#pragma once
#include <cstddef>
#include <functional>

namespace bslz4::tool {

// Runs work(k) for every k < n on up to `threads` threads, this one among them; rethrows the
// first failure once all have stopped. A thread that cannot be started leaves its share to the
// others.
void run_on_threads(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& work);

}  // namespace bslz4::tool
