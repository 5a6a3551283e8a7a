#include "sparse/positional_read.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace bslz4::tool {

PositionalRead read_at(int fd, std::uint8_t* to, std::uint64_t bytes, std::uint64_t address) {
    PositionalRead r;
    while (r.got < bytes) {
        const ssize_t n = pread(fd, to + r.got, std::min<std::uint64_t>(bytes - r.got, std::uint64_t{1} << 30),
                                static_cast<off_t>(address + r.got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            r.error = errno;
            return r;
        }
        if (n == 0) return r;  // the file ends here
        r.got += static_cast<std::uint64_t>(n);
    }
    return r;
}

}  // namespace bslz4::tool
