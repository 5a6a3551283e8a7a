#include "sparse_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>

#include "bslz4/encode.hpp"
#include "bslz4/error.hpp"
#include "sparse/run_on_threads.hpp"
#include "scan_input.hpp"

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

hid_t acc_type(Accumulator a) {
    return a == Accumulator::f32 ? H5T_NATIVE_FLOAT : a == Accumulator::i64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
}

// Writes attribute `name`: a scalar, or `count` values. One already there with as many values
// is written over in place (the counts are rewritten after every batch), else replaced.
void attribute(hid_t loc, const char* name, hid_t type, const void* value, const hsize_t* count = nullptr) {
    const std::string what = std::string("cannot write attribute ") + name;
    if (H5Aexists(loc, name) > 0) {
        h5::Handle a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose, what);
        h5::Handle space(H5Aget_space(a.get()), H5Sclose, what);
        if (H5Sget_simple_extent_npoints(space.get()) == static_cast<hssize_t>(count ? *count : 1)) {
            if (H5Awrite(a.get(), type, value) < 0) throw h5::failure(what);
            return;
        }
        a = h5::Handle();
        if (H5Adelete(loc, name) < 0) throw h5::failure(what);
    }
    h5::Handle space(count ? H5Screate_simple(1, count, nullptr) : H5Screate(H5S_SCALAR), H5Sclose, "attribute space");
    h5::Handle a(H5Acreate2(loc, name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, what);
    if (H5Awrite(a.get(), type, value) < 0) throw h5::failure(what);
}
void attribute(hid_t loc, const char* name, std::int64_t v) { attribute(loc, name, H5T_NATIVE_INT64, &v); }
void attribute(hid_t loc, const char* name, double v) { attribute(loc, name, H5T_NATIVE_DOUBLE, &v); }

// Variable-length UTF-8, as h5py writes a Python str (and as ImageD11's segmenter's itype is).
h5::Handle text_type(const char* what) {
    h5::Handle type(H5Tcopy(H5T_C_S1), H5Tclose, what);
    if (H5Tset_size(type.get(), H5T_VARIABLE) < 0 || H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0)
        throw h5::failure(std::string(what) + ": cannot make the string type");
    return type;
}
void attribute(hid_t loc, const char* name, const std::string& v) {
    const char* text = v.c_str();
    attribute(loc, name, text_type(name).get(), &text);
}
void attribute(hid_t loc, const char* name, const std::vector<std::string>& v) {
    std::vector<const char*> texts;
    for (const std::string& s : v) texts.push_back(s.c_str());
    const hsize_t n = texts.size();
    attribute(loc, name, text_type(name).get(), texts.data(), &n);
}

// An extendible dataset of rows, each of shape `row` ({} for a value a row), chunked
// `chunk_rows` rows at a time.
h5::Handle series(hid_t group, const char* name, hid_t type, const std::vector<hsize_t>& row, std::size_t chunk_rows,
                  hid_t plist = H5P_DEFAULT) {
    const int rank = static_cast<int>(row.size()) + 1;
    std::vector<hsize_t> dims{0}, maxdims{H5S_UNLIMITED}, chunk{chunk_rows};
    dims.insert(dims.end(), row.begin(), row.end());
    maxdims.insert(maxdims.end(), row.begin(), row.end());
    chunk.insert(chunk.end(), row.begin(), row.end());
    h5::Handle space(H5Screate_simple(rank, dims.data(), maxdims.data()), H5Sclose, "dataspace");
    h5::Handle own;
    if (plist == H5P_DEFAULT) {
        own = h5::Handle(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "properties");
        plist = own.get();
    }
    if (H5Pset_chunk(plist, rank, chunk.data()) < 0) throw h5::failure(std::string("cannot chunk dataset ") + name);
    return h5::Handle(H5Dcreate2(group, name, type, space.get(), H5P_DEFAULT, plist, H5P_DEFAULT), H5Dclose,
                      std::string("cannot create dataset ") + name);
}
// One of `cols` columns (1-D when cols == 0).
h5::Handle series(hid_t group, const char* name, hid_t type, std::size_t cols, std::size_t chunk_rows,
                  hid_t plist = H5P_DEFAULT) {
    return series(group, name, type, cols ? std::vector<hsize_t>{cols} : std::vector<hsize_t>{}, chunk_rows, plist);
}

