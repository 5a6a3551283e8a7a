// A thin RAII layer over HDF5's C API for the tools: every handle closes itself, every failure
// is a bslz4::Error naming the file and the object. Chunks are read and written raw (direct
// chunk I/O), so no filter plugin is ever needed.
#pragma once
#include <hdf5.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "bslz4/error.hpp"

namespace bslz4::tool::h5 {

// A handle that cannot be had (id < 0) is failure(what): ErrorCode::io.
class Handle {
public:
    Handle() = default;
    Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what);
    ~Handle();
    Handle(Handle&& o) noexcept;
    Handle& operator=(Handle&& o) noexcept;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    hid_t get() const { return id_; }
    // Closes it now; false when HDF5's close failed (a file it could not write out, say).
    bool close();

private:
    hid_t id_ = -1;
    herr_t (*close_)(hid_t) = nullptr;
};

// HDF5 may be built without thread safety (then one thread at a time may call it): every call
// made while another thread may call it holds this lock.
std::mutex& library_mutex();

// Keeps HDF5 from printing its error stack on the calling thread (a thread-safe HDF5 keeps one
// stack, and one printing setting, per thread): our messages say it all.
void quiet_errors();

// library_mutex() held, and HDF5 quiet on this thread; on release this thread's error stack is
// cleared, which frees HDF5's copies of its messages.
class Lock {
public:
    Lock();
    ~Lock();
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

private:
    std::lock_guard<std::mutex> lock_;
};

// `what`, with the innermost reason on this thread's HDF5 error stack appended when there is one
// ("what (HDF5: reason)"); the stack is cleared. An HDF5 call that fails is an I/O failure (a
// file that cannot be read, written or made sense of) unless its caller knows better.
Error failure(const std::string& what, ErrorCode code = ErrorCode::io);

// A file that cannot be opened is ErrorCode::io; one that is not HDF5, bad_argument.
Handle open_file(const std::string& path, bool write = false);
Handle create_file(const std::string& path);
// Every link on the path exists and resolves to an object (each but the last a group). False
// when a link is absent, or is a soft or external link that does not resolve (dangling_link
// then says which); an HDF5 error on the way (a damaged link table or object header) is no
// answer: it throws io naming `file_name`, the path and HDF5's reason, never "absent".
bool exists(hid_t loc, const std::string& path, const std::string& file_name = "");
// The names of a group's links in name order; none when `group` does not exist or is not a
// group. HDF5 errors throw as exists()'s do.
std::vector<std::string> link_names(hid_t loc, const std::string& group, const std::string& file_name = "");
// When a link on the path exists but does not resolve: "LINK is a soft link to TARGET" or "LINK
// is an external link to FILE:OBJECT" (the first such link); "" otherwise.
std::string dangling_link(hid_t loc, const std::string& path);
// Refuses a missing dataset (bad_argument), naming the link that does not resolve when that is why
// (io: what the file points to cannot be read).
Handle open_dataset(hid_t file, const std::string& path, const std::string& file_name);

// The file an open object lies in, as the file system knows it (device and inode, through the
// descriptor HDF5 reads it by, so links and other paths to it are the same file), and its name
// as HDF5 opened it; for the output's refusal to replace a file the job reads.
struct FileIdentity {
    std::string name;
    std::uint64_t device = 0, inode = 0;
};
FileIdentity file_identity(hid_t object, const std::string& what);

std::vector<hsize_t> dataset_shape(hid_t dataset);
std::vector<hsize_t> chunk_shape(hid_t dataset);  // empty when not chunked

template <class T>
std::vector<T> read_all(hid_t dataset, hid_t memtype, const std::string& what);
// 1 where the dataset's element is nonzero, read in the dataset's own type (an integer of any
// size and sign, an enum such as h5py's bool, a bitfield, or a float: NaN is nonzero, -0.0 is
// zero). Refuses other classes, and a dataset of other than `expected` elements, before reading
// (bad_argument).
std::vector<std::uint8_t> read_nonzero(hid_t dataset, std::size_t expected, const std::string& what);
// Whether `object` has attribute `name`; an HDF5 error is no answer: io naming `what`.
bool has_attribute(hid_t loc, const std::string& object, const std::string& name, const std::string& what);
std::vector<std::int64_t> read_int_attribute(hid_t loc, const std::string& object, const std::string& name);
std::vector<double> read_double_attribute(hid_t loc, const std::string& object, const std::string& name);
// One string (variable-length, as h5py writes them, or fixed-length); anything else is refused.
std::string read_text_attribute(hid_t loc, const std::string& object, const std::string& name);
// A 1-D dataset of strings (variable-length, as h5py's string_dtype, or fixed-length).
std::vector<std::string> read_text_list(hid_t dataset, const std::string& what);

// Refuses, naming `what`, a chunk the chunk index says has `bytes` bytes at byte `address` of a
// file of file_bytes (address UINT64_MAX: not known), when it is larger than the file or than
// `largest_valid` (what any valid chunk of the dataset can be), or would end past the file's end.
// Every chunk is checked so before a buffer is sized by it or a byte is read. A chunk that would end
// past the file is cut short by it (truncated_chunk); one larger than any valid chunk of the frame
// would have bytes left after its last block (bad_block_length).
void check_chunk_extent(std::uint64_t address, std::uint64_t bytes, std::uint64_t file_bytes, std::uint64_t largest_valid,
                        const std::string& what);

// The raw stored chunk at the given offset (e.g. {frame, 0, 0}). The size the chunk index gives
// is refused, before anything is allocated, when it is larger than the file or than
// `largest_valid` (what any valid chunk of the dataset can be).
// A chunk stored with its filter skipped is refused (bad_argument): this reads filtered chunks.
std::vector<std::uint8_t> read_chunk(hid_t dataset, const std::vector<hsize_t>& offset, const std::string& what,
                                     std::uint64_t largest_valid = UINT64_MAX);

}  // namespace bslz4::tool::h5
