// bslz4 bench --device all (or a list): every GPU at once, a host thread each, their
// measurements started together. (a) chunks on the device and (b) from pinned host memory:
// each GPU's own rate, their sum, and the frames of all of them over the wall time they shared,
// against one GPU alone.
#pragma once
#include <vector>

#include "bench/eiger_stack.hpp"

namespace bslz4::tool {

struct SeveralGpuFigures {
    std::vector<double> a, b;            // frames/s of each GPU, in the order given
    double a_sum = 0, b_sum = 0;         // their sums
    double a_together = 0, b_together = 0;  // all frames / (last end - first start)
};

// Prints the section; one_a and one_b are the first GPU's figures measured alone.
SeveralGpuFigures bench_several_gpus(const EigerStack& stack, double cut, double seconds, const std::vector<int>& devices,
                                     double one_a, double one_b);

}  // namespace bslz4::tool
