#include "cli/kernel_fit.hpp"

#include <sstream>

namespace bslz4::tool {

std::string joined(const std::vector<int>& archs, const char* prefix) {
    std::string s;
    for (int a : archs) s += (s.empty() ? "" : " ") + std::string(prefix) + std::to_string(a);
    return s.empty() ? "none" : s;
}

KernelArchitectures parse_kernel_architectures(const std::string& text) {
    KernelArchitectures built;
    std::istringstream words(text);
    std::string word;
    bool in_ptx = false;
    while (words >> word) {
        if (word.rfind("(PTX", 0) == 0) {
            in_ptx = true;
            word = word.substr(4);
        }
        while (!word.empty() && (word.back() == ')' || word.back() == ',')) word.pop_back();
        if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos) continue;
        (in_ptx ? built.ptx : built.sass).push_back(std::stoi(word));
    }
    return built;
}

KernelFit kernel_fit(const KernelArchitectures& built, int sm) {
    KernelFit fit;
    for (int a : built.sass)
        if (a / 10 == sm / 10 && a <= sm && (fit.kind == KernelFit::Kind::none || a > fit.arch)) fit = {KernelFit::Kind::sass, a};
    if (fit.kind == KernelFit::Kind::sass) return fit;
    for (int a : built.ptx)
        if (a <= sm && (fit.kind == KernelFit::Kind::none || a > fit.arch)) fit = {KernelFit::Kind::ptx_jit, a};
    return fit;
}

std::string describe_fit(const KernelFit& fit, const KernelArchitectures& built, int sm) {
    switch (fit.kind) {
    case KernelFit::Kind::sass:
        return "runs its SASS sm_" + std::to_string(fit.arch);
    case KernelFit::Kind::ptx_jit:
        return "runs by JIT from PTX compute_" + std::to_string(fit.arch) +
               " (the driver compiles it at first use; it must be as new as the toolkit)";
    case KernelFit::Kind::none:
        break;
    }
    return "cannot run: no SASS for sm_" + std::to_string(sm / 10) + "x at or below sm_" + std::to_string(sm) +
           " (built: " + joined(built.sass, "sm_") + ") and no PTX at or below it (built: " + joined(built.ptx, "compute_") +
           "); rebuild with -Dgpu_archs including " + std::to_string(sm) + " (by an nvcc that builds for it)";
}

}  // namespace bslz4::tool
