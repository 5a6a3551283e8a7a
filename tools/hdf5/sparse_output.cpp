#include "sparse_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "bslz4/error.hpp"

namespace bslz4::tool {

namespace {

hid_t native_type(PixelType t) {
    switch (t) {
        case PixelType::u8: return H5T_NATIVE_UINT8;
        case PixelType::u16: return H5T_NATIVE_UINT16;
        case PixelType::u32: return H5T_NATIVE_UINT32;
        case PixelType::u64: return H5T_NATIVE_UINT64;
        case PixelType::i8: return H5T_NATIVE_INT8;
        case PixelType::i16: return H5T_NATIVE_INT16;
        case PixelType::i32: return H5T_NATIVE_INT32;
        case PixelType::i64: return H5T_NATIVE_INT64;
        case PixelType::f32: return H5T_NATIVE_FLOAT;
        case PixelType::f64: return H5T_NATIVE_DOUBLE;
    }
    return H5T_NATIVE_UINT8;
}

const char* numpy_name(PixelType t) {  // ImageD11's itype is numpy's dtype name
    switch (t) {
        case PixelType::u8: return "uint8";
        case PixelType::u16: return "uint16";
        case PixelType::u32: return "uint32";
        case PixelType::u64: return "uint64";
        case PixelType::i8: return "int8";
        case PixelType::i16: return "int16";
        case PixelType::i32: return "int32";
        case PixelType::i64: return "int64";
        case PixelType::f32: return "float32";
        case PixelType::f64: return "float64";
    }
    return "?";
}

hid_t acc_type(Accumulator a) {
    return a == Accumulator::f32 ? H5T_NATIVE_FLOAT : a == Accumulator::i64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
}

void attribute(hid_t loc, const char* name, hid_t type, const void* value) {
    if (H5Aexists(loc, name) > 0) H5Adelete(loc, name);
    h5::Handle space(H5Screate(H5S_SCALAR), H5Sclose, "attribute space");
    h5::Handle a(H5Acreate2(loc, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                 std::string("cannot write attribute ") + name);
    H5Awrite(a.get(), type, value);
}
void attribute(hid_t loc, const char* name, std::int64_t v) { attribute(loc, name, H5T_NATIVE_INT64, &v); }
void attribute(hid_t loc, const char* name, double v) { attribute(loc, name, H5T_NATIVE_DOUBLE, &v); }
void attribute(hid_t loc, const char* name, const std::string& v) {
    h5::Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    H5Tset_size(type.get(), v.size() + 1);
    attribute(loc, name, type.get(), v.c_str());
}

// An extendable dataset of `cols` columns (1-D when cols == 0).
h5::Handle series(hid_t group, const char* name, hid_t type, std::size_t cols, std::size_t chunk_rows) {
    const int rank = cols ? 2 : 1;
    const hsize_t dims[2] = {0, cols}, maxdims[2] = {H5S_UNLIMITED, cols}, chunk[2] = {chunk_rows, cols};
    h5::Handle space(H5Screate_simple(rank, dims, maxdims), H5Sclose, "dataspace");
    h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "properties");
    H5Pset_chunk(plist.get(), rank, chunk);
    return h5::Handle(H5Dcreate2(group, name, type, space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT), H5Dclose,
                      std::string("cannot create dataset ") + name);
}

// bad_frames' row in memory, and its type (the file's is the same, packed).
struct BadFrameRecord {
    std::int64_t frame;
    std::int32_t code;
    const char* code_name;
    const char* message;
};

h5::Handle bad_frame_type(bool packed) {
    h5::Handle text(H5Tcopy(H5T_C_S1), H5Tclose, "bad_frames string type");
    if (H5Tset_size(text.get(), H5T_VARIABLE) < 0 || H5Tset_cset(text.get(), H5T_CSET_UTF8) < 0)
        throw h5::failure("bad_frames: cannot make the string type");
    h5::Handle type(H5Tcreate(H5T_COMPOUND, sizeof(BadFrameRecord)), H5Tclose, "bad_frames type");
    if (H5Tinsert(type.get(), "frame", HOFFSET(BadFrameRecord, frame), H5T_NATIVE_INT64) < 0 ||
        H5Tinsert(type.get(), "code", HOFFSET(BadFrameRecord, code), H5T_NATIVE_INT32) < 0 ||
        H5Tinsert(type.get(), "code_name", HOFFSET(BadFrameRecord, code_name), text.get()) < 0 ||
        H5Tinsert(type.get(), "message", HOFFSET(BadFrameRecord, message), text.get()) < 0 || (packed && H5Tpack(type.get()) < 0))
        throw h5::failure("bad_frames: cannot make the compound type");
    return type;
}

void append_rows(hid_t dataset, hid_t type, const void* data, std::size_t rows, std::size_t cols, const char* name) {
    if (rows == 0) return;
    const int rank = cols ? 2 : 1;
    hsize_t dims[2] = {0, cols};
    {
        h5::Handle space(H5Dget_space(dataset), H5Sclose, name);
        H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    }
    const hsize_t start[2] = {dims[0], 0}, count[2] = {rows, cols};
    const hsize_t grown[2] = {dims[0] + rows, cols};
    if (H5Dset_extent(dataset, grown) < 0) throw h5::failure(std::string("cannot extend ") + name);
    h5::Handle file_space(H5Dget_space(dataset), H5Sclose, name);
    H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
    h5::Handle mem_space(H5Screate_simple(rank, count, nullptr), H5Sclose, name);
    if (H5Dwrite(dataset, type, mem_space.get(), file_space.get(), H5P_DEFAULT, data) < 0)
        throw h5::failure(std::string("cannot write ") + name);
}

// Where the output goes: `path`, or the file an existing symbolic link names (the link stays).
// Refuses to replace what is not a regular file, or a file the user may not write.
std::string output_target(const std::string& path) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) return path;  // a new file (or an error the temporary's creation names)
    std::string target = path;
    if (S_ISLNK(st.st_mode)) {
        if (char* real = realpath(path.c_str(), nullptr)) {
            target = real;
            std::free(real);
            if (stat(target.c_str(), &st) != 0) return path;
        } else {
            return path;  // a dangling link: replaced by the file
        }
    }
    if (!S_ISREG(st.st_mode))
        throw Error(ErrorCode::bad_argument, path + ": exists and is not a regular file; it is left unchanged");
    if (access(target.c_str(), W_OK) != 0)
        throw Error(ErrorCode::io, path + ": exists and is not writable (" + std::strerror(errno) + "); it is left unchanged");
    return target;
}

