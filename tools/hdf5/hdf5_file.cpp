#include "hdf5_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace bslz4::tool::h5 {

Handle::Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id < 0) throw failure(what);
}
Handle::~Handle() {
    if (id_ >= 0 && close_) close_(id_);
}
bool Handle::close() {
    const hid_t id = std::exchange(id_, -1);
    return id < 0 || !close_ || close_(id) >= 0;
}
Handle::Handle(Handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
}
Handle& Handle::operator=(Handle&& o) noexcept {
    Handle tmp(std::move(o));
    std::swap(id_, tmp.id_);
    std::swap(close_, tmp.close_);
    return *this;
}

std::mutex& library_mutex() {
    static std::mutex m;
    return m;
}

void quiet_errors() {
    thread_local bool quiet = false;
    if (!quiet) quiet = H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0;
}

Lock::Lock() : lock_(library_mutex()) { quiet_errors(); }
Lock::~Lock() { H5Eclear2(H5E_DEFAULT); }

namespace {

// The first entry of an upward walk is where HDF5 found the fault: the most specific reason.
herr_t keep_innermost(unsigned n, const H5E_error2_t* e, void* reason) {
    if (n == 0 && e->desc && *e->desc) *static_cast<std::string*>(reason) = e->desc;
    return 0;
}

}  // namespace

namespace {

// HDF5's file driver reports a failed read or write as "file write failed: time = ..., filename =
// ..., errno = 28, error message = 'No space left on device', buf = ..." over two lines: on one
// line, what failed and the system's reason are what a user needs.
std::string system_reason(std::string reason) {
    const std::size_t message = reason.find("error message = '");
    const std::size_t time = reason.find(": time =");
    if (message != std::string::npos && time != std::string::npos) {
        const std::size_t from = message + 17, to = reason.find('\'', from);
        reason = reason.substr(0, time) + ": " + reason.substr(from, to == std::string::npos ? std::string::npos : to - from);
    }
    for (char& c : reason)
        if (c == '\n' || c == '\r') c = ' ';
    return reason;
}

}  // namespace

Error failure(const std::string& what, ErrorCode code) {
    std::string reason;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &reason);
    reason = system_reason(reason);
    H5Eclear2(H5E_DEFAULT);
    return Error(code, reason.empty() ? what : what + " (HDF5: " + reason + ")");
}

namespace {

// EDF (ESRF data format, fabio's "edf"): a text header in braces whose first keys are
// HeaderID, Image, ByteOrder or DataType, within its first kilobyte.
bool looks_like_edf(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    char head[1024] = {};
    const std::size_t n = std::fread(head, 1, sizeof head - 1, f);
    std::fclose(f);
    const std::string text(head, n);
    const std::size_t brace = text.find_first_not_of(" \r\n\t");
    if (brace == std::string::npos || text[brace] != '{') return false;
    for (const char* key : {"HeaderID", "EDF_DataBlockID", "ByteOrder", "DataType"})
        if (text.find(key) != std::string::npos) return true;
    return false;
}

}  // namespace

Handle open_file(const std::string& path, bool write) {
    quiet_errors();
    if (std::FILE* f = std::fopen(path.c_str(), "rb"))
        std::fclose(f);
    else
        throw Error(ErrorCode::io, path + ": cannot open: " + std::strerror(errno));
    if (H5Fis_hdf5(path.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        if (looks_like_edf(path))
            throw Error(ErrorCode::bad_argument, path + ": an EDF image (ESRF data format), not an HDF5 file; a mask in EDF is "
                                                        "given as the file alone (--mask FILE.edf, no :PATH)");
        throw Error(ErrorCode::bad_argument, path + ": not an HDF5 file");
    }
    const hid_t id = H5Fopen(path.c_str(), write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id < 0) {
        const Error e = failure(path + ": cannot open as HDF5");
        const std::string what = e.what();
        if (what.find("lock") == std::string::npos) throw e;
        throw Error(ErrorCode::io, what + "; another process (the detector's writer, say) holds it open for writing: wait for "
                                          "it to close the file, or set HDF5_USE_FILE_LOCKING=FALSE to read it anyway");
    }
    return Handle(id, H5Fclose, path);
}

Handle create_file(const std::string& path) {
    quiet_errors();
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                path + ": cannot create the output file (directory missing or not writable?)");
    // HDF5 opens the file with O_TRUNC. On ext4 (auto_da_alloc, its default) a file truncated to
    // nothing is written back whole by the thread that first closes it, lest a crash leave it
    // empty: HDF5's close then waited for the whole output, 0.74 s for the 1.7 GB of a 2D
    // matrix job's powders (H200 host, ext4). A close now, of nothing written, spends that on an
    // empty file; the output is written back as any other file is. A file that cannot be opened
    // again simply keeps the wait.
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) close(fd);
    return file;
}

