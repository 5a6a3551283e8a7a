// A whole dataset read by positional reads on several threads, where HDF5 stores it as one
// contiguous, unfiltered run of bytes in the memory type's own layout (how h5py and scipy-based
// writers store arrays written at once: a matrix file's 72 MB of weights and indices). HDF5 reads
// such a dataset on one thread into memory that faults in as it goes; split over threads the
// reads and the faults take a fraction of that. Anything else (chunked, filtered, another byte
// order, external or virtual storage, a driver other than sec2, space never written) is left to
// HDF5, which reads it as ever.
#pragma once
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace bslz4::tool::h5 {

// Where a dataset's elements lie: `count` elements of the memory type, one run of bytes from
// `address` of the file open as `fd` (HDF5's own descriptor: valid while its file stays open).
struct ContiguousStorage {
    int fd = -1;
    std::uint64_t address = 0;
    std::size_t count = 0, element = 0;
};

// The dataset's storage when it is stored so, checked to lie inside the file (so a buffer sized
// by count is no larger than the file); none when it is not stored so (read it through HDF5).
// The caller holds the HDF5 lock (see Lock). Storage past the file's end is an Error naming `what`.
std::optional<ContiguousStorage> contiguous_storage(hid_t dataset, hid_t memtype, const std::string& what);

// Reads the storage's count x element bytes into `out`, on several threads; a failed or short
// read is an Error naming `what`.
void read_contiguous(const ContiguousStorage& storage, void* out, const std::string& what);

}  // namespace bslz4::tool::h5
