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

private:
    hid_t id_ = -1;
    herr_t (*close_)(hid_t) = nullptr;
};

// The HDF5 library is not thread-safe as Debian and Ubuntu build it: every call made while
// another thread may call it holds this lock.
std::mutex& library_mutex();

// Silences HDF5's own error printing for the life of the process (our messages say it all).
void quiet_errors();

Handle open_file(const std::string& path, bool write = false);
Handle create_file(const std::string& path);
bool exists(hid_t loc, const std::string& path);  // every link on the path exists and resolves
Handle open_dataset(hid_t file, const std::string& path, const std::string& file_name);

std::vector<hsize_t> dataset_shape(hid_t dataset);
std::vector<hsize_t> chunk_shape(hid_t dataset);  // empty when not chunked

template <class T>
std::vector<T> read_all(hid_t dataset, hid_t memtype, const std::string& what);
std::vector<std::int64_t> read_int_attribute(hid_t loc, const std::string& object, const std::string& name);

// The raw stored chunk at the given offset (e.g. {frame, 0, 0}).
std::vector<std::uint8_t> read_chunk(hid_t dataset, const std::vector<hsize_t>& offset, const std::string& what);

}  // namespace bslz4::tool::h5