namespace {

[[noreturn]] void cannot_tell(const std::string& file_name, const std::string& path) {
    throw failure((file_name.empty() ? std::string() : file_name + ": ") + "cannot read " + path +
                  ": HDF5 cannot tell whether it exists (damaged file?)");
}

// A link that names another place (soft) or file (external): when what it names cannot be
// reached, the link is dangling, not the file damaged.
bool is_soft_or_external(hid_t loc, const std::string& link) {
    H5L_info_t info{};
    if (H5Lget_info(loc, link.c_str(), &info, H5P_DEFAULT) < 0) return false;
    return info.type == H5L_TYPE_SOFT || info.type == H5L_TYPE_EXTERNAL;
}

// The object at `path` is a group (its link known to resolve); HDF5 errors throw.
bool is_group(hid_t loc, const std::string& path, const std::string& file_name) {
    const hid_t object = H5Oopen(loc, path.c_str(), H5P_DEFAULT);
    if (object < 0) cannot_tell(file_name, path);
    const bool group = H5Iget_type(object) == H5I_GROUP;
    H5Oclose(object);
    return group;
}

}  // namespace

bool exists(hid_t loc, const std::string& path, const std::string& file_name) {
    std::size_t at = 0;
    while (at < path.size()) {
        const std::size_t next = path.find('/', at + 1);
        const std::string sofar = path.substr(0, next);
        if (sofar != "/" && !sofar.empty()) {
            const htri_t link = H5Lexists(loc, sofar.c_str(), H5P_DEFAULT);
            if (link < 0) cannot_tell(file_name, sofar);
            if (link == 0) return false;
            const htri_t object = H5Oexists_by_name(loc, sofar.c_str(), H5P_DEFAULT);
            if (object < 0 && !is_soft_or_external(loc, sofar)) cannot_tell(file_name, sofar);
            if (object <= 0) {
                H5Eclear2(H5E_DEFAULT);
                return false;  // dangling
            }
            if (next != std::string::npos && !is_group(loc, sofar, file_name)) return false;  // nothing lies under a dataset
        }
        if (next == std::string::npos) break;
        at = next;
    }
    return true;
}

