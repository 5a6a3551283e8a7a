#include "cli/file_io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "bslz4/error.hpp"

namespace bslz4::tool {

namespace {
struct Close {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, Close>;

std::string why() { return std::strerror(errno); }
}  // namespace

std::vector<std::uint8_t> read_file(const std::string& path) {
    File f(std::fopen(path.c_str(), "rb"));
    if (!f) throw Error(ErrorCode::io, path + ": cannot open: " + why());
    std::vector<std::uint8_t> out;
    std::uint8_t buf[1 << 16];
    for (;;) {
        const std::size_t n = std::fread(buf, 1, sizeof buf, f.get());
        out.insert(out.end(), buf, buf + n);
        if (n < sizeof buf) break;
    }
    if (std::ferror(f.get())) throw Error(ErrorCode::io, path + ": read failed: " + why());
    return out;
}

void write_file(const std::string& path, ByteView bytes) {
    File f(std::fopen(path.c_str(), "wb"));
    if (!f) throw Error(ErrorCode::io, path + ": cannot create: " + why());
    if (bytes.size && std::fwrite(bytes.data, 1, bytes.size, f.get()) != bytes.size)
        throw Error(ErrorCode::io, path + ": write failed: " + why());
    if (std::fclose(f.release()) != 0) throw Error(ErrorCode::io, path + ": write failed: " + why());
}

}  // namespace bslz4::tool
