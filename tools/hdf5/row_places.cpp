#include "row_places.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <numeric>

#include "bslz4/error.hpp"
#include "hdf5_writing.hpp"

namespace bslz4::tool {

namespace {

// Past this many separate stretches of chunks the rows are written by pwrite: each mapping is a
// kernel object of the process (vm.max_map_count, 65,530 by default), and HDF5 places a
// dataset's chunks side by side when it makes them, so one stretch is the rule.
constexpr std::size_t kMostMaps = 256;

std::string system_reason(int e) { return std::strerror(e); }

// The file systems (statfs f_type) whose fallocate reserves the blocks that a write through a
// mapping then fills without allocating: ext2/3/4, XFS, tmpfs. On others a mapped write past a
// full disk may be a SIGBUS (btrfs's page_mkwrite reserves space for copy-on-write anew; ZFS
// reserves nothing; network file systems write back later): those are written by pwrite, whose
// failure is an error.
constexpr long kExt4 = 0xEF53, kXfs = 0x58465342, kTmpfs = 0x01021994;

}  // namespace

bool reservations_hold(int fd) {
    struct statfs fs {};
    if (fstatfs(fd, &fs) != 0) return false;
    const long type = static_cast<long>(fs.f_type);
    return type == kExt4 || type == kXfs || type == kTmpfs;
}

RowsFile::RowsFile(const std::string& path) : fd_(open(path.c_str(), O_RDWR | O_CLOEXEC)) {
    if (fd_ < 0) throw Error(ErrorCode::io, path + ": cannot open it again to write its powders: " + system_reason(errno));
}

RowsFile::~RowsFile() {
    if (fd_ >= 0) close(fd_);
}

RowPlaces::RowPlaces(hid_t file, int fd, hid_t group, const char* name, hid_t type, const std::vector<hsize_t>& row,
                     std::size_t chunk_rows, std::size_t rows, bool map, const std::string& what)
    : what_(what + "/" + name), fd_(fd), rows_(rows), chunk_rows_(chunk_rows) {
    std::size_t elems = 1;
    for (const hsize_t n : row) elems *= n;
    row_bytes_ = elems * H5Tget_size(type);
    const h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what_ + ": properties");
    // Every chunk placed when the extent is set, and no fill written there by HDF5 (the reserved
    // space reads as zeros): the writes below fill them.
    if (H5Pset_alloc_time(plist.get(), H5D_ALLOC_TIME_EARLY) < 0 || H5Pset_fill_time(plist.get(), H5D_FILL_TIME_NEVER) < 0)
        throw h5::failure(what_ + ": cannot set its chunks to be placed when made");
    dataset_ = h5::series(group, name, type, row, chunk_rows, plist.get());
    const h5::Handle stored(H5Dget_type(dataset_.get()), H5Tclose, what_ + ": no type");
    if (H5Tequal(stored.get(), type) <= 0)
        throw Error(ErrorCode::io, what_ + ": stored in another type than the rows in memory; cannot write its bytes in place");
    std::vector<hsize_t> dims{rows};
    dims.insert(dims.end(), row.begin(), row.end());
    if (H5Dset_extent(dataset_.get(), dims.data()) < 0) throw h5::failure("cannot make " + what_ + " " + std::to_string(rows) + " rows long");
    // HDF5's addresses count from the end of the user block.
    const h5::Handle created(H5Fget_create_plist(file), H5Pclose, what_ + ": file properties");
    hsize_t base = 0;
    if (H5Pget_userblock(created.get(), &base) < 0) throw h5::failure(what_ + ": cannot read the file's user block size");
    const std::size_t chunks = (rows + chunk_rows - 1) / chunk_rows, chunk_bytes = chunk_rows * row_bytes_;
    std::vector<hsize_t> at(dims.size(), 0);
    for (std::size_t c = 0; c < chunks; ++c) {
        at[0] = c * chunk_rows;
        unsigned filters = 0;
        haddr_t address = HADDR_UNDEF;
        hsize_t size = 0;
        if (H5Dget_chunk_info_by_coord(dataset_.get(), at.data(), &filters, &address, &size) < 0)
            throw h5::failure(what_ + ": cannot find where chunk " + std::to_string(c) + " was placed");
        if (address == HADDR_UNDEF || size != chunk_bytes || filters != 0)
            throw Error(ErrorCode::io, what_ + ": chunk " + std::to_string(c) + " was not placed whole when the dataset was made");
        chunk_offset_.push_back(base + address);
    }
    place(map);
}

RowPlaces::~RowPlaces() { unmap(); }

void RowPlaces::unmap() noexcept {
    for (const Map& m : maps_) munmap(m.at, m.length);
    maps_.clear();
    chunk_at_.clear();
}

