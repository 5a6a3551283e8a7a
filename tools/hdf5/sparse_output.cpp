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

#include "bslz4/encode.hpp"
#include "bslz4/error.hpp"
#include "bslz4/cpu_count.hpp"
#include "hdf5_writing.hpp"
#include "list_series.hpp"
#include "group_powders.hpp"
#include "scan_input.hpp"
#include "thread_pool.hpp"

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

// bad_frames' row in memory, and its type (the file's is the same, packed).
struct BadFrameRecord {
    std::int64_t frame;
    std::int32_t code;
    const char* code_name;
    const char* message;
};

h5::Handle bad_frame_type(bool packed) {
    const h5::Handle text = h5::text_type("bad_frames");
    h5::Handle type(H5Tcreate(H5T_COMPOUND, sizeof(BadFrameRecord)), H5Tclose, "bad_frames type");
    if (H5Tinsert(type.get(), "frame", HOFFSET(BadFrameRecord, frame), H5T_NATIVE_INT64) < 0 ||
        H5Tinsert(type.get(), "code", HOFFSET(BadFrameRecord, code), H5T_NATIVE_INT32) < 0 ||
        H5Tinsert(type.get(), "code_name", HOFFSET(BadFrameRecord, code_name), text.get()) < 0 ||
        H5Tinsert(type.get(), "message", HOFFSET(BadFrameRecord, message), text.get()) < 0 || (packed && H5Tpack(type.get()) < 0))
        throw h5::failure("bad_frames: cannot make the compound type");
    return type;
}

// The writer's encoding threads at most: with --peaks a batch's lists grow by a labels list (4
// bytes a pixel), and the encoding is most of the writer's time. On the H200 host (16 cores,
// dense scan, the same call): 8 threads started for each batch encoded a job's chunks in
// 0.05-0.07 s, 8 kept threads with the SSE2 shuffle 0.034-0.048 s, 12 kept threads 0.026-0.040 s;
// the job with peaks against the one without went from 0.81-0.88 to 0.91-0.94 x (medians of 3).
constexpr unsigned kMostEncoderThreads = 12;

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
      file_(h5::create_file(temporary_.path())),
      writes_(info.bins ? RowsFile(temporary_.path()) : RowsFile()) {
    // A throw from here on closes file_ and then removes the temporary (both are built).
    if (info.ni > 65536 || info.nj > 65536)
        throw Error(ErrorCode::bad_argument, path + ": frames wider than 65536 pixels do not fit uint16 row/col");
    if (info.compression == ListCompression::bitshuffle_lz4)
        encoders_ = std::make_unique<detail::ThreadPool>(
            info.encoder_threads ? info.encoder_threads : std::min(kMostEncoderThreads, usable_cpu_count()));
    const hid_t root = file_.get();
    h5::write_attribute(root, "command_line", info.command_line);
    h5::write_attribute(root, "input_file", info.input_file);
    h5::write_attribute(root, "writer", std::string("bslz4 sparse"));
}

SparseOutput::~SparseOutput() {
    close_file();
    temporary_.remove();
}

bool SparseOutput::close_file() {
    lists_.clear();
    bool cut = true;
    try {
        // a group left between two datasets of its scan (a run that failed there) is cut too
        if (powders_ && powders_->failed()) damaged_ = true;
        if (powders_ && !damaged_) powders_->shrink(frames_done_);
    } catch (...) {
        cut = false;
    }
    powders_.reset();
    datasets_.clear();
    peak_sets_.clear();
    bad_frames_ = h5::Handle();
    group_ = h5::Handle();
    if (file_.get() < 0) return true;
    const bool flushed = H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) >= 0;
    return file_.close() && flushed && cut;
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
        if (powders_ && powders_->failed()) damaged_ = true;  // a decoder's write of them failed
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
        h5::write_attribute(group_.get(), "sources", sources_);
        return;
    }
    if (one_group)
        start_group(info_.scan_path, dataset_path, info_.scan_frames);
    else
        start_group(dataset_path, dataset_path, frames);
}

