// The work of `bslz4 sparse` (and of the demo), apart from its command line: open the scan,
// choose the mask, the matrix and the decoder, then read, decode and write batch by batch.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hdf5/list_compression.hpp"
#include "peaks/scan_peaks.hpp"
#include "bslz4/frame_status.hpp"
#include "bslz4/powder.hpp"

namespace bslz4::tool {

struct MatrixFile;  // hdf5/matrix_file.hpp

struct SparseJob {
    enum class Where { any, cpu, gpu };
    std::string input, dataset, output;
    double cut = 0;
    // The mask, in one of two opposite conventions: mask_spec (--mask) as NeXus's pixel_mask
    // (nonzero = do not use the pixel), use_mask_spec (--use-mask) as the library's (nonzero =
    // use it). Neither: the file's NeXus pixel_mask when it has one; no_mask: every pixel.
    std::string mask_spec;      // FILE:PATH
    std::string use_mask_spec;  // FILE:PATH
    bool no_mask = false;
    std::string matrix_spec;  // FILE:GROUP
    // matrix_spec's file as read once for a campaign's jobs (run_campaign); null: the job reads it.
    std::shared_ptr<const MatrixFile> matrix_read;
    Accumulator acc = Accumulator::f64;
    std::string frames_spec;  // A:B, as frame_selection.hpp reads it
    Where where = Where::any;
    // The GPUs a scan's frames are spread over, batch by batch (output still in frame order);
    // empty: GPU 0. Naming any with no GPU present is an error, not a run on the CPU.
    std::vector<int> devices;
    bool quiet = false;  // no progress
    // Called after each batch is handed to the writer, with the frames done and the frames of the
    // job, on the thread that called run_sparse_job (Python's progress callback). Empty: none.
    std::function<void(std::size_t done, std::size_t total)> on_batch;
    // An existing output may be replaced (--overwrite); else the run is refused before it reads.
    bool overwrite = false;
    // A campaign's --resume: an input whose output exists and says it is finished (written by
    // bslz4 sparse from that input with this cut, every group complete) is not run again; any
    // other file at an output's name is a failed input, left as it is (finished_output.hpp).
    bool resume = false;
    // Where the job's notices go as it runs (stale temporaries removed, a mask that masks most of
    // the frame); null: nowhere.
    std::FILE* notices = stderr;
    bool json = false;   // summaries as JSON lines (cmd_sparse, run_campaign)
    std::string command_line;
    // One output group per data file of an Eiger master instead of one for the scan.
    bool per_file = false;
    // How the output stores row, col and intensity (--compression).
    ListCompression compression = ListCompression::bitshuffle_lz4;
    // A frame that cannot be decoded: stop the scan (throw_first, the default: the error names
    // the file, the dataset and the frame), or write it with nnz 0 and a zero powder, list it in
    // the group's bad_frames and go on (report: --on-error skip).
    OnError on_error = OnError::throw_first;
    // Top pixels (--howmany N [--thresholds a,b,c]): as Chunk2Sparse::set_top_pixels. The nnz
    // written is the count kept; the GPU and the CPU write the same lists.
    std::optional<std::size_t> howmany;
    std::optional<std::vector<double>> thresholds;
    // ImageD11's pixels_in_spot (--pixels-in-spot K): a frame's listed pixels in 8-connected
    // groups of fewer than K are dropped, after top pixels, on the host (connected_pixels.hpp);
    // 0 or 1 keeps every pixel. nnz and the summary count what is kept.
    std::size_t pixels_in_spot = 0;
    // ImageD11's peaks (--peaks lmlabel|cplabel [--wtmax W]): each frame's list labelled after
    // pixels_in_spot, on the host (list_peaks.hpp), written beside the lists (OutputInfo's
    // peaks_algorithm). peak_threads: the threads labelling a batch (0: the machine's cores).
    std::optional<peaks::PeakOptions> peaks;
    unsigned peak_threads = 0;
    // Positional reads of chunks at once (1 to 16); 0: 2 on the CPU, 2 + 2 a GPU on GPUs (the
    // GPUs decode faster than two threads read a page-cached file).
    unsigned reader_threads = 0;
    // On GPUs, the ring's slots in pinned memory (uploaded by DMA straight from there: the
    // default), or in ordinary memory (each GPU object copies a batch into pinned staging of its
    // own). Pinning costs a fixed time per byte, 6.8 GB/s on the H200 host since pinned memory is
    // made on huge pages (1.6 to 2.2 GB/s before, when the ordinary ring was the quicker on a
    // 1,000-frame scan); the bench measures both.
    bool pinned_ring = true;
    // Decoder objects on each GPU, a thread each: while one copies its batch into staging and
    // lists on the host, another's kernels run.
    unsigned objects_per_gpu = 2;
    // Datasets longer than this are read through HDF5 where it cannot list chunks in one pass
    // (see hdf5/chunk_index.hpp): indexing them chunk by chunk would cost n^2 / 2 steps. 0: every
    // dataset through HDF5, whatever it can do (the tests of that path).
    std::size_t per_chunk_index_limit = 8192;
};

// Where a job's time went, in seconds, for the bench: the costs paid once a call, and the
// rate of the loop once it runs.
struct JobTimes {
    double open = 0;          // the scan opened, its mask read
    double index = 0;         // every dataset's chunk index read
    double matrix = 0;        // the matrix read and checked (with --matrix), while the first batches are read
    double decoders = 0;      // the decoder objects made (GPU: context, module, buffers), on
                              // threads of their own while the index is read
    double decoders_wait = 0; // of that, what the job waited for after the index (with the
                              // decoders' peak labellers, --peaks on GPUs, made beside them)
    double slot_memory = 0;   // the ring's slots made (pinned: see pinned_ring), by the reader threads,
                              // summed over them (overlapping the first reads and decodes)
    double first_batch = 0;   // from the readers' start to the first batch's rows handed to the writer
    double loop = 0;          // from the readers' start to the last batch's rows handed on
    double finish = 0;        // the writer's last writes and the file's close
    double release = 0;       // after the close, the decoders, their labellers and the ring given back
                              // (GPU buffers freed, pinned memory unpinned): still the caller's wait
    std::size_t first_frames = 0;  // frames of the first batch of each dataset (not in the steady rate)
    double steady = 0;        // loop - first_batch (summed over datasets)
    // Where the loop's time went, each stage's busy seconds summed over its threads: the stage
    // whose busy time nears loop x its threads is the one the others wait for.
    double reading = 0;   // positional reads into the ring (SparseSummary::reader_threads)
    double decoding = 0;  // the decoders' calls, and their rows made for the writer (SparseSummary::decoder_threads)
    double handing = 0;   // the collector thread: spots filter, peaks, then handing rows to the writer (waits when it is full)
    double peaks = 0;     // labelling the batches' peaks: on the decoders' threads (summed over them, beside
                          // decoding) and the overlaps on the collector's; all on the collector's with
                          // pixels_in_spot (its wall time, on peak_threads threads)
    double writing = 0;   // the writer thread's HDF5 appends
};

struct SparseSummary {
    std::size_t frames = 0, pixels = 0;  // pixels: those written
    std::size_t pixels_not_in_spots = 0;  // listed, then dropped by job.pixels_in_spot
    std::size_t peaks = 0, peak_pairs = 0;  // with job.peaks: 2D peaks, and overlaps of consecutive frames
    double decoded_bytes = 0, seconds = 0;  // seconds: from the readers' start to the file's close
    bool interrupted = false;
    // Stopped (interrupted): where the frames done were kept, the output left as it was
    // (SparseOutput::keep_incomplete); "" when nothing was written.
    std::string incomplete_output;
    std::string decoder;  // "GPU 0 (NVIDIA H200)", "2 GPUs (0, 1: NVIDIA H200)" or "CPU (16 threads)"
    std::vector<std::size_t> frames_per_gpu;  // in the order of job.devices (empty on the CPU)
    // The mask used, as the output's attribute names it; unmasked: every pixel was used, because
    // the file has no pixel_mask (a LImA file, say) or --no-mask said so.
    std::string mask_source;
    bool unmasked = false;
    std::size_t masked_pixels = 0, frame_pixels = 0;  // of the mask used; over half masked is warned of
    std::vector<std::string> mask_looked_for;  // unmasked for want of a pixel_mask: the paths looked at
    unsigned reader_threads = 0;
    unsigned decoder_threads = 0;  // one a decoder object
    unsigned ring_slots = 0;       // batches read and not yet given back, at most
    std::size_t frames_through_hdf5 = 0;  // read with H5Dread_chunk under HDF5's lock, not by position
    JobTimes times;
    // Frames written as bad (job.on_error = report), and the first few of them.
    std::size_t bad_frames = 0;
    struct BadFrame {
        std::string dataset;  // the input dataset's path
        FrameError error;     // the frame numbered in that dataset; the message names file, dataset and frame
    };
    std::vector<BadFrame> first_bad;
    static constexpr std::size_t kFirstBadKept = 5;
    // The loop's rate once running: frames after each dataset's first batch / times.steady (0
    // when there was one batch only).
    double steady_frames_per_s() const;
};

// Chunks are read by job.reader_threads threads into a bounded ring of buffers, decoded batch
// by batch (by each GPU in turn, on a thread each), written in frame order by a thread of their
// own. Stops after the batch in hand when `stop` becomes true (the file then
// holds what was done).
SparseSummary run_sparse_job(const SparseJob& job, const std::atomic<bool>& stop);

// The refusal of an existing job.output that is a file the job would read (the input, an Eiger
// master's data files, a VDS's source files, the mask or matrix file), naming both; "" when it
// is none of them, or the scan cannot be opened (the run says why). Opens the scan's metadata
// only; run_sparse_job refuses the same itself. For the command line, which says this before it
// says that an existing output needs --overwrite.
std::string output_over_files_read(const SparseJob& job);

}  // namespace bslz4::tool
