// Which instruction-set path the CPU decoder uses: chosen by CPUID when a decoder is made, or
// forced with the environment variable BSLZ4_CPU_PATH (portable, avx2, avx512; auto or unset:
// the best this CPU runs). Forcing a path this CPU lacks is an Error naming what it lacks.
#pragma once
#include "bslz4/export.h"
#include <string>
#include <vector>

namespace bslz4 {

enum class CpuPath { portable, avx2, avx512 };

BSLZ4_API const char* cpu_path_name(CpuPath path);

// Every path this build has and this CPU runs, portable first.
BSLZ4_API std::vector<CpuPath> usable_cpu_paths();

// The path a decoder made now would use (reads BSLZ4_CPU_PATH; throws Error, code
// bad_argument, for a value it does not know or a path this CPU cannot run).
BSLZ4_API CpuPath active_cpu_path();

// What the active path needs and what the CPU has, one line (for `bslz4 info`).
BSLZ4_API std::string describe_cpu_paths();

}  // namespace bslz4