// Appends `rows` rows (of the dataset's own row shape) to a series.
void append_rows(hid_t dataset, hid_t type, const void* data, std::size_t rows, const char* name) {
    if (rows == 0) return;
    std::vector<hsize_t> dims;
    {
        h5::Handle space(H5Dget_space(dataset), H5Sclose, name);
        dims.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.get())));
        H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    }
    std::vector<hsize_t> start(dims.size(), 0), count(dims), grown(dims);
    start[0] = dims[0];
    count[0] = rows;
    grown[0] = dims[0] + rows;
    if (H5Dset_extent(dataset, grown.data()) < 0) throw h5::failure(std::string("cannot extend ") + name);
    h5::Handle file_space(H5Dget_space(dataset), H5Sclose, name);
    H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
    h5::Handle mem_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose, name);
    if (H5Dwrite(dataset, type, mem_space.get(), file_space.get(), H5P_DEFAULT, data) < 0)
        throw h5::failure(std::string("cannot write ") + name);
}

// A whole dataset of `shape` float64 values; returns it open (for its attributes).
h5::Handle write_doubles(hid_t group, const char* name, const std::vector<hsize_t>& shape, const std::vector<double>& v) {
    h5::Handle space(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr), H5Sclose, name);
    h5::Handle d(H5Dcreate2(group, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
                 std::string("cannot create dataset ") + name);
    if (H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
        throw h5::failure(std::string("cannot write ") + name);
    return d;
}

// bad_frames' row in memory, and its type (the file's is the same, packed).
struct BadFrameRecord {
    std::int64_t frame;
    std::int32_t code;
    const char* code_name;
    const char* message;
};

h5::Handle bad_frame_type(bool packed) {
    const h5::Handle text = text_type("bad_frames");
    h5::Handle type(H5Tcreate(H5T_COMPOUND, sizeof(BadFrameRecord)), H5Tclose, "bad_frames type");
    if (H5Tinsert(type.get(), "frame", HOFFSET(BadFrameRecord, frame), H5T_NATIVE_INT64) < 0 ||
        H5Tinsert(type.get(), "code", HOFFSET(BadFrameRecord, code), H5T_NATIVE_INT32) < 0 ||
        H5Tinsert(type.get(), "code_name", HOFFSET(BadFrameRecord, code_name), text.get()) < 0 ||
        H5Tinsert(type.get(), "message", HOFFSET(BadFrameRecord, message), text.get()) < 0 || (packed && H5Tpack(type.get()) < 0))
        throw h5::failure("bad_frames: cannot make the compound type");
    return type;
}

// Elements in a chunk of row, col or intensity. ImageD11's segmenter stores 10,000; bitshuffle
// encodes 8 kB blocks, so larger chunks do not compress better, and the partial last chunk,
// written again after every batch, costs less when small (measurements in doc/output-file.md).
constexpr std::size_t kListChunk = 1 << 14;
// The writer's encoding threads at most: with --peaks a batch's lists grow by a labels list (4
// bytes a pixel), and 4 threads left the writer the stage the others waited for (H200 host, dense
// scan: busy 0.19 s of a 0.25 s loop; 0.12 of 0.19 with 8, the job with peaks 0.77 -> 0.87 x the
// one without, in one run; more were not measured).
constexpr unsigned kMostEncoderThreads = 8;

// Bitshuffle's values for the dataset's creation, as its own set_local records them (see
// bitshuffle_codec): with the plugin found, it puts (version major, minor, element size) in
// front of what it is given, so it gets only the block size (0: its default) and the codec
// (2: lz4); without it, the values are written whole, with the version Debian's bitshuffle
// records (0.3).
void set_bitshuffle_lz4(hid_t plist, std::size_t elem_size, const std::string& what) {
    const unsigned whole[5] = {0, 3, static_cast<unsigned>(elem_size), 0, 2};
    const bool plugin = H5Zfilter_avail(kBitshuffleFilter) > 0;
    if (H5Pset_filter(plist, kBitshuffleFilter, H5Z_FLAG_OPTIONAL, plugin ? 2 : 5, plugin ? whole + 3 : whole) < 0)
        throw h5::failure(what + ": cannot set the bitshuffle filter");
}

}  // namespace

