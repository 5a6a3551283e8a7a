// CPUID through the compiler's cpu model (which also checks that the OS saves the AVX and
// AVX-512 registers), read on every call: cheap next to making a decoder, and it lets a test
// or a user force a path with BSLZ4_CPU_PATH without restarting the process.
#include "bslz4/cpu_path.hpp"

#include <cstdlib>
#include <cstring>

#include "bslz4/error.hpp"

namespace bslz4 {

namespace {

bool cpu_runs(CpuPath path) {
    switch (path) {
        case CpuPath::portable: return true;
#if defined(BSLZ4_HAVE_X86_PATHS)
        case CpuPath::avx2:
            return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
                   __builtin_cpu_supports("popcnt");
        case CpuPath::avx512:
            return cpu_runs(CpuPath::avx2) && __builtin_cpu_supports("avx512f") &&
                   __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                   __builtin_cpu_supports("avx512vbmi2");
#else
        case CpuPath::avx2:
        case CpuPath::avx512: return false;
#endif
    }
    return false;
}

const char* needs(CpuPath path) {
    switch (path) {
        case CpuPath::portable: return "nothing";
        case CpuPath::avx2: return "AVX2, BMI2 and POPCNT";
        case CpuPath::avx512: return "AVX2, BMI2, AVX-512 F, BW, VL and VBMI2";
    }
    return "?";
}

std::string names(const std::vector<CpuPath>& paths) {
    std::string s;
    for (CpuPath p : paths) s += (s.empty() ? "" : ", ") + std::string(cpu_path_name(p));
    return s;
}

}  // namespace

const char* cpu_path_name(CpuPath path) {
    switch (path) {
        case CpuPath::portable: return "portable";
        case CpuPath::avx2: return "avx2";
        case CpuPath::avx512: return "avx512";
    }
    return "?";
}

std::vector<CpuPath> usable_cpu_paths() {
    std::vector<CpuPath> out;
    for (CpuPath p : {CpuPath::portable, CpuPath::avx2, CpuPath::avx512})
        if (cpu_runs(p)) out.push_back(p);
    return out;
}

CpuPath active_cpu_path() {
    const std::vector<CpuPath> usable = usable_cpu_paths();
    const char* env = std::getenv("BSLZ4_CPU_PATH");
    if (!env || !*env || std::strcmp(env, "auto") == 0) return usable.back();
    for (CpuPath p : {CpuPath::portable, CpuPath::avx2, CpuPath::avx512}) {
        if (std::strcmp(env, cpu_path_name(p)) != 0) continue;
        if (!cpu_runs(p))
            throw Error(ErrorCode::bad_argument, std::string("BSLZ4_CPU_PATH=") + env + ": this " +
                                                     (p == CpuPath::portable ? "build" : "CPU or build") +
                                                     " cannot run it (it needs " + needs(p) +
                                                     "; usable here: " + names(usable) + ")");
        return p;
    }
    throw Error(ErrorCode::bad_argument, std::string("BSLZ4_CPU_PATH=") + env +
                                             " is not a CPU path (auto, portable, avx2 or avx512)");
}

std::string describe_cpu_paths() {
    std::string forced;
    if (const char* env = std::getenv("BSLZ4_CPU_PATH"); env && *env) forced = std::string(", BSLZ4_CPU_PATH=") + env;
    return std::string(cpu_path_name(active_cpu_path())) + " (usable here: " + names(usable_cpu_paths()) + forced + ")";
}

}  // namespace bslz4
