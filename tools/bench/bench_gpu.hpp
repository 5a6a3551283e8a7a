// The bench's GPU figures on one device: the copy ceilings, then the lists with the chunks on
// the device (a), from pinned (b) and from pageable (c) host memory, the lists with each powder,
// and the top pixels; each against the CPU on all cores, measured before.
#pragma once
#include <vector>

#include "bench/bench_measure.hpp"
#include "bench/eiger_stack.hpp"

namespace bslz4::tool {

// Prints the figures; those the profile table needs come back (not measured without a GPU, or
// in a build without the GPU runtime, which it says).
GpuFigures bench_gpu(const EigerStack& stack, const std::vector<PowderCase>& powders, double cut, double seconds, int device,
                     const Rate& cpu_all);

}  // namespace bslz4::tool