// A chunk of a list to encode and write (bitshuffle): its elements, as given or owned.
struct ListChunk {
    ListSeries* list = nullptr;
    std::size_t index = 0;
    const std::uint8_t* data = nullptr;
    std::vector<std::uint8_t> owned;  // data, when the chunk was gathered from several batches
    std::vector<std::uint8_t> coded;
};

// One of the lists (row, col, intensity): an extendable 1-D dataset, appended batch by batch.
// With bitshuffle, the whole chunks are encoded (by the caller, on several threads at once)
// and written as they are; the last, partial, chunk stays in memory between flushes and is
// written by write_tail(): at a flush, padded with zeros and unencoded (filter mask 1: the
// filter skipped, which every reader of HDF5 honours), so the flushed file holds every element
// appended as of its flush; encoded when its group is closed.
class ListSeries {
public:
    ListSeries(hid_t group, const char* name, hid_t type, std::size_t elem_size, ListCompression compression,
               const std::string& what)
        : elem_(elem_size), type_(type), compression_(compression), what_(what + "/" + name) {
        h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "properties");
        if (compression == ListCompression::bitshuffle_lz4) {
            set_bitshuffle_lz4(plist.get(), elem_size, what_);
        } else if (compression == ListCompression::deflate) {
            if (H5Pset_shuffle(plist.get()) < 0 || H5Pset_deflate(plist.get(), 1) < 0)
                throw h5::failure(what_ + ": cannot set shuffle and deflate");
        }
        dataset_ = series(group, name, type, 0, kListChunk, plist.get());
        // what a reader will find: a plugin's set_local may have changed what was given
        if (compression == ListCompression::bitshuffle_lz4 && bitshuffle_codec(dataset_.get(), elem_size, what_) != Codec::lz4)
            throw Error(ErrorCode::io, what_ + ": the bitshuffle filter's values, as written, name another codec than lz4");
    }

    // Extends the dataset by `count` elements. Through HDF5's pipeline (deflate, none) they are
    // written here; with bitshuffle, the chunks they complete are added to `whole` (pointing
    // into `data`, which must live until they are written), the rest kept in memory for
    // write_tail().
    void append(const void* data, std::size_t count, std::vector<ListChunk>& whole) {
        if (count == 0) return;
        if (compression_ != ListCompression::bitshuffle_lz4) {
            append_rows(dataset_.get(), type_, data, count, what_.c_str());
            size_ += count;
            return;
        }
        const hsize_t grown = size_ + count;
        if (H5Dset_extent(dataset_.get(), &grown) < 0) throw h5::failure("cannot extend " + what_);
        const auto* bytes = static_cast<const std::uint8_t*>(data);
        std::size_t chunk = size_ / kListChunk;
        while (count) {
            const std::size_t take = std::min(count, kListChunk - tail_.size() / elem_);
            if (tail_.empty() && take == kListChunk) {
                whole.push_back({this, chunk++, bytes, {}, {}});
            } else {
                tail_.insert(tail_.end(), bytes, bytes + take * elem_);
                if (tail_.size() == kListChunk * elem_) {
                    whole.push_back({this, chunk++, nullptr, std::move(tail_), {}});
                    whole.back().data = whole.back().owned.data();
                    tail_.clear();
                    tail_written_ = 0;
                    tail_encoded_ = false;
                }
            }
            bytes += take * elem_;
            count -= take;
        }
        size_ = grown;
    }

    static void encode(ListChunk& c) { c.coded = encode_chunk(ByteView(c.data, kListChunk * c.list->elem_), c.list->elem_); }

    void write(const ListChunk& c) const {
        const hsize_t offset = c.index * kListChunk;
        if (H5Dwrite_chunk(dataset_.get(), H5P_DEFAULT, 0, &offset, c.coded.size(), c.coded.data()) < 0)
            throw h5::failure("cannot write " + what_ + " chunk " + std::to_string(c.index));
    }

    // The partial last chunk (bitshuffle), padded with zeros: unencoded at a flush while more may
    // come, encoded (last) when the group closes; not written when the file's copy is current.
    // HDF5 moves a chunk rewritten in another size and never reuses the space it left once the
    // file is closed, so the unencoded copy is written at a flush only (it keeps its size, and
    // its place, from one flush to the next) and after the batch's other writes (it lies at the
    // file's end, where the space it leaves when encoded is given back): written after every
    // batch, with nnz's chunk behind it, it left about three quarters of a small scan's file
    // unused.
    void write_tail(bool last) {
        if (tail_.empty() || (tail_written_ == tail_.size() && (tail_encoded_ || !last))) return;
        ListChunk c{this, size_ / kListChunk, nullptr, tail_, {}};
        c.owned.resize(kListChunk * elem_, 0);
        c.data = c.owned.data();
        if (last) {
            encode(c);
            write(c);
        } else {
            const hsize_t offset = c.index * kListChunk;
            if (H5Dwrite_chunk(dataset_.get(), H5P_DEFAULT, 1, &offset, c.owned.size(), c.owned.data()) < 0)
                throw h5::failure("cannot write " + what_ + " chunk " + std::to_string(c.index));
        }
        tail_written_ = tail_.size();
        tail_encoded_ = last;
    }

