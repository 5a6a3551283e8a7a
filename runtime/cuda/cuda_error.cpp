#include "cuda_error.hpp"

#include "driver_api.hpp"

namespace bslz4::cuda::detail {

namespace {
std::string describe(const DriverApi& api, CUresult r) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (api.cuGetErrorName) api.cuGetErrorName(r, &name);
    if (api.cuGetErrorString) api.cuGetErrorString(r, &text);
    std::string out = name ? name : "CUresult " + std::to_string(static_cast<int>(r));
    if (text) out += std::string(": ") + text;
    return out;
}
}  // namespace

void check(const DriverApi& api, CUresult r, const char* call) {
    if (r != CUDA_SUCCESS) throw CudaError(r, std::string(call) + ": " + describe(api, r));
}
std::string failure_text(CUresult r, const std::string& call) { return call + ": " + describe(driver(), r); }
void check(CUresult r, const char* call) {
    if (r != CUDA_SUCCESS) check(driver(), r, call);
}
void check(CUresult r, const std::string& call) {
    if (r != CUDA_SUCCESS) check(driver(), r, call.c_str());
}
std::string result_name(CUresult r) {
    const char* name = nullptr;
    driver().cuGetErrorName(r, &name);
    return name ? name : "CUresult " + std::to_string(static_cast<int>(r));
}

}  // namespace bslz4::cuda::detail
