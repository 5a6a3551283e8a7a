// Status values and the thread-local message behind bslz4_last_error.
#include "c_status.hpp"

#include <cstdio>

namespace bslz4::c_api {

static_assert(BSLZ4_E_TRUNCATED_CHUNK == static_cast<int>(ErrorCode::truncated_chunk), "C status = ErrorCode");
static_assert(BSLZ4_E_BAD_HEADER == static_cast<int>(ErrorCode::bad_header), "C status = ErrorCode");
static_assert(BSLZ4_E_BAD_BLOCK_LENGTH == static_cast<int>(ErrorCode::bad_block_length), "C status = ErrorCode");
static_assert(BSLZ4_E_BAD_LZ4_SEQUENCE == static_cast<int>(ErrorCode::bad_lz4_sequence), "C status = ErrorCode");
static_assert(BSLZ4_E_BAD_ZSTD_FRAME == static_cast<int>(ErrorCode::bad_zstd_frame), "C status = ErrorCode");
static_assert(BSLZ4_E_WRONG_DECODED_SIZE == static_cast<int>(ErrorCode::wrong_decoded_size), "C status = ErrorCode");
static_assert(BSLZ4_E_BAD_MATRIX == static_cast<int>(ErrorCode::bad_matrix), "C status = ErrorCode");
static_assert(BSLZ4_E_BAD_ARGUMENT == static_cast<int>(ErrorCode::bad_argument), "C status = ErrorCode");
static_assert(BSLZ4_E_OUT_OF_MEMORY == static_cast<int>(ErrorCode::out_of_memory), "C status = ErrorCode");
static_assert(BSLZ4_E_GPU_FAULT == static_cast<int>(ErrorCode::gpu_fault), "C status = ErrorCode");
static_assert(BSLZ4_E_IO == static_cast<int>(ErrorCode::io), "C status = ErrorCode");

namespace {
// A fixed buffer: recording a failure must not allocate (it may be reporting std::bad_alloc).
thread_local char last_message[2048] = "";
}  // namespace

int status_of(ErrorCode code) noexcept {
    const int c = static_cast<int>(code);
    return c >= BSLZ4_E_TRUNCATED_CHUNK && c <= BSLZ4_E_IO ? c : BSLZ4_E_INTERNAL;
}

int fail(int status, const char* function, const char* message) noexcept {
    std::snprintf(last_message, sizeof last_message, "%s: %s", function, message);
    return status;
}

void require(const void* p, const char* parameter) {
    if (!p) throw Error(ErrorCode::bad_argument, std::string(parameter) + " is NULL");
}

}  // namespace bslz4::c_api

const char* bslz4_last_error(void) { return bslz4::c_api::last_message; }

const char* bslz4_status_name(int status) {
    switch (status) {
        case BSLZ4_OK: return "ok";
        case BSLZ4_E_INTERNAL: return "internal";
        case BSLZ4_E_OUTPUT_TOO_SMALL: return "output_too_small";
        case BSLZ4_E_NO_GPU_SUPPORT: return "no_gpu_support";
        case BSLZ4_E_NO_GPU: return "no_gpu";
        default: break;
    }
    if (status >= BSLZ4_E_TRUNCATED_CHUNK && status <= BSLZ4_E_IO)
        return bslz4::error_code_name(static_cast<bslz4::ErrorCode>(status));
    return "unknown";
}