std::vector<std::string> link_names(hid_t loc, const std::string& group, const std::string& file_name) {
    std::vector<std::string> names;
    if (!exists(loc, group, file_name) || !is_group(loc, group, file_name)) return names;
    H5G_info_t info{};
    if (H5Gget_info_by_name(loc, group.c_str(), &info, H5P_DEFAULT) < 0) cannot_tell(file_name, group + "'s links");
    for (hsize_t i = 0; i < info.nlinks; ++i) {
        const ssize_t n = H5Lget_name_by_idx(loc, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
        if (n < 0) cannot_tell(file_name, group + "'s link " + std::to_string(i));
        std::string name(static_cast<std::size_t>(n) + 1, '\0');
        if (H5Lget_name_by_idx(loc, group.c_str(), H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT) < 0)
            cannot_tell(file_name, group + "'s link " + std::to_string(i));
        name.resize(static_cast<std::size_t>(n));
        names.push_back(std::move(name));
    }
    return names;
}

std::string dangling_link(hid_t loc, const std::string& path) {
    std::size_t at = 0;
    while (at < path.size()) {
        const std::size_t next = path.find('/', at + 1);
        const std::string link = path.substr(0, next);
        if (link != "/" && !link.empty()) {
            if (H5Lexists(loc, link.c_str(), H5P_DEFAULT) <= 0) return "";
            if (H5Oexists_by_name(loc, link.c_str(), H5P_DEFAULT) <= 0) {
                H5L_info_t info{};
                if (H5Lget_info(loc, link.c_str(), &info, H5P_DEFAULT) < 0) return link + " is a link that does not resolve";
                if (info.type == H5L_TYPE_HARD) return "";  // not a link to elsewhere: exists() names the damage
                std::vector<char> value(info.type == H5L_TYPE_HARD ? 0 : info.u.val_size + 1);
                if (value.empty() || H5Lget_val(loc, link.c_str(), value.data(), value.size(), H5P_DEFAULT) < 0)
                    return link + " is a link that does not resolve";
                if (info.type == H5L_TYPE_SOFT) return link + " is a soft link to " + value.data() + ", which does not exist";
                unsigned flags = 0;
                const char* target_file = nullptr;
                const char* target_object = nullptr;
                if (info.type == H5L_TYPE_EXTERNAL &&
                    H5Lunpack_elink_val(value.data(), info.u.val_size, &flags, &target_file, &target_object) >= 0)
                    return link + " is an external link to " + target_file + ":" + target_object +
                           ", which cannot be opened (file missing or unreadable, or no such object in it)";
                return link + " is a link (HDF5 type " + std::to_string(static_cast<int>(info.type)) + ") that does not resolve";
            }
        }
        if (next == std::string::npos) break;
        at = next;
    }
    return "";
}

Handle open_dataset(hid_t file, const std::string& path, const std::string& file_name) {
    if (!exists(file, path, file_name)) {
        // a link that does not resolve names data the file points to but that cannot be read
        const std::string dangling = dangling_link(file, path);
        if (dangling.empty()) throw Error(ErrorCode::bad_argument, file_name + ": no dataset " + path);
        throw Error(ErrorCode::io, file_name + ": cannot open " + path + ": " + dangling);
    }
    return Handle(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose, file_name + ": cannot open dataset " + path);
}

FileIdentity file_identity(hid_t object, const std::string& what) {
    const Handle file(H5Iget_file_id(object), H5Fclose, what + ": no file");
    FileIdentity id;
    const ssize_t n = H5Fget_name(file.get(), nullptr, 0);
    if (n < 0) throw failure(what + ": the file's name is unknown");
    std::vector<char> name(static_cast<std::size_t>(n) + 1, '\0');
    H5Fget_name(file.get(), name.data(), name.size());
    id.name = name.data();
    struct stat st {};
    void* handle = nullptr;
    hid_t driver = -1;
    {
        const Handle access(H5Fget_access_plist(file.get()), H5Pclose, what + ": no file access properties");
        driver = H5Pget_driver(access.get());
    }
    // sec2 (HDF5's default) hands over its descriptor; another driver's handle is not one, so
    // the name it opened is asked instead
    const bool by_descriptor = driver == H5FD_SEC2 && H5Fget_vfd_handle(file.get(), H5P_DEFAULT, &handle) >= 0 && handle &&
                               fstat(*static_cast<int*>(handle), &st) == 0;
    if (!by_descriptor && stat(id.name.c_str(), &st) != 0)
        throw Error(ErrorCode::io, what + ": cannot tell which file " + id.name + " is (" + std::strerror(errno) + ")");
    id.device = static_cast<std::uint64_t>(st.st_dev);
    id.inode = static_cast<std::uint64_t>(st.st_ino);
    return id;
}

std::vector<hsize_t> dataset_shape(hid_t dataset) {
    Handle space(H5Dget_space(dataset), H5Sclose, "dataset space");
    const int rank = H5Sget_simple_extent_ndims(space.get());
    std::vector<hsize_t> dims(rank > 0 ? static_cast<std::size_t>(rank) : 0);
    if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    return dims;
}

std::vector<hsize_t> chunk_shape(hid_t dataset) {
    Handle plist(H5Dget_create_plist(dataset), H5Pclose, "dataset creation properties");
    if (H5Pget_layout(plist.get()) != H5D_CHUNKED) return {};
    std::vector<hsize_t> dims(dataset_shape(dataset).size());
    H5Pget_chunk(plist.get(), static_cast<int>(dims.size()), dims.data());
    return dims;
}

template <class T>
std::vector<T> read_all(hid_t dataset, hid_t memtype, const std::string& what) {
    Handle space(H5Dget_space(dataset), H5Sclose, what + ": no dataspace");
    std::vector<T> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
    if (H5Dread(dataset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) throw failure(what + ": cannot read");
    return out;
}
template std::vector<float> read_all<float>(hid_t, hid_t, const std::string&);
template std::vector<double> read_all<double>(hid_t, hid_t, const std::string&);
template std::vector<std::int32_t> read_all<std::int32_t>(hid_t, hid_t, const std::string&);
template std::vector<std::uint32_t> read_all<std::uint32_t>(hid_t, hid_t, const std::string&);
template std::vector<std::uint8_t> read_all<std::uint8_t>(hid_t, hid_t, const std::string&);
template std::vector<std::uint16_t> read_all<std::uint16_t>(hid_t, hid_t, const std::string&);
template std::vector<std::int64_t> read_all<std::int64_t>(hid_t, hid_t, const std::string&);

namespace {

const char* class_name(H5T_class_t c) {
    switch (c) {
        case H5T_INTEGER: return "integer";
        case H5T_FLOAT: return "float";
        case H5T_TIME: return "time";
        case H5T_STRING: return "string";
        case H5T_BITFIELD: return "bitfield";
        case H5T_OPAQUE: return "opaque";
        case H5T_COMPOUND: return "compound";
        case H5T_REFERENCE: return "reference";
        case H5T_ENUM: return "enum";
        case H5T_VLEN: return "variable-length";
        case H5T_ARRAY: return "array";
        default: return "unknown";
    }
}

}  // namespace

std::vector<std::uint8_t> read_nonzero(hid_t dataset, std::size_t expected, const std::string& what) {
    const Handle space(H5Dget_space(dataset), H5Sclose, what + ": no dataspace");
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    if (n < 0 || static_cast<std::uint64_t>(n) != expected)
        throw Error(ErrorCode::bad_argument,
                    what + ": " + std::to_string(n) + " values, the frames have " + std::to_string(expected) + " pixels");
    const Handle type(H5Dget_type(dataset), H5Tclose, what + ": no datatype");
    const H5T_class_t cls = H5Tget_class(type.get());
    const std::size_t size = H5Tget_size(type.get());
    std::vector<std::uint8_t> out(expected);
    if (cls == H5T_FLOAT && size <= sizeof(double)) {
        // every float of up to 8 bytes is exactly a double; NaN != 0 holds, -0.0 != 0 does not
        const auto values = read_all<double>(dataset, H5T_NATIVE_DOUBLE, what);
        for (std::size_t i = 0; i < expected; ++i) out[i] = values[i] != 0;
    } else if (cls == H5T_INTEGER || cls == H5T_ENUM || cls == H5T_BITFIELD) {
        // read as the native type of the same size and sign, which only reorders the bytes (a
        // conversion to another type would clamp negatives and large values): zero is all bytes zero
        const Handle native(H5Tget_native_type(type.get(), H5T_DIR_ASCEND), H5Tclose, what + ": no native type");
        const std::size_t width = H5Tget_size(native.get());
        std::vector<std::uint8_t> bytes(expected * width);
        if (H5Dread(dataset, native.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) < 0) throw failure(what + ": cannot read");
        for (std::size_t i = 0; i < expected; ++i)
            for (std::size_t k = 0; k < width; ++k) out[i] |= bytes[i * width + k] != 0;
    } else {
        throw Error(ErrorCode::bad_argument, what + ": a mask of " + class_name(cls) + " values (" + std::to_string(size) +
                                                 " bytes); integers, floats or an enum (bool) expected, nonzero = do not use");
    }
    return out;
}

void check_chunk_extent(std::uint64_t address, std::uint64_t bytes, std::uint64_t file_bytes, std::uint64_t largest_valid,
                        const std::string& what) {
    if (bytes > file_bytes)
        throw Error(ErrorCode::truncated_chunk, what + ": the chunk index says the chunk has " + std::to_string(bytes) +
                                                    " bytes, more than the file's " + std::to_string(file_bytes) +
                                                    " bytes (damaged chunk index)");
    if (bytes > largest_valid)
        throw Error(ErrorCode::bad_block_length, what + ": the chunk index says the chunk has " + std::to_string(bytes) +
                                                     " bytes, more than any chunk of this frame can hold (at most " +
                                                     std::to_string(largest_valid) + " bytes; damaged chunk index)");
    if (address != UINT64_MAX && address > file_bytes - bytes)
        throw Error(ErrorCode::truncated_chunk, what + ": the chunk index puts the chunk's " + std::to_string(bytes) +
                                                    " bytes at byte " + std::to_string(address) + ", past the end of the file's " +
                                                    std::to_string(file_bytes) + " bytes (damaged chunk index)");
}

std::vector<std::uint8_t> read_chunk(hid_t dataset, const std::vector<hsize_t>& offset, const std::string& what,
                                     std::uint64_t largest_valid) {
    hsize_t bytes = 0;
    if (H5Dget_chunk_storage_size(dataset, offset.data(), &bytes) < 0) throw failure(what + ": chunk not stored");
    const Handle file(H5Iget_file_id(dataset), H5Fclose, what + ": no file");
    hsize_t file_bytes = 0;
    if (H5Fget_filesize(file.get(), &file_bytes) < 0) throw failure(what + ": the file's size is unknown");
    check_chunk_extent(UINT64_MAX, bytes, file_bytes, largest_valid, what);
    std::vector<std::uint8_t> out(bytes);
    std::uint32_t filters = 0;
    if (bytes && H5Dread_chunk(dataset, H5P_DEFAULT, offset.data(), &filters, out.data()) < 0)
        throw failure(what + ": direct chunk read failed");
    if (filters != 0)
        throw Error(ErrorCode::bad_argument,
                    what + ": the chunk was stored with its filter skipped (filter mask " + std::to_string(filters) + ")");
    return out;
}

}  // namespace bslz4::tool::h5