// An empty file beside `target` with a name no one else uses, with the mode of the file it
// will replace (or the default one).
std::string create_temporary(const std::string& target, const std::string& shown) {
    struct stat st {};
    const bool replaces = stat(target.c_str(), &st) == 0;
    for (int n = 0;; ++n) {
        const std::string name = target + ".part-" + std::to_string(getpid()) + (n ? "-" + std::to_string(n) : "");
        const int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            if (replaces) fchmod(fd, st.st_mode & 07777);
            close(fd);
            return name;
        }
        if (errno != EEXIST || n == 1000)
            throw Error(ErrorCode::io, shown + ": cannot create the output file (" + std::strerror(errno) + " for " + name + ")");
    }
}

}  // namespace

TemporaryFile::~TemporaryFile() {
    if (!path_.empty()) std::remove(path_.c_str());
}

SparseOutput::SparseOutput(const std::string& path, const OutputInfo& info)
    : path_(path),
      final_path_(output_target(path)),
      info_(info),
      exceptions_at_start_(std::uncaught_exceptions()),
      temporary_(create_temporary(final_path_, path)),
      file_(h5::create_file(temporary_.path())) {
    // A throw from here on closes file_ and then removes the temporary (both are built).
    if (info.ni > 65536 || info.nj > 65536)
        throw Error(ErrorCode::bad_argument, path + ": frames wider than 65536 pixels do not fit uint16 row/col");
    const hid_t root = file_.get();
    attribute(root, "command_line", info.command_line);
    attribute(root, "input_file", info.input_file);
    attribute(root, "writer", std::string("bslz4 sparse"));
}

SparseOutput::~SparseOutput() noexcept(false) {
    const bool failed = std::uncaught_exceptions() > exceptions_at_start_;
    datasets_.clear();
    bad_frames_ = h5::Handle();
    group_ = h5::Handle();
    const bool flushed = failed || H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) >= 0;
    file_ = h5::Handle();
    if (failed) return;  // temporary_ removes the file: the output is left as it was
    if (!flushed) throw Error(ErrorCode::io, path_ + ": cannot write the output file (disk full?)");
    if (std::rename(temporary_.path().c_str(), final_path_.c_str()) != 0) {
        const std::string why = std::strerror(errno), kept = temporary_.path();
        temporary_.keep();
        throw Error(ErrorCode::io,
                    path_ + ": cannot rename the finished output over it (" + why + "); the results are in " + kept);
    }
    temporary_.keep();
}

