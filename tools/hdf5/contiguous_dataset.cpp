#include "contiguous_dataset.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "bslz4/cpu_count.hpp"
#include "bslz4/error.hpp"
#include "hdf5_file.hpp"
#include "sparse/positional_read.hpp"
#include "sparse/run_on_threads.hpp"

namespace bslz4::tool::h5 {

namespace {

// Pieces of this much a thread: below it a thread started costs more than it saves.
constexpr std::size_t kBytesPerThread = std::size_t{8} << 20;
// More threads than this do not read the page cache faster (one socket's memory bandwidth).
constexpr unsigned kMostThreads = 8;

// The sec2 driver's descriptor of the dataset's file, or -1 under another driver.
int file_descriptor(hid_t dataset, const std::string& what) {
    const Handle file(H5Iget_file_id(dataset), H5Fclose, what + ": no file");
    const Handle access(H5Fget_access_plist(file.get()), H5Pclose, what + ": no file access properties");
    if (H5Pget_driver(access.get()) != H5FD_SEC2) return -1;
    void* handle = nullptr;
    if (H5Fget_vfd_handle(file.get(), H5P_DEFAULT, &handle) < 0 || !handle) return -1;
    return *static_cast<int*>(handle);
}

void read_fully(int fd, std::uint8_t* to, std::size_t bytes, std::uint64_t address, const std::string& what) {
    const PositionalRead r = read_at(fd, to, bytes, address);
    if (r.got == bytes) return;
    if (r.error) throw Error(ErrorCode::io, what + ": cannot read it: " + std::strerror(r.error));
    throw Error(ErrorCode::io, what + ": the file ends at byte " + std::to_string(address + r.got) + ", inside the dataset");
}

}  // namespace

std::optional<ContiguousStorage> contiguous_storage(hid_t dataset, hid_t memtype, const std::string& what) {
    ContiguousStorage s;
    s.element = H5Tget_size(memtype);
    {
        const Handle plist(H5Dget_create_plist(dataset), H5Pclose, what + ": no creation properties");
        if (H5Pget_layout(plist.get()) != H5D_CONTIGUOUS || H5Pget_nfilters(plist.get()) != 0 || H5Pget_external_count(plist.get()) != 0)
            return std::nullopt;
    }
    {
        const Handle type(H5Dget_type(dataset), H5Tclose, what + ": no datatype");
        if (H5Tequal(type.get(), memtype) <= 0) return std::nullopt;
        const Handle space(H5Dget_space(dataset), H5Sclose, what + ": no dataspace");
        const hssize_t points = H5Sget_simple_extent_npoints(space.get());
        if (points < 0 || s.element == 0 || static_cast<std::uint64_t>(points) > SIZE_MAX / s.element) return std::nullopt;
        s.count = static_cast<std::size_t>(points);
    }
    const std::size_t bytes = s.count * s.element;
    s.address = H5Dget_offset(dataset);
    if (s.address == HADDR_UNDEF || H5Dget_storage_size(dataset) != bytes) return std::nullopt;
    s.fd = file_descriptor(dataset, what);
    if (s.fd < 0) return std::nullopt;
    struct stat st {};
    if (fstat(s.fd, &st) != 0) throw Error(ErrorCode::io, what + ": cannot tell the file's size: " + std::strerror(errno));
    const auto file_bytes = static_cast<std::uint64_t>(st.st_size);
    if (s.address > file_bytes || bytes > file_bytes - s.address)
        throw Error(ErrorCode::io, what + ": its " + std::to_string(bytes) + " bytes at byte " + std::to_string(s.address) +
                                       " end past the file's end (" + std::to_string(file_bytes) + " bytes): the file was cut short");
    return s;
}

void read_contiguous(const ContiguousStorage& s, void* out, const std::string& what) {
    const std::size_t bytes = s.count * s.element;
    const std::size_t pieces = std::max<std::size_t>(1, (bytes + kBytesPerThread - 1) / kBytesPerThread);
    const unsigned threads = static_cast<unsigned>(std::min<std::size_t>({pieces, kMostThreads, std::max(1u, usable_cpu_count())}));
    auto* to = static_cast<std::uint8_t*>(out);
    run_on_threads(pieces, threads, [&](std::size_t k) {
        const std::size_t from = k * kBytesPerThread, n = std::min(kBytesPerThread, bytes - from);
        read_fully(s.fd, to + from, n, s.address + from, what);
    });
}

}  // namespace bslz4::tool::h5
