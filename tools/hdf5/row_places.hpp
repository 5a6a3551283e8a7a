// A dataset of rows of one shape whose every chunk is placed in the file when it is made, so that
// its rows can be written where they lie by any thread at once, outside HDF5 and its lock. The
// powders take it: a 1,500 x 72 f64 powder is 864 kB a frame, as much as the compressed frame
// read, and through HDF5 one writer thread moved 1.8-2.2 GB/s of them (the file's lock serialises
// a second); here each decoder's thread writes its batch's powders straight from the buffer the
// GPU copied them into.
//
// The chunks are reserved on the disk first (fallocate), then mapped and written by memcpy:
// page faults on one file proceed side by side where write(2) takes the file's lock, and a full
// disk is an error at the reservation, not a SIGBUS at a write. A file system that cannot reserve
// (EOPNOTSUPP) or map, or one whose reservations a mapped write may not keep to (all but ext4,
// XFS and tmpfs: see reservations_hold), is written by pwrite instead (the space still reserved
// first where the file system can), still from every thread, serialised by the kernel.
// Unfiltered chunks only: the bytes written are the chunk's bytes.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_file.hpp"

namespace bslz4::tool {

// Whether the file system of open file `fd` keeps what fallocate reserved for writes through a
// mapping (ext4, XFS, tmpfs): only there are rows written by memcpy into a mapping.
bool reservations_hold(int fd);

// The output file opened once more, for the rows written outside HDF5 (closed when this goes).
class RowsFile {
public:
    RowsFile() = default;
    explicit RowsFile(const std::string& path);  // throws io naming it
    ~RowsFile();
    RowsFile(const RowsFile&) = delete;
    RowsFile& operator=(const RowsFile&) = delete;
    int fd() const { return fd_; }

private:
    int fd_ = -1;
};

class RowPlaces {
public:
    // Makes dataset `name` in `group` of `rows` rows of shape `row` and memory type `type` (its
    // stored type), chunked `chunk_rows` rows at a time, every chunk placed now and never filled
    // by HDF5 (a row not written reads as zeros: the reserved space is). `fd`: the file open for
    // writing (the caller's, kept open while this lives); `map`: false writes by pwrite (the
    // space still reserved where the file system can), as where a mapping is not trusted. The
    // HDF5 calls need h5::Lock.
    RowPlaces(hid_t file, int fd, hid_t group, const char* name, hid_t type, const std::vector<hsize_t>& row,
              std::size_t chunk_rows, std::size_t rows, bool map, const std::string& what);
    ~RowPlaces();  // unmaps; closes the dataset (h5::Lock held)
    RowPlaces(const RowPlaces&) = delete;
    RowPlaces& operator=(const RowPlaces&) = delete;

    hid_t dataset() const { return dataset_.get(); }  // for its attributes
    std::size_t row_bytes() const { return row_bytes_; }
    // Whether the rows are written through a mapping (else by pwrite).
    bool mapped() const { return !maps_.empty(); }
    // Whether a write failed: the rows are then not whole, and the file is not kept.
    bool failed() const { return failed_; }

    // Writes rows [first, first + count) from `bytes`: from any thread, no HDF5 call; writes of
    // different rows at once are safe. Throws io on a failed pwrite, bad_argument past the end.
    void write(std::size_t first, std::size_t count, const void* bytes) const;

    // Cuts the dataset to its first `rows` rows (a run that stopped); no write may come after.
    void shrink(std::size_t rows);

private:
    struct Map {
        void* at;
        std::size_t length;
    };
    void place(bool map);
    void unmap() noexcept;

    std::string what_;
    h5::Handle dataset_;
    int fd_;
    std::size_t rows_, row_bytes_, chunk_rows_;
    std::vector<std::uint64_t> chunk_offset_;  // each chunk's place in the file, by row
    std::vector<std::uint8_t*> chunk_at_;      // ... in a mapping; empty: written by pwrite
    std::vector<Map> maps_;
    mutable std::atomic<bool> failed_{false};
};

}  // namespace bslz4::tool
