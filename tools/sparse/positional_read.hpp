// `bytes` from `address` of an open file, by positional reads (pread: no shared file offset, so
// several threads may read one descriptor at once), each at most 1 GB, retried when a signal
// interrupts one. The callers say what a failure or an early end of the file means.
#pragma once
#include <cstdint>

namespace bslz4::tool {

struct PositionalRead {
    std::uint64_t got = 0;  // bytes read: fewer than asked only where the file ends, or at a failure
    int error = 0;          // the failed read's errno; 0 when none failed
};

PositionalRead read_at(int fd, std::uint8_t* to, std::uint64_t bytes, std::uint64_t address);

}  // namespace bslz4::tool