void SparseOutput::begin_group(const std::string& dataset_path, std::size_t frames) {
    std::string name = dataset_path;
    while (!name.empty() && name[0] == '/') name.erase(0, 1);
    for (char& c : name)
        if (c == '/') c = '_';
    group_ = h5::Handle(H5Gcreate2(file_.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                        path_ + ": cannot create group " + name);
    const hid_t g = group_.get();
    attribute(g, "shape0", static_cast<std::int64_t>(info_.ni));
    attribute(g, "shape1", static_cast<std::int64_t>(info_.nj));
    attribute(g, "itype", std::string(numpy_name(info_.type)));
    attribute(g, "source", dataset_path);
    attribute(g, "cut", info_.cut);
    attribute(g, "mask_source", info_.mask_source);
    attribute(g, "command_line", info_.command_line);
    attribute(g, "frames_expected", static_cast<std::int64_t>(frames));
    datasets_.clear();
    datasets_.push_back(series(g, "row", H5T_NATIVE_UINT16, 0, 65536));
    datasets_.push_back(series(g, "col", H5T_NATIVE_UINT16, 0, 65536));
    datasets_.push_back(series(g, "intensity", native_type(info_.type), 0, 65536));
    datasets_.push_back(series(g, "nnz", H5T_NATIVE_INT32, 0, 1024));
    if (info_.bins) {
        datasets_.push_back(series(g, "powder", acc_type(info_.acc), info_.bins, 16));
        attribute(datasets_.back().get(), "acc", std::string(accumulator_name(info_.acc)));
        attribute(datasets_.back().get(), "powder_scale", info_.powder_scale);
    }
    bad_frames_ = series(g, "bad_frames", bad_frame_type(true).get(), 0, 64);
    frames_done_ = pixels_done_ = 0;
    frames_expected_ = frames;
    write_attributes(g, false);
}

void OutputRows::add(const SparseFrame& frame, std::size_t nj, const void* powder_row, std::size_t powder_bytes) {
    const std::size_t at = row.size(), bpp = pixel_size(frame.pixel_type);
    nnz.push_back(static_cast<std::int32_t>(frame.npixels));
    row.resize(at + frame.npixels);
    col.resize(at + frame.npixels);
    for (std::size_t k = 0; k < frame.npixels; ++k) {
        row[at + k] = static_cast<std::uint16_t>(frame.indices[k] / nj);
        col[at + k] = static_cast<std::uint16_t>(frame.indices[k] % nj);
    }
    const auto* values = static_cast<const std::uint8_t*>(frame.values);
    intensity.insert(intensity.end(), values, values + frame.npixels * bpp);
    const auto* p = static_cast<const std::uint8_t*>(powder_row);
    if (powder_bytes) powder.insert(powder.end(), p, p + powder_bytes);
}

void OutputRows::add_bad(std::size_t frame, ErrorCode code, const std::string& message, std::size_t powder_bytes) {
    nnz.push_back(0);
    powder.resize(powder.size() + powder_bytes, 0);  // all bytes 0 is 0 in every accumulator type
    bad.push_back(FrameError{frame, code, message});
}

void SparseOutput::append(const OutputRows& rows) {
    const std::size_t total = rows.pixels(), count = rows.frames();
    append_rows(datasets_[0].get(), H5T_NATIVE_UINT16, rows.row.data(), total, 0, "row");
    append_rows(datasets_[1].get(), H5T_NATIVE_UINT16, rows.col.data(), total, 0, "col");
    append_rows(datasets_[2].get(), native_type(info_.type), rows.intensity.data(), total, 0, "intensity");
    append_rows(datasets_[3].get(), H5T_NATIVE_INT32, rows.nnz.data(), count, 0, "nnz");
    if (info_.bins) {
        if (rows.powder.size() != count * info_.bins * accumulator_size(info_.acc))
            throw Error(ErrorCode::bad_argument,
                        path_ + ": a batch of " + std::to_string(count) + " frames came without its powders");
        append_rows(datasets_[4].get(), acc_type(info_.acc), rows.powder.data(), count, info_.bins, "powder");
    }
    if (!rows.bad.empty()) {
        std::vector<BadFrameRecord> records;
        for (const FrameError& e : rows.bad)
            records.push_back({static_cast<std::int64_t>(e.frame), static_cast<std::int32_t>(e.code), error_code_name(e.code),
                               e.message.c_str()});
        append_rows(bad_frames_.get(), bad_frame_type(false).get(), records.data(), records.size(), 0, "bad_frames");
    }
    frames_done_ += count;
    pixels_done_ += total;
    write_attributes(group_.get(), false);
    H5Fflush(file_.get(), H5F_SCOPE_GLOBAL);
}

void SparseOutput::close_group(bool complete) {
    if (group_.get() < 0) return;
    write_attributes(group_.get(), complete);
    H5Fflush(file_.get(), H5F_SCOPE_GLOBAL);
}

void SparseOutput::write_attributes(hid_t group, bool complete) {
    attribute(group, "nframes", static_cast<std::int64_t>(frames_done_));
    attribute(group, "npixels", static_cast<std::int64_t>(pixels_done_));
    attribute(group, "complete", static_cast<std::int64_t>(complete ? 1 : 0));
}

}  // namespace bslz4::tool
