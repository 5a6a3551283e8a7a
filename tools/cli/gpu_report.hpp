// bslz4 info --gpu: can this host run the GPU decoder, and why not. The first line is the
// verdict a host check reads; the exit code is 0 when at least one GPU decodes a test frame as
// the CPU does, 1 when none does (or this bslz4 has no GPU runtime).
#pragma once
#include "cli/command_line.hpp"

namespace bslz4::tool {

int gpu_report(const Arguments& args);

}  // namespace bslz4::tool
