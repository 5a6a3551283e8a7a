// The one exception type of the library: every failure (bad chunk, bad argument, driver error)
// is a bslz4::Error whose message says what was wrong and where, and whose code says which kind
// of failure it was, so a program (or a C API) can branch on it without parsing text. The GPU's
// per-frame faults map onto the same codes, so both decoders give one frame the same code.
#pragma once
#include "bslz4/export.h"
#include <stdexcept>
#include <string>

namespace bslz4 {

enum class ErrorCode : int {
    ok = 0,              // no error: a good frame's status in a batch (never an Error's code)
    truncated_chunk,     // the chunk ends before its header, a block's length field, or the raw tail
    bad_header,          // the 12-byte header: a size that is no whole number of elements, a block
                         // size that is no multiple of 8 elements, more blocks than the chunk holds
    bad_block_length,    // a block's length runs past the chunk, or bytes are left after the last block
    bad_lz4_sequence,    // an LZ4 block breaks the format (truncated sequence, bad offset, a match in
                         // the last bytes, too many or too few bytes, too short for the header's size)
    bad_zstd_frame,      // a zstd frame that does not decode to exactly its block's bytes
    wrong_decoded_size,  // the chunk decodes to other than the frame's (or the output's) size
    bad_matrix,          // an integration matrix refused (shape, indptr, indices, weights, its acc)
    bad_argument,        // a call's arguments (sizes, types, names, ranges, a dense frame's size)
    out_of_memory,       // host or device memory could not be had
    gpu_fault,           // the driver failed, or the GPU refused a frame the CPU decoder accepts
    io,                  // a file could not be read or written
    unspecified,         // an Error made from a message alone (code not chosen by its thrower)
};

// The enumerator's name ("truncated_chunk", ...), for messages and logs.
inline const char* error_code_name(ErrorCode code) {
    switch (code) {
        case ErrorCode::ok: return "ok";
        case ErrorCode::truncated_chunk: return "truncated_chunk";
        case ErrorCode::bad_header: return "bad_header";
        case ErrorCode::bad_block_length: return "bad_block_length";
        case ErrorCode::bad_lz4_sequence: return "bad_lz4_sequence";
        case ErrorCode::bad_zstd_frame: return "bad_zstd_frame";
        case ErrorCode::wrong_decoded_size: return "wrong_decoded_size";
        case ErrorCode::bad_matrix: return "bad_matrix";
        case ErrorCode::bad_argument: return "bad_argument";
        case ErrorCode::out_of_memory: return "out_of_memory";
        case ErrorCode::gpu_fault: return "gpu_fault";
        case ErrorCode::io: return "io";
        case ErrorCode::unspecified: break;
    }
    return "unspecified";
}

// Whether the code says what is wrong with a chunk's bytes (rather than with the call, memory,
// the driver or a file): what bad data alone gives a frame.
inline bool is_chunk_fault(ErrorCode code) {
    switch (code) {
        case ErrorCode::truncated_chunk:
        case ErrorCode::bad_header:
        case ErrorCode::bad_block_length:
        case ErrorCode::bad_lz4_sequence:
        case ErrorCode::bad_zstd_frame:
        case ErrorCode::wrong_decoded_size: return true;
        default: return false;
    }
}

class BSLZ4_API Error : public std::runtime_error {
public:
    Error(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
    // A message alone: code() is ErrorCode::unspecified. The CPU library never uses it (a test
    // pins that); it stays until the GPU runtime and the command choose their codes.
    explicit Error(const std::string& what) : std::runtime_error(what) {}

    ErrorCode code() const noexcept { return code_; }

private:
    ErrorCode code_ = ErrorCode::unspecified;
};

}  // namespace bslz4
