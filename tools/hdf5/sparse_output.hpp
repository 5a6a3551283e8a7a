// The output of `bslz4 sparse`, in the layout of ImageD11's segmenter
// (ImageD11.sinograms.lima_segmenter.segment_lima), so that ImageD11's readers open
// hin[limapath] in our file as in theirs: a group at the input dataset's own path (e.g.
// /entry/data/data, /entry_0000/ESRF-ID11/eiger/data) with the datasets row, col (uint16),
// intensity (the pixel type) and nnz (uint32, per frame), and the attributes itype (the INDEX
// type, "uint16"), nframes, shape0, shape1 and npx (pixels in all); strings are variable-length
// UTF-8, as h5py writes them. Beside those, ours: powder (frames x bins, with a matrix),
// bad_frames, and the attributes cut, mask_source, command_line, source(s), frames_expected and
// complete.
//
// Every dataset is chunked and extendable and is appended batch by batch, but for the powders:
// made at the group's full length when it starts, their rows written in place by the decoders
// (group_powders.hpp), and cut to the frames done when the group stops. A stopped run (Ctrl-C)
// closes the file, readable, with the frames done (nframes and npx count them; complete = 0).
// The file is also flushed, its counts written, after a batch once OutputInfo::flush_seconds have
// passed since the last flush: a process killed outright leaves its temporary file (below) as it
// was then (its powders at full length, rows past nframes zero or written ahead). Not after
// every batch: at the GPU's rate that is 600 flushes a second (H200 host, 10,000 sparse frames:
// the writer busy 0.71 s flushing every batch, 0.17 s every 0.5 s).
//
// The lists are compressed (see list_compression.hpp): readable by h5py with hdf5plugin
// (bitshuffle, the default) or by any HDF5 (deflate).
//
// Frames that could not be decoded (bslz4 sparse --on-error skip) are written with nnz 0 and a
// zero powder row, and listed in the group's bad_frames, a compound dataset of one row each:
// frame (int64, the frame's number in the input dataset, as messages name it), code (int32, the
// bslz4::ErrorCode), code_name (its name, "truncated_chunk" ...) and message (both
// variable-length UTF-8 strings). Every group has one, empty when no frame was bad; its rows are
// appended with their batch and flushed with it.
//
// The file is written under a temporary name beside the output (output_file.hpp) and renamed
// over it by finish(): an existing file of that name (perhaps open in another process) is never
// truncated, and is replaced only with OutputInfo::overwrite. A run that stops or fails calls
// keep_incomplete() instead: the file, readable, goes to OUTPUT.incomplete and the output is
// left as it was. Destroyed without either, the temporary is removed.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bslz4/error.hpp"
#include "bslz4/frame_status.hpp"
#include "bslz4/pixel_type.hpp"
#include "bslz4/powder.hpp"
#include "bslz4/sparse_result.hpp"
#include "hdf5_file.hpp"
#include "group_powders.hpp"
#include "list_compression.hpp"
#include "matrix_file.hpp"
#include "sparse/output_file.hpp"
#include "sparse/output_rows.hpp"

namespace bslz4::detail {
class ThreadPool;
}