// Reserves the chunks' bytes on the disk and, with `map`, maps them; a file system that cannot
// reserve, or whose reservations a mapped write may not keep to, is written by pwrite (chunk_at_
// left empty).
void RowPlaces::place(bool map) {
    const std::size_t chunk_bytes = chunk_rows_ * row_bytes_;
    std::vector<std::size_t> order(chunk_offset_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return chunk_offset_[a] < chunk_offset_[b]; });
    struct Stretch {
        std::uint64_t offset, length;
        std::size_t first;  // in order
    };
    std::vector<Stretch> stretches;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::uint64_t offset = chunk_offset_[order[k]];
        if (!stretches.empty() && stretches.back().offset + stretches.back().length == offset)
            stretches.back().length += chunk_bytes;
        else
            stretches.push_back({offset, chunk_bytes, k});
    }
    if (stretches.empty()) return;
    // Reserved wherever the file system can, mapped or not: a disk too small is an error now,
    // not at a write part way through the scan.
    for (const Stretch& s : stretches) {
        int r;
        do r = fallocate(fd_, 0, static_cast<off_t>(s.offset), static_cast<off_t>(s.length));
        while (r != 0 && errno == EINTR);
        if (r == 0) continue;
        const int e = errno;
        if (e == EOPNOTSUPP || e == ENOSYS) return;  // written by pwrite
        throw Error(ErrorCode::io, "cannot write " + what_ + ": cannot reserve its " + std::to_string(s.length) + " bytes: " +
                                       system_reason(e) + (e == ENOSPC || e == EDQUOT ? " (disk full or quota exceeded?)" : ""));
    }
    if (!map || stretches.size() > kMostMaps || !reservations_hold(fd_)) return;  // written by pwrite
    const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    std::vector<std::uint8_t*> chunk_at(chunk_offset_.size(), nullptr);
    for (const Stretch& s : stretches) {
        const std::uint64_t from = s.offset / page * page;
        const std::size_t length = static_cast<std::size_t>(s.offset + s.length - from);
        void* m = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, static_cast<off_t>(from));
        if (m == MAP_FAILED) {
            unmap();  // written by pwrite
            return;
        }
        maps_.push_back({m, length});
        auto* bytes = static_cast<std::uint8_t*>(m) + (s.offset - from);
        for (std::size_t k = s.first; k < order.size() && chunk_offset_[order[k]] < s.offset + s.length; ++k)
            chunk_at[order[k]] = bytes + (chunk_offset_[order[k]] - s.offset);
    }
    chunk_at_ = std::move(chunk_at);
}

void RowPlaces::write(std::size_t first, std::size_t count, const void* bytes) const {
    if (first > rows_ || count > rows_ - first)
        throw Error(ErrorCode::bad_argument, what_ + ": rows " + std::to_string(first) + " to " + std::to_string(first + count) +
                                                 " written past its " + std::to_string(rows_));
    const auto* from = static_cast<const std::uint8_t*>(bytes);
    while (count) {
        const std::size_t c = first / chunk_rows_, within = first % chunk_rows_, n = std::min(count, chunk_rows_ - within);
        const std::size_t length = n * row_bytes_, skip = within * row_bytes_;
        if (!chunk_at_.empty()) {
            std::memcpy(chunk_at_[c] + skip, from, length);
        } else {
            for (std::size_t done = 0; done < length;) {
                const ssize_t w = pwrite(fd_, from + done, length - done, static_cast<off_t>(chunk_offset_[c] + skip + done));
                if (w < 0 && errno == EINTR) continue;
                if (w <= 0) {
                    const int e = w < 0 ? errno : EIO;
                    failed_ = true;
                    throw Error(ErrorCode::io, "cannot write " + what_ + " rows " + std::to_string(first) + " to " +
                                                   std::to_string(first + n - 1) + ": " + system_reason(e) +
                                                   (e == ENOSPC || e == EDQUOT ? " (disk full or quota exceeded?)" : ""));
                }
                done += static_cast<std::size_t>(w);
            }
        }
        from += length;
        first += n;
        count -= n;
    }
}

void RowPlaces::shrink(std::size_t rows) {
    if (rows >= rows_) return;
    unmap();  // the chunks cut go back to HDF5, which may place other things there; the rows kept stay where they are
    std::vector<hsize_t> dims = h5::dataset_shape(dataset_.get());
    dims.at(0) = rows;
    if (H5Dset_extent(dataset_.get(), dims.data()) < 0) throw h5::failure("cannot cut " + what_ + " to " + std::to_string(rows) + " rows");
    rows_ = rows;
}

}  // namespace bslz4::tool