private:
    std::size_t elem_;
    hid_t type_;
    ListCompression compression_;
    std::string what_;
    h5::Handle dataset_;
    std::size_t size_ = 0;            // elements appended
    std::vector<std::uint8_t> tail_;  // bitshuffle: the elements of the last, partial chunk
    std::size_t tail_written_ = 0;    // bytes of tail_ in the file's copy of that chunk
    bool tail_encoded_ = false;       // that copy is encoded
};

namespace {


}  // namespace

namespace {

// Marks the file damaged when a write leaves by an exception: what HDF5 has of it then is not
// known to be whole, so it is not kept as an incomplete result (a full disk, an I/O error).
class FailedWrite {
public:
    explicit FailedWrite(bool& damaged) : damaged_(damaged), exceptions_(std::uncaught_exceptions()) {}
    ~FailedWrite() {
        if (std::uncaught_exceptions() > exceptions_) damaged_ = true;
    }
    FailedWrite(const FailedWrite&) = delete;
    FailedWrite& operator=(const FailedWrite&) = delete;

private:
    bool& damaged_;
    int exceptions_;
};

}  // namespace

SparseOutput::SparseOutput(const std::string& path, const OutputInfo& info)
    : path_(path),
      where_(output_target(path, info.overwrite)),
      info_(info),
      temporary_(where_),
      file_(h5::create_file(temporary_.path())) {
    // A throw from here on closes file_ and then removes the temporary (both are built).
    if (info.ni > 65536 || info.nj > 65536)
        throw Error(ErrorCode::bad_argument, path + ": frames wider than 65536 pixels do not fit uint16 row/col");
    encoder_threads_ = info.encoder_threads ? info.encoder_threads : std::min(kMostEncoderThreads, std::max(1u, std::thread::hardware_concurrency()));
    const hid_t root = file_.get();
    attribute(root, "command_line", info.command_line);
    attribute(root, "input_file", info.input_file);
    attribute(root, "writer", std::string("bslz4 sparse"));
}

SparseOutput::~SparseOutput() {
    close_file();
    temporary_.remove();
}