namespace bslz4::tool {

struct OutputInfo {
    std::string command_line, input_file, mask_source;
    double cut = 0;
    std::size_t ni = 0, nj = 0;
    PixelType type = PixelType::u16;
    std::size_t bins = 0;  // 0: no matrix
    Accumulator acc = Accumulator::f64;
    double powder_scale = 1;
    // A matrix file's axes (bslz4-matrix's): then powder_radial, powder_azimuthal,
    // powder_normalisation and powder_intensity (pyFAI's intensity) beside powder, and 2D
    // powders stored (frames, npt_azim, npt_rad). normalisation: each bin's, for the job's mask.
    PowderAxes axes;  // its correction dropped once normalisation is made
    std::vector<double> normalisation;
    ListCompression compression = ListCompression::bitshuffle_lz4;
    unsigned encoder_threads = 0;  // bitshuffle's chunks encoded at once; 0: as many as the machine has cores, at most 12
    // The file is flushed (its counts written) after a batch once this long has passed since the
    // last flush; 0: after every batch.
    double flush_seconds = 0.5;
    // The powders are written through a mapping of the file where it can reserve their space;
    // false: by pwrite, as on a file system that cannot (tests take both ways).
    bool map_powders = true;
    // An existing output may be replaced (bslz4 sparse --overwrite); else it is refused.
    bool overwrite = false;
    // One group for the whole scan at scan_path, its input datasets' frames in order (an Eiger
    // master's data_000001, data_000002 ... in one group at /entry/data/data), holding
    // scan_frames frames when complete; or (per_file, or scan_path empty) a group for each input
    // dataset at that dataset's own path.
    bool per_file = false;
    std::string scan_path;
    std::size_t scan_frames = 0;
    // bslz4 sparse --peaks: "lmlabel" or "cplabel" ("" none), and the weights' clip. Each group
    // then has labels (int32, a pixel's peak in its frame, 1..; 0 none), nlabels (uint32, per
    // frame), peak_props (int64, a row a peak: npixels, sum, sum row x w, sum col x w, frame) and
    // peak_pairs (int64, a row an overlap of consecutive frames: frame a, frame b, label a,
    // label b, shared pixels), frames numbered in the group; attributes peaks_algorithm and
    // peaks_wtmax. (ImageD11's pk_props is peak_props transposed, its frames offset by the row.)
    std::string peaks_algorithm;
    std::optional<double> peaks_wtmax;
};

class ListSeries;

class SparseOutput {
public:
    // Refuses an existing `path` unless info.overwrite (output_file.hpp's output_target).
    SparseOutput(const std::string& path, const OutputInfo& info);
    // Removes the temporary unless finish() or keep_incomplete() moved it.
    ~SparseOutput();
    SparseOutput(const SparseOutput&) = delete;
    SparseOutput& operator=(const SparseOutput&) = delete;
    // The frames of input dataset `dataset_path` (`frames` of them) come next: they start a group
    // at that path (per file), or go on in the scan's group (started by the first dataset).
    void begin_group(const std::string& dataset_path, std::size_t frames);
    // Appends a batch's frames (and their powders, with a matrix, and its bad frames' rows of
    // bad_frames); flushes when info.flush_seconds have passed since the last flush.
    void append(const OutputRows& rows);
    // The dataset begun last is done (complete) or stopped: records it (attribute complete: 1
    // once every frame of the group is written) and flushes.
    void close_group(bool complete);
    // The run is done: the file is flushed, closed and renamed over `path`. A failure (a full
    // disk, say) throws io naming the output and the reason; the temporary is then removed and
    // `path` is left as it was.
    void finish();
    // The run stopped or failed: what was written is closed, readable (its groups' complete = 0),
    // and moved to incomplete_name(target), replacing an earlier incomplete file there; returns
    // that name, or "" when nothing could be kept (no frame written, a write that failed, or a
    // file that cannot be flushed: then it is removed). Never throws; `path` is left as it was.
    std::string keep_incomplete() noexcept;
    const std::string& target() const { return where_.target; }

    // With a matrix, the powders of the group begun last, which the decoders write (any thread,
    // no lock) before their batches are appended; null without. Valid until the next group
    // starts or the file closes: read it once the writer has begun the group.
    const GroupPowders* powders() const { return powders_.get(); }
    // The frames appended to the group begun last: the row of the next frame in its powders.
    std::size_t frames_in_group() const { return frames_done_; }

private:
    // Closes every HDF5 object and the file; false when HDF5 could not write the file out.
    bool close_file();
    void start_group(const std::string& group_path, const std::string& source, std::size_t frames);
    void write_attributes(hid_t group, bool complete);
    std::string path_;    // as given, for messages
    OutputTarget where_;  // where the file goes: path_, or what it links to
    OutputInfo info_;
    TemporaryFile temporary_;  // before file_: closed after the file is
    h5::Handle file_;
    RowsFile writes_;  // with a matrix: the file again, for the powders (row_places.hpp)
    h5::Handle group_;
    std::vector<std::unique_ptr<ListSeries>> lists_;  // row, col, intensity
    std::vector<h5::Handle> datasets_;                // nnz
    std::unique_ptr<GroupPowders> powders_;            // with a matrix
    std::vector<h5::Handle> peak_sets_;               // nlabels, peak_props, peak_pairs (with peaks)
    h5::Handle bad_frames_;
    std::vector<std::string> sources_;  // the input datasets of the group
    std::size_t frames_done_ = 0, pixels_done_ = 0, frames_expected_ = 0;
    std::chrono::steady_clock::time_point flushed_at_ = std::chrono::steady_clock::now();
    bool stopped_ = false;
    bool group_open_ = false;   // begun, not yet closed
    bool wrote_frames_ = false;  // of any group: worth keeping when the run stops
    bool damaged_ = false;       // a write failed: the file is not kept
    // bitshuffle: the threads that encode a batch's whole chunks, kept from batch to batch.
    std::unique_ptr<detail::ThreadPool> encoders_;
};

}  // namespace bslz4::tool
