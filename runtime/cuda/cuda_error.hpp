// The driver's errors as bslz4::Error: the message names the call, its CUresult name and the
// driver's description ("cuMemAlloc(8.9 MB): CUDA_ERROR_OUT_OF_MEMORY: out of memory").
#pragma once
#include <cuda.h>

#include <string>

#include "bslz4/error.hpp"

namespace bslz4::cuda {

// Its code: out_of_memory for CUDA_ERROR_OUT_OF_MEMORY, else gpu_fault.
class CudaError : public Error {
public:
    CudaError(CUresult result, const std::string& what)
        : Error(result == CUDA_ERROR_OUT_OF_MEMORY ? ErrorCode::out_of_memory : ErrorCode::gpu_fault, what), result_(result) {}
    CUresult result() const { return result_; }

private:
    CUresult result_;
};

namespace detail {
struct DriverApi;

// Throws CudaError when r is not CUDA_SUCCESS; `call` is only turned into text then.
void check(const DriverApi& api, CUresult r, const char* call);
void check(CUresult r, const char* call);
void check(CUresult r, const std::string& call);
std::string result_name(CUresult r);
// "call: CUDA_ERROR_NAME: the driver's description", as check() throws it.
std::string failure_text(CUresult r, const std::string& call);
}  // namespace detail

}  // namespace bslz4::cuda