bool SparseOutput::close_file() {
    lists_.clear();
    datasets_.clear();
    peak_sets_.clear();
    bad_frames_ = h5::Handle();
    group_ = h5::Handle();
    if (file_.get() < 0) return true;
    const bool flushed = H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) >= 0;
    return file_.close() && flushed;
}

void SparseOutput::finish() {
    std::string reason;
    if (!close_file()) reason = h5::failure("").what();
    if (!reason.empty() || file_.get() >= 0) {
        temporary_.remove();  // a file HDF5 could not write out is not a result: the space goes back
        throw Error(ErrorCode::io, path_ + ": cannot write the output file" + reason +
                                       " (disk full or quota exceeded?); " +
                                       (where_.exists ? "it is left unchanged" : "it is not written"));
    }
    try {
        temporary_.move_to(where_.target);
    } catch (const Error& e) {
        throw Error(e.code(), path_ + ": " + e.what());
    }
}

std::string SparseOutput::keep_incomplete() noexcept {
    try {
        if (group_open_ && !damaged_) close_group(false);
        if (!close_file() || !wrote_frames_ || damaged_) {
            H5Eclear2(H5E_DEFAULT);
            temporary_.remove();
            return "";
        }
        const std::string kept = incomplete_name(where_.target);
        temporary_.move_to(kept);
        return kept;
    } catch (...) {
        H5Eclear2(H5E_DEFAULT);
        close_file();
        temporary_.remove();
        return "";
    }
}

void SparseOutput::begin_group(const std::string& dataset_path, std::size_t frames) {
    const FailedWrite failed(damaged_);
    const bool one_group = !info_.per_file && !info_.scan_path.empty();
    if (one_group && group_.get() >= 0) {
        group_open_ = true;
        sources_.push_back(dataset_path);
        attribute(group_.get(), "sources", sources_);
        return;
    }
    if (one_group)
        start_group(info_.scan_path, dataset_path, info_.scan_frames);
    else
        start_group(dataset_path, dataset_path, frames);
}