void SparseOutput::start_group(const std::string& group_path, const std::string& source, std::size_t frames) {
    lists_.clear();
    powders_.reset();
    datasets_.clear();
    bad_frames_ = h5::Handle();
    h5::Handle links(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "link properties");
    H5Pset_create_intermediate_group(links.get(), 1);
    group_ = h5::Handle(H5Gcreate2(file_.get(), group_path.c_str(), links.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                        path_ + ": cannot create group " + group_path);
    const hid_t g = group_.get();
    // ImageD11's (sparseframe.from_hdf_group reads itype as the row and column type)
    h5::write_attribute(g, "itype", std::string("uint16"));
    h5::write_attribute(g, "shape0", static_cast<std::int64_t>(info_.ni));
    h5::write_attribute(g, "shape1", static_cast<std::int64_t>(info_.nj));
    // ours
    sources_.assign(1, source);
    h5::write_attribute(g, "sources", sources_);
    h5::write_attribute(g, "cut", info_.cut);
    h5::write_attribute(g, "mask_source", info_.mask_source);
    h5::write_attribute(g, "command_line", info_.command_line);
    h5::write_attribute(g, "frames_expected", static_cast<std::int64_t>(frames));
    const std::string what = path_ + ":" + group_path;
    lists_.push_back(std::make_unique<ListSeries>(g, "row", H5T_NATIVE_UINT16, 2, info_.compression, what));
    lists_.push_back(std::make_unique<ListSeries>(g, "col", H5T_NATIVE_UINT16, 2, info_.compression, what));
    lists_.push_back(std::make_unique<ListSeries>(g, "intensity", native_type(info_.type), pixel_size(info_.type), info_.compression, what));
    datasets_.push_back(h5::series(g, "nnz", H5T_NATIVE_UINT32, 0, 1024));
    if (info_.bins) powders_ = std::make_unique<GroupPowders>(file_.get(), writes_.fd(), g, info_, frames, what);
    peak_sets_.clear();
    if (!info_.peaks_algorithm.empty()) {
        lists_.push_back(std::make_unique<ListSeries>(g, "labels", H5T_NATIVE_INT32, 4, info_.compression, what));
        peak_sets_.push_back(h5::series(g, "nlabels", H5T_NATIVE_UINT32, 0, 1024));
        peak_sets_.push_back(h5::series(g, "peak_props", H5T_NATIVE_INT64, 5, 1024));
        peak_sets_.push_back(h5::series(g, "peak_pairs", H5T_NATIVE_INT64, 5, 1024));
        h5::write_attribute(g, "peaks_algorithm", info_.peaks_algorithm);
        if (info_.peaks_wtmax) h5::write_attribute(g, "peaks_wtmax", *info_.peaks_wtmax);
    }
    bad_frames_ = h5::series(g, "bad_frames", bad_frame_type(true).get(), 0, 64);
    frames_done_ = pixels_done_ = 0;
    frames_expected_ = frames;
    stopped_ = false;
    group_open_ = true;
    write_attributes(g, false);
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
    // a thread woken for fewer chunks than this costs more than it saves (sparse frames)
    constexpr std::size_t kChunksPerTask = 4;
    if (!whole.empty())
        encoders_->run((whole.size() + kChunksPerTask - 1) / kChunksPerTask, [&](std::size_t t, unsigned) {
            for (std::size_t k = t * kChunksPerTask; k < std::min(whole.size(), (t + 1) * kChunksPerTask); ++k) ListSeries::encode(whole[k]);
        });
    for (const ListChunk& c : whole) c.list->write(c);
    h5::append_rows(datasets_[0].get(), H5T_NATIVE_UINT32, rows.nnz.data(), count, "nnz");
    if (!peak_sets_.empty()) {
        // The batch's frame numbers become the group's.
        const auto offset = static_cast<std::int64_t>(frames_done_);
        std::vector<std::int64_t> props = rows.peak_props, pairs = rows.peak_pairs;
        for (std::size_t k = 4; k < props.size(); k += 5) props[k] += offset;
        for (std::size_t k = 0; k < pairs.size(); k += 5) {
            pairs[k] += offset;
            pairs[k + 1] += offset;
        }
        h5::append_rows(peak_sets_[0].get(), H5T_NATIVE_UINT32, rows.nlabels.data(), count, "nlabels");
        h5::append_rows(peak_sets_[1].get(), H5T_NATIVE_INT64, props.data(), props.size() / 5, "peak_props");
        h5::append_rows(peak_sets_[2].get(), H5T_NATIVE_INT64, pairs.data(), pairs.size() / 5, "peak_pairs");
    }
    if (!rows.bad.empty()) {
        std::vector<BadFrameRecord> records;
        for (const FrameError& e : rows.bad)
            records.push_back({static_cast<std::int64_t>(e.frame), static_cast<std::int32_t>(e.code), error_code_name(e.code),
                               e.message.c_str()});
        h5::append_rows(bad_frames_.get(), bad_frame_type(false).get(), records.data(), records.size(), "bad_frames");
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
    if (powders_ && stopped_) powders_->shrink(frames_done_);  // rows past the frames done were never appended
    // one group for the scan: complete once its last dataset is done
    write_attributes(group_.get(), !stopped_ && frames_done_ == frames_expected_);
    H5Fflush(file_.get(), H5F_SCOPE_GLOBAL);
}

void SparseOutput::write_attributes(hid_t group, bool complete) {
    h5::write_attribute(group, "nframes", static_cast<std::int64_t>(frames_done_));
    h5::write_attribute(group, "npx", static_cast<std::int64_t>(pixels_done_));
    h5::write_attribute(group, "complete", static_cast<std::int64_t>(complete ? 1 : 0));
}

}  // namespace bslz4::tool
