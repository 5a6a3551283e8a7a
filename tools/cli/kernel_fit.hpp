// Which code of the embedded fatbin a GPU of a given compute capability runs: SASS built for
// the same major version and an equal or lower minor (sm_80 SASS runs on sm_86), else PTX of an
// equal or lower architecture, compiled by the driver at load time (JIT), else nothing.
#pragma once
#include <string>
#include <vector>

namespace bslz4::tool {

struct KernelArchitectures {
    std::vector<int> sass;  // e.g. 75 80 90
    std::vector<int> ptx;
};

// The library's built_architectures() text, "75 80 90 (PTX 90)"; a word that is no number is
// skipped.
KernelArchitectures parse_kernel_architectures(const std::string& text);

struct KernelFit {
    enum class Kind { sass, ptx_jit, none } kind = Kind::none;
    int arch = 0;  // the SASS or PTX architecture used
};

KernelFit kernel_fit(const KernelArchitectures& built, int sm);

// "sm_75 sm_90" for prefix "sm_", "none" for no architecture.
std::string joined(const std::vector<int>& archs, const char* prefix);

// "runs its SASS sm_90", "runs by JIT from PTX compute_90 (...)", "cannot run ...".
std::string describe_fit(const KernelFit& fit, const KernelArchitectures& built, int sm);

}  // namespace bslz4::tool