void SparseOutput::start_group(const std::string& group_path, const std::string& source, std::size_t frames) {
    lists_.clear();
    datasets_.clear();
    bad_frames_ = h5::Handle();
    h5::Handle links(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "link properties");
    H5Pset_create_intermediate_group(links.get(), 1);
    group_ = h5::Handle(H5Gcreate2(file_.get(), group_path.c_str(), links.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                        path_ + ": cannot create group " + group_path);
    const hid_t g = group_.get();
    // ImageD11's (sparseframe.from_hdf_group reads itype as the row and column type)
    attribute(g, "itype", std::string("uint16"));
    attribute(g, "shape0", static_cast<std::int64_t>(info_.ni));
    attribute(g, "shape1", static_cast<std::int64_t>(info_.nj));
    // ours
    sources_.assign(1, source);
    attribute(g, "sources", sources_);
    attribute(g, "cut", info_.cut);
    attribute(g, "mask_source", info_.mask_source);
    attribute(g, "command_line", info_.command_line);
    attribute(g, "frames_expected", static_cast<std::int64_t>(frames));
    const std::string what = path_ + ":" + group_path;
    lists_.push_back(std::make_unique<ListSeries>(g, "row", H5T_NATIVE_UINT16, 2, info_.compression, what));
    lists_.push_back(std::make_unique<ListSeries>(g, "col", H5T_NATIVE_UINT16, 2, info_.compression, what));
    lists_.push_back(std::make_unique<ListSeries>(g, "intensity", native_type(info_.type), pixel_size(info_.type), info_.compression, what));
    datasets_.push_back(series(g, "nnz", H5T_NATIVE_UINT32, 0, 1024));
    if (info_.bins) {
        // A matrix file's 2D bins are azimuth-major: rows of (npt_azim, npt_rad), as pyFAI's.
        const PowderAxes& axes = info_.axes;
        const std::vector<hsize_t> row = axes.present() && axes.npt_azim > 1
                                             ? std::vector<hsize_t>{axes.npt_azim, axes.npt_rad}
                                             : std::vector<hsize_t>{info_.bins};
        datasets_.push_back(series(g, "powder", acc_type(info_.acc), row, 16));
        attribute(datasets_.back().get(), "acc", std::string(accumulator_name(info_.acc)));
        attribute(datasets_.back().get(), "powder_scale", info_.powder_scale);
        if (axes.present()) {
            datasets_.push_back(series(g, "powder_intensity", H5T_IEEE_F64LE, row, 16));
            attribute(datasets_.back().get(), "empty", axes.empty);
            write_doubles(g, "powder_normalisation", row, info_.normalisation);
            attribute(write_doubles(g, "powder_radial", {axes.npt_rad}, axes.radial).get(), "units", axes.radial_unit);
            if (axes.npt_azim > 1)
                attribute(write_doubles(g, "powder_azimuthal", {axes.npt_azim}, axes.azimuthal).get(), "units",
                          axes.azimuthal_unit);
        }
    }
    peak_sets_.clear();
    if (!info_.peaks_algorithm.empty()) {
        lists_.push_back(std::make_unique<ListSeries>(g, "labels", H5T_NATIVE_INT32, 4, info_.compression, what));
        peak_sets_.push_back(series(g, "nlabels", H5T_NATIVE_UINT32, 0, 1024));
        peak_sets_.push_back(series(g, "peak_props", H5T_NATIVE_INT64, 5, 1024));
        peak_sets_.push_back(series(g, "peak_pairs", H5T_NATIVE_INT64, 5, 1024));
        attribute(g, "peaks_algorithm", info_.peaks_algorithm);
        if (info_.peaks_wtmax) attribute(g, "peaks_wtmax", *info_.peaks_wtmax);
    }
    bad_frames_ = series(g, "bad_frames", bad_frame_type(true).get(), 0, 64);
    frames_done_ = pixels_done_ = 0;
    frames_expected_ = frames;
    stopped_ = false;
    group_open_ = true;
    write_attributes(g, false);
}

// pyFAI's intensity of `count` powder rows: sums / normalisation, `empty` where the
// normalisation is 0 (acc i64 sums divided by powder_scale first).
std::vector<double> SparseOutput::powder_intensity(const std::vector<std::uint8_t>& powder, std::size_t count) const {
    const std::size_t bins = info_.bins;
    std::vector<double> out(count * bins);
    const Powder p{count, bins, info_.acc, powder.data(), info_.powder_scale};
    for (std::size_t f = 0; f < count; ++f)
        for (std::size_t b = 0; b < bins; ++b) {
            const double n = info_.normalisation[b];
            out[f * bins + b] = n != 0 ? p.value(f, b) / n : info_.axes.empty;
        }
    return out;
}

void SparseOutput::append(const OutputRows& rows) {
    const FailedWrite failed(damaged_);
    const std::size_t total = rows.pixels(), count = rows.frames();
    if (rows.col.size() != total || rows.intensity.size() != total * pixel_size(info_.type))
        throw Error(ErrorCode::bad_argument, path_ + ": a batch's row, col and intensity differ in length");
    std::vector<ListChunk> whole;  // bitshuffle: the chunks this batch completes
    lists_[0]->append(rows.row.data(), total, whole);
    lists_[1]->append(rows.col.data(), total, whole);
    lists_[2]->append(rows.intensity.data(), total, whole);
    if (!peak_sets_.empty()) {
        if (rows.labels.size() != total || rows.nlabels.size() != count || rows.peak_props.size() % 5 || rows.peak_pairs.size() % 5)
            throw Error(ErrorCode::bad_argument, path_ + ": a batch came without its peaks");
        lists_[3]->append(rows.labels.data(), total, whole);
    }
    // a thread started for fewer chunks than this costs more than it saves (sparse frames)
    constexpr std::size_t kChunksPerThread = 4;
    const auto threads = static_cast<unsigned>(std::min<std::size_t>(encoder_threads_, whole.size() / kChunksPerThread));
    run_on_threads(whole.size(), std::max(1u, threads), [&](std::size_t k) { ListSeries::encode(whole[k]); });
    for (const ListChunk& c : whole) c.list->write(c);
    append_rows(datasets_[0].get(), H5T_NATIVE_UINT32, rows.nnz.data(), count, "nnz");
    if (!peak_sets_.empty()) {
        // The batch's frame numbers become the group's.
        const auto offset = static_cast<std::int64_t>(frames_done_);
        std::vector<std::int64_t> props = rows.peak_props, pairs = rows.peak_pairs;
        for (std::size_t k = 4; k < props.size(); k += 5) props[k] += offset;
        for (std::size_t k = 0; k < pairs.size(); k += 5) {
            pairs[k] += offset;
            pairs[k + 1] += offset;
        }
        append_rows(peak_sets_[0].get(), H5T_NATIVE_UINT32, rows.nlabels.data(), count, "nlabels");
        append_rows(peak_sets_[1].get(), H5T_NATIVE_INT64, props.data(), props.size() / 5, "peak_props");
        append_rows(peak_sets_[2].get(), H5T_NATIVE_INT64, pairs.data(), pairs.size() / 5, "peak_pairs");
    }
    if (info_.bins) {
        if (rows.powder.size() != count * info_.bins * accumulator_size(info_.acc))
            throw Error(ErrorCode::bad_argument,
                        path_ + ": a batch of " + std::to_string(count) + " frames came without its powders");
        append_rows(datasets_[1].get(), acc_type(info_.acc), rows.powder.data(), count, "powder");
        if (info_.axes.present()) {
            const std::vector<double> intensity = powder_intensity(rows.powder, count);
            append_rows(datasets_[2].get(), H5T_NATIVE_DOUBLE, intensity.data(), count, "powder_intensity");
        }
    }
    if (!rows.bad.empty()) {
        std::vector<BadFrameRecord> records;
        for (const FrameError& e : rows.bad)
            records.push_back({static_cast<std::int64_t>(e.frame), static_cast<std::int32_t>(e.code), error_code_name(e.code),
                               e.message.c_str()});
        append_rows(bad_frames_.get(), bad_frame_type(false).get(), records.data(), records.size(), "bad_frames");
    }
    frames_done_ += count;
    pixels_done_ += total;
    wrote_frames_ = wrote_frames_ || count > 0;
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - flushed_at_).count() < info_.flush_seconds) return;
    // nnz's, powder's and bad_frames' chunks wait in HDF5's cache, which places a new one in the
    // file when it flushes it: placed first, they leave the lists' unencoded last chunks at the
    // file's end (see write_tail)
    for (const h5::Handle& d : datasets_) H5Dflush(d.get());
    for (const h5::Handle& d : peak_sets_) H5Dflush(d.get());
    H5Dflush(bad_frames_.get());
    for (const auto& list : lists_) list->write_tail(false);
    write_attributes(group_.get(), false);
    H5Fflush(file_.get(), H5F_SCOPE_GLOBAL);
    flushed_at_ = now;
}

void SparseOutput::close_group(bool complete) {
    const FailedWrite failed(damaged_);
    if (group_.get() < 0 || !group_open_) return;
    group_open_ = false;
    for (const auto& list : lists_) list->write_tail(true);
    stopped_ = stopped_ || !complete;
    // one group for the scan: complete once its last dataset is done
    write_attributes(group_.get(), !stopped_ && frames_done_ == frames_expected_);
    H5Fflush(file_.get(), H5F_SCOPE_GLOBAL);
}

void SparseOutput::write_attributes(hid_t group, bool complete) {
    attribute(group, "nframes", static_cast<std::int64_t>(frames_done_));
    attribute(group, "npx", static_cast<std::int64_t>(pixels_done_));
    attribute(group, "complete", static_cast<std::int64_t>(complete ? 1 : 0));
}

}  // namespace bslz4::tool
