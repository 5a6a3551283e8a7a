#include "sparse/sparse_job.hpp"

#include <sys/stat.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <future>
#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/chunk2sparse_csc.hpp"
#include "bslz4/cpu_count.hpp"
#include "bslz4/error.hpp"
#include "sparse/batch_reader.hpp"
#include "sparse/connected_pixels.hpp"
#include "sparse/list_peaks.hpp"
#include "cli/device_list.hpp"
#include "cli/frame_selection.hpp"
#include "hdf5/chunk_index.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/mask_file.hpp"
#include "hdf5/matrix_file.hpp"
#include "hdf5/scan_input.hpp"
#include "hdf5/sparse_output.hpp"
#include "sparse/ordered_decoding.hpp"
#include "sparse/output_file.hpp"
#include "sparse/output_writer.hpp"
#include "cli/progress.hpp"

#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/cuda/host_memory.hpp"
#endif

namespace bslz4::tool {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

constexpr std::size_t kBatchFrames = 64;
constexpr std::size_t kWritesQueued = 4;

using Chunks = std::function<IntegratedBatch(ByteView base, const std::vector<std::uint64_t>& offsets,
                                             const std::vector<std::uint64_t>& lengths)>;
using DenseFrames = std::function<IntegratedBatch(const std::vector<ByteView>& frames)>;

IntegratedBatch integrated(SparseBatch b) { return IntegratedBatch{b, Powder{}}; }
IntegratedBatch integrated(IntegratedBatch b) { return b; }

// The object decoding the scan's chunks (from the ring's buffers), on the CPU or the GPU.
struct Decoder {
    std::string name;
    Chunks run;
    std::shared_ptr<void> keep;  // the object behind run
};

template <class Object>
Decoder chunk_decoder(std::string name, std::shared_ptr<Object> o, double cut) {
    return {std::move(name),
            [o, cut](ByteView base, const std::vector<std::uint64_t>& offsets, const std::vector<std::uint64_t>& lengths) {
                return integrated(o->from_buffer(base, offsets, lengths, cut));
            },
            o};
}

Chunk2SparseOptions cpu_options(const SparseJob& job, const ScanInput& scan) {
    Chunk2SparseOptions o{scan.codec, 0, job.on_error};
    o.howmany = job.howmany;
    o.thresholds = job.thresholds;
    return o;
}

// Lists frames whose chunk holds the raw pixels (bitshuffle skipped), on the host: the CPU class.
struct DenseLister {
    DenseFrames run;
    std::shared_ptr<void> keep;
};

DenseLister make_dense_lister(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use,
                              const IntegrationMatrix* matrix) {
    const Chunk2SparseOptions o = cpu_options(job, scan);
    const double cut = job.cut;
    if (matrix) {
        auto c = std::make_shared<Chunk2SparseCSC>(use, scan.ni, scan.nj, scan.type, *matrix, job.acc, o);
        return {[c, cut](const std::vector<ByteView>& f) { return c->from_frames(f, cut); }, c};
    }
    auto c = std::make_shared<Chunk2Sparse>(use, scan.ni, scan.nj, scan.type, o);
    return {[c, cut](const std::vector<ByteView>& f) { return integrated(c->from_frames(f, cut)); }, c};
}

#if BSLZ4_HAVE_CUDA
class PinnedSlot : public SlotMemory {
public:
    PinnedSlot(std::size_t bytes, int device) : memory_(bytes ? bytes : 1, device) {}
    std::uint8_t* data() override { return memory_.data(); }

private:
    cuda::PinnedHostMemory memory_;
};
#endif

// Where the job decodes: on the CPU, or on these GPUs, with job.objects_per_gpu decoders each.
struct Placement {
    bool gpu = false;
    std::vector<int> devices;
    std::vector<int> decoders;  // the device of each decoder (-1: the CPU)
};

Placement place(const SparseJob& job, const ScanInput& scan) {
    Placement p;
    p.gpu = job.where == SparseJob::Where::gpu;
#if BSLZ4_HAVE_CUDA
    const bool gpu_type = pixel_size(scan.type) <= 4 && scan.type != PixelType::f64;
    if (job.where == SparseJob::Where::any) {
        // GPUs named are GPUs wanted: none there is an error, never a quiet run on the CPU.
        if (!job.devices.empty() && !cuda::available())
            throw Error(ErrorCode::bad_argument, "--device: no GPU to run on: " + cuda::unavailable_reason() + "; give --cpu to run on the CPU");
        p.gpu = cuda::available() && gpu_type;
    }
    if (p.gpu && !cuda::available()) throw Error(ErrorCode::bad_argument, "--gpu: " + cuda::unavailable_reason() + "; give --cpu to run on the CPU");
#else
    (void)scan;
    if (p.gpu) throw Error(ErrorCode::bad_argument, "--gpu: this build has no GPU runtime (built without nvcc); give --cpu to run on the CPU");
    if (!job.devices.empty() && job.where != SparseJob::Where::cpu)
        throw Error(ErrorCode::bad_argument, "--device: no GPU to run on: this build has no GPU runtime (built without nvcc); give --cpu to run on the CPU");
#endif
    if (p.gpu) p.devices = job.devices.empty() ? std::vector<int>{0} : job.devices;
    for (unsigned k = 0; k < std::max(1u, job.objects_per_gpu); ++k)
        for (int d : p.devices) p.decoders.push_back(d);
    if (!p.gpu) p.decoders = {-1};
    return p;
}

#if BSLZ4_HAVE_CUDA
// Once the chunk index gives the largest batch, the object grows its staging and device buffers
// for it here, on its own thread, instead of in its first batch.
// A pinned ring's batches are uploaded from where they are: no staging is grown for them.
template <class Object>
Decoder reserved_gpu_decoder(std::string name, std::shared_ptr<Object> o, double cut, const std::shared_future<std::size_t>& batch_bytes,
                             bool pinned_ring) {
    const std::size_t bytes = batch_bytes.get();
    if (bytes)
        o->reserve(kBatchFrames, bytes / kBatchFrames + 16, pinned_ring ? cuda::ChunkMemory::pinned : cuda::ChunkMemory::pageable);
    return chunk_decoder(std::move(name), std::move(o), cut);
}

Decoder make_gpu_decoder(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use,
                         const IntegrationMatrix* matrix, int device, const std::shared_future<std::size_t>& batch_bytes) {
    cuda::Chunk2SparseOptions o{0, 0, cuda::Unblock::gpu, device, scan.codec, job.on_error};
    o.howmany = job.howmany;
    o.thresholds = job.thresholds;
    const std::string name = "GPU " + std::to_string(device);
    return matrix ? reserved_gpu_decoder(name, std::make_shared<cuda::Chunk2SparseCSC>(use, scan.ni, scan.nj, scan.type, *matrix, job.acc, o),
                                         job.cut, batch_bytes, job.pinned_ring)
                  : reserved_gpu_decoder(name, std::make_shared<cuda::Chunk2Sparse>(use, scan.ni, scan.nj, scan.type, o), job.cut,
                                         batch_bytes, job.pinned_ring);
}
#endif

Decoder make_cpu_decoder(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use,
                         const IntegrationMatrix* matrix) {
    const Chunk2SparseOptions o = cpu_options(job, scan);
    if (matrix) {
        auto c = std::make_shared<Chunk2SparseCSC>(use, scan.ni, scan.nj, scan.type, *matrix, job.acc, o);
        return chunk_decoder("CPU (" + std::to_string(o.threads ? o.threads : usable_cpu_count()) + " threads)", c, job.cut);
    }
    auto c = std::make_shared<Chunk2Sparse>(use, scan.ni, scan.nj, scan.type, o);
    return chunk_decoder("CPU (" + std::to_string(c->threads()) + " threads)", c, job.cut);
}

// The decoders are made on threads of their own (a GPU's first object makes its context, loads
// the kernels and takes its buffers, then grows them for the largest batch once the chunk index
// says how large: fixed costs worth hiding behind the index's read and the first batches' reads),
// each GPU's at the same time as the others'.
class DecodersInTheMaking {
public:
    DecodersInTheMaking(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use, const Placement& where)
        : t0_(Clock::now()) {
        const std::shared_future<std::size_t> batch_bytes = batch_bytes_.get_future().share();
        const std::shared_future<const IntegrationMatrix*> matrix_read = matrix_.get_future().share();
        try {
            for (const int device : where.decoders) {
                made_.push_back(std::async(std::launch::async, [&job, &scan, &use, matrix_read, device, batch_bytes, this] {
                    const IntegrationMatrix* matrix = matrix_read.get();
#if BSLZ4_HAVE_CUDA
                    Decoder d = device >= 0 ? make_gpu_decoder(job, scan, use, matrix, device, batch_bytes)
                                            : make_cpu_decoder(job, scan, use, matrix);
#else
                    (void)batch_bytes;
                    Decoder d = make_cpu_decoder(job, scan, use, matrix);
#endif
                    const double s = seconds_since(t0_);
                    std::lock_guard<std::mutex> lock(m_);
                    longest_ = std::max(longest_, s);
                    return d;
                }));
            }
        } catch (...) {
            // A thread the system would not start: those started must not wait for the index or the matrix.
            index_failed(std::current_exception());
            matrix_failed(std::current_exception());
            throw;
        }
    }
    // Left before the index or the matrix was read (an error on the way): the decoders' threads
    // stop waiting for them, so that made_'s futures, which wait for those threads, can finish.
    ~DecodersInTheMaking() {
        if (!answered_)
            index_failed(std::make_exception_ptr(Error(ErrorCode::io, "the sparse job ended before its chunk index was read")));
        if (!matrix_answered_)
            matrix_failed(std::make_exception_ptr(Error(ErrorCode::io, "the sparse job ended before its matrix was read")));
    }
    DecodersInTheMaking(const DecodersInTheMaking&) = delete;
    DecodersInTheMaking& operator=(const DecodersInTheMaking&) = delete;
    // The largest batch's bytes, once the chunk index is read: the GPU decoders reserve for it.
    void index_read(std::size_t largest_batch_bytes) {
        answered_ = true;
        batch_bytes_.set_value(largest_batch_bytes);
    }
    // The index could not be read: the decoders waiting for it stop (their failure is not reported).
    void index_failed(std::exception_ptr why) {
        answered_ = true;
        batch_bytes_.set_exception(std::move(why));
    }
    // The matrix the decoders sum with (null: none), once read: they wait for it.
    void matrix_ready(const IntegrationMatrix* m) {
        matrix_answered_ = true;
        matrix_.set_value(m);
    }
    void matrix_failed(std::exception_ptr why) {
        matrix_answered_ = true;
        matrix_.set_exception(std::move(why));
    }
    // Waits for them all; rethrows the first failure.
    std::vector<Decoder> get() {
        std::vector<Decoder> decoders;
        for (auto& f : made_) decoders.push_back(f.get());
        return decoders;
    }
    double seconds() {
        std::lock_guard<std::mutex> lock(m_);
        return longest_;
    }

private:
    Clock::time_point t0_;
    std::mutex m_;
    double longest_ = 0;
    std::promise<std::size_t> batch_bytes_;  // these two outlive the threads that wait on them (made_ goes first)
    std::promise<const IntegrationMatrix*> matrix_;
    bool answered_ = false, matrix_answered_ = false;
    std::vector<std::future<Decoder>> made_;
};

// A mask that leaves fewer than half the pixels is more often one given in the other convention
// than a real one: the warning says which options read it the other way.
std::string mask_warning(const SparseJob& job, const SparseSummary& s) {
    char share[32];
    std::snprintf(share, sizeof share, "%.1f %%", 100.0 * static_cast<double>(s.masked_pixels) / static_cast<double>(s.frame_pixels));
    const std::string masks = "the mask " + s.mask_source + " masks " + std::to_string(s.masked_pixels) + " of the frame's " +
                              std::to_string(s.frame_pixels) + " pixels (" + share + "): ";
    if (!job.mask_spec.empty())
        return masks + "--mask reads nonzero as do NOT use (NeXus's pixel_mask); if nonzero marks the pixels to use, give it as --use-mask " +
               job.mask_spec;
    if (!job.use_mask_spec.empty())
        return masks + "--use-mask reads nonzero as USE the pixel; if nonzero marks bad pixels (NeXus's pixel_mask), give it as --mask " +
               job.use_mask_spec;
    return masks + "the file's pixel_mask is read as NeXus's (nonzero = do not use); give --use-mask FILE:PATH if it is the other "
                   "convention, or --no-mask";
}

// The file at `path` (when there is one) among those the job reads, as `role`.
void note_file_at(std::vector<ScanInput::FileRead>& reads, const std::string& path, const char* role) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0)
        reads.push_back({{path, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)}, role});
}

// The job would write over a file it reads (the output names it, through a link, another path
// or a hard link): refused before anything is written, naming both.
void refuse_output_over_reads(const SparseJob& job, const std::vector<ScanInput::FileRead>& reads) {
    struct stat st {};
    if (stat(job.output.c_str(), &st) != 0) return;  // a new file is none of them
    for (const ScanInput::FileRead& r : reads)
        if (r.file.device == static_cast<std::uint64_t>(st.st_dev) && r.file.inode == static_cast<std::uint64_t>(st.st_ino))
            throw Error(ErrorCode::bad_argument, "-o " + job.output + " is the " + r.role + " " + r.file.name + ", which this job reads; " +
                                                     "give another output file (" + job.output + " is left unchanged, nothing was written)");
}

std::vector<std::uint8_t> choose_mask(const SparseJob& job, const ScanInput& scan, std::string& source,
                                      std::vector<ScanInput::FileRead>& reads) {
    std::vector<std::uint8_t> use(scan.ni * scan.nj, 1);
    if (!job.mask_spec.empty() && !job.use_mask_spec.empty())
        throw Error(ErrorCode::bad_argument, "give a mask (nonzero = do not use) or a use-mask (nonzero = use), not both");
    if (job.no_mask) {
        source = "none (--no-mask)";
    } else if (!job.mask_spec.empty() || !job.use_mask_spec.empty()) {
        // Both read the same; they differ in what nonzero means.
        const bool nexus = !job.mask_spec.empty();
        const std::string& spec = nexus ? job.mask_spec : job.use_mask_spec;
        const MaskFile m = read_mask_file(spec, scan.ni, scan.nj);
        reads.push_back({m.file, nexus ? "--mask file" : "--use-mask file"});
        for (std::size_t i = 0; i < use.size(); ++i) use[i] = nexus ? !m.nonzero[i] : m.nonzero[i] != 0;
        source = nexus ? spec : spec + " (--use-mask: nonzero = use)";
    } else if (!scan.nexus_mask.empty()) {
        for (std::size_t i = 0; i < use.size(); ++i) use[i] = scan.nexus_mask[i] == 0;
        source = scan.file_name + ":" + scan.nexus_mask_path;
    } else {
        source = scan.mask_source;  // "none (the file has no pixel_mask)"
    }
    return use;
}

// A decoder's "frame j: why" (j counted in its call) -> "FILE:DATASET frame F: why", F the frame
// of the input dataset.
std::string scan_frame_message(const std::string& what, const ScanInput& scan, std::size_t d, std::size_t frame) {
    std::string why = what;
    const std::size_t colon = why.find(": ");
    if (why.rfind("frame ", 0) == 0 && colon != std::string::npos) why = why.substr(colon + 2);
    return frame_place(scan, d, frame) + ": " + why;  // a VDS frame names its source file's frame too
}

// The error of a decoder given frames[0], frames[1], ..., its code kept, naming the input's frame.
[[noreturn]] void rethrow_with_frame(const Error& e, const ScanInput& scan, std::size_t d, const std::vector<std::size_t>& frames) {
    const std::string what = e.what();
    const std::size_t j = what.rfind("frame ", 0) == 0 ? std::strtoull(what.c_str() + 6, nullptr, 10) : 0;
    throw Error(e.code(), scan_frame_message(what, scan, d, j < frames.size() ? frames[j] : frames[0]));
}

// What the decoder reported of frame j of its call (OnError::report): bad[] is in frame order.
FrameError reported(const SparseBatch& b, std::size_t j) {
    for (std::size_t k = 0; k < b.nbad; ++k)
        if (b.bad[k].frame == j) return b.bad[k];
    return {j, b.code(j), "frame " + std::to_string(j) + ": " + error_code_name(b.code(j))};
}

// One batch decoded into the output's rows, in frame order: bitshuffle chunks by the decoder
// from the ring's buffer, raw chunks (filter skipped) listed on the host. With job.on_error =
// report, a frame that cannot be decoded is a bad frame of the rows (nnz 0, listed in
// bad_frames), numbered in the input dataset; else its error stops the scan.
class BatchDecoder {
public:
    BatchDecoder(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use, const IntegrationMatrix* matrix,
                 const Decoder& decoder)
        : job_(job), scan_(scan), use_(use), matrix_(matrix), decoder_(decoder) {}

    OutputRows decode(const ReadBatch& batch, std::size_t d) {
        const std::size_t count = batch.lengths.size(), frame_bytes = scan_.ni * scan_.nj * pixel_size(scan_.type);
        std::vector<std::size_t> coded, raw;  // positions in the batch
        std::vector<FrameError> refused;      // raw chunks that hold no raw frame, by position in the batch
        for (std::size_t k = 0; k < count; ++k) {
            const std::uint32_t mask = batch.filter_masks[k];
            if (mask == 0) {
                coded.push_back(k);
                continue;
            }
            const std::string what = scan_.file_name + ":" + scan_.datasets[d].path + " frame " + std::to_string(batch.first + k);
            FrameError e{k, ErrorCode::ok, ""};
            if (mask != 1) {
                e.code = ErrorCode::bad_header;
                e.message = what + ": the chunk's filter mask " + std::to_string(mask) + " names filters the dataset does not have";
            } else if (batch.lengths[k] != frame_bytes) {
                e.code = ErrorCode::wrong_decoded_size;
                e.message = what + ": stored with bitshuffle skipped (filter mask 1), so it should hold the raw frame of " +
                            std::to_string(frame_bytes) + " bytes, but it has " + std::to_string(batch.lengths[k]);
            } else {
                raw.push_back(k);
                continue;
            }
            if (job_.on_error != OnError::report) throw Error(e.code, e.message);
            refused.push_back(std::move(e));
        }
        IntegratedBatch from_chunks, from_raw;
        if (!coded.empty()) {
            std::vector<std::uint64_t> offsets, lengths;
            for (std::size_t k : coded) {
                offsets.push_back(batch.offsets[k]);
                lengths.push_back(batch.lengths[k]);
            }
            try {
                from_chunks = coded.size() == count ? decoder_.run(ByteView(batch.base, batch.size), batch.offsets, batch.lengths)
                                                    : decoder_.run(ByteView(batch.base, batch.size), offsets, lengths);
            } catch (const Error& e) {
                rethrow_with_frame(e, scan_, d, frames_of(batch, coded));
            }
        }
        if (!raw.empty()) {
            if (!dense_.run) dense_ = make_dense_lister(job_, scan_, use_, matrix_);
            std::vector<ByteView> frames;
            for (std::size_t k : raw) frames.emplace_back(batch.base + batch.offsets[k], batch.lengths[k]);
            try {
                from_raw = dense_.run(frames);
            } catch (const Error& e) {
                rethrow_with_frame(e, scan_, d, frames_of(batch, raw));
            }
        }
        OutputRows rows;
        const std::size_t powder_bytes = matrix_ ? matrix_->bins * accumulator_size(job_.acc) : 0;
        // Sized once: a batch of 2D powders (1,500 x 72 bins, f64) is 55 MB, which grown by
        // appends is copied and faulted in again at every doubling.
        rows.nnz.reserve(count);
        rows.powder.reserve(count * powder_bytes);
        std::size_t next_coded = 0, next_raw = 0, next_refused = 0;
        for (std::size_t k = 0; k < count; ++k) {
            const std::size_t frame = batch.first + k;
            if (next_refused < refused.size() && refused[next_refused].frame == k) {
                const FrameError& e = refused[next_refused++];
                rows.add_bad(frame, e.code, e.message, powder_bytes);
                continue;
            }
            // j counts this frame's place in its decoder's call, as the decoder's reports do.
            const bool is_raw = next_raw < raw.size() && raw[next_raw] == k;
            const IntegratedBatch& from = is_raw ? from_raw : from_chunks;
            const std::size_t j = is_raw ? next_raw++ : next_coded++;
            if (from.sparse.code(j) != ErrorCode::ok) {
                const FrameError e = reported(from.sparse, j);
                rows.add_bad(frame, e.code, scan_frame_message(e.message, scan_, d, frame), powder_bytes);
                continue;
            }
            const void* powder_row = powder_bytes ? static_cast<const std::uint8_t*>(from.powder.data) + j * powder_bytes : nullptr;
            rows.add(from.sparse.frame(j), scan_.nj, powder_row, powder_bytes);
        }
        return rows;
    }

private:
    static std::vector<std::size_t> frames_of(const ReadBatch& batch, const std::vector<std::size_t>& positions) {
        std::vector<std::size_t> frames;
        for (std::size_t k : positions) frames.push_back(batch.first + k);
        return frames;
    }
    const SparseJob& job_;
    const ScanInput& scan_;
    const std::vector<std::uint8_t>& use_;
    const IntegrationMatrix* matrix_;
    const Decoder& decoder_;
    DenseLister dense_;  // made at the first raw chunk
};

// Each frame's list cut down to its pixels in spots, moved up over what was dropped before it;
// returns how many pixels were dropped.
std::size_t keep_pixels_in_spots(SpotFilter& spots, OutputRows& rows) {
    const std::size_t elem = rows.pixels() ? rows.intensity.size() / rows.pixels() : 0, before = rows.pixels();
    std::size_t from = 0, to = 0;
    for (auto& nnz : rows.nnz) {
        const auto n = static_cast<std::size_t>(nnz);
        const std::size_t kept = spots.keep(rows.row.data() + from, rows.col.data() + from, rows.intensity.data() + from * elem, n,
                                            rows.row.data() + to, rows.col.data() + to, rows.intensity.data() + to * elem);
        nnz = static_cast<std::remove_reference_t<decltype(nnz)>>(kept);
        from += n;
        to += kept;
    }
    rows.row.resize(to);
    rows.col.resize(to);
    rows.intensity.resize(to * elem);
    return before - to;
}

}  // namespace

double SparseSummary::steady_frames_per_s() const {
    return times.steady > 0 && frames > times.first_frames ? (frames - times.first_frames) / times.steady : 0;
}

std::string output_over_files_read(const SparseJob& job) {
    struct stat st {};
    if (stat(job.output.c_str(), &st) != 0) return "";  // a new file is none of them
    std::vector<ScanInput::FileRead> reads;
    try {
        const h5::Lock lock;
        reads = open_scan(job.input, job.dataset, NexusMask::skip).files_read;
    } catch (const Error&) {
        return "";  // the run itself says why the scan cannot be read
    }
    if (!job.mask_spec.empty()) note_file_at(reads, job.mask_spec.substr(0, job.mask_spec.rfind(':')), "--mask file");
    if (!job.use_mask_spec.empty()) note_file_at(reads, job.use_mask_spec.substr(0, job.use_mask_spec.rfind(':')), "--use-mask file");
    if (!job.matrix_spec.empty()) note_file_at(reads, parse_matrix_spec(job.matrix_spec).file, "--matrix file");
    try {
        refuse_output_over_reads(job, reads);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

SparseSummary run_sparse_job(const SparseJob& job, const std::atomic<bool>& stop) {
    if (!std::isfinite(job.cut)) throw Error(ErrorCode::bad_argument, "the cut is " + std::to_string(job.cut) + "; a finite number is expected");
    SparseSummary summary;
    JobTimes& times = summary.times;
    auto t0 = Clock::now();
    const ScanInput scan =
        open_scan(job.input, job.dataset,
                  job.no_mask || !job.mask_spec.empty() || !job.use_mask_spec.empty() ? NexusMask::skip : NexusMask::read);
    OutputInfo info;
    info.command_line = job.command_line;
    info.input_file = job.input;
    info.cut = job.cut;
    info.ni = scan.ni;
    info.nj = scan.nj;
    info.type = scan.type;
    std::vector<ScanInput::FileRead> reads = scan.files_read;
    const std::vector<std::uint8_t> use = choose_mask(job, scan, info.mask_source, reads);
    summary.mask_source = info.mask_source;
    summary.frame_pixels = use.size();
    summary.masked_pixels = static_cast<std::size_t>(std::count(use.begin(), use.end(), std::uint8_t{0}));
    if (summary.masked_pixels * 2 > use.size() && job.notices)
        std::fprintf(job.notices, "bslz4: warning: %s\n", mask_warning(job, summary).c_str());
    summary.unmasked = info.mask_source.rfind("none", 0) == 0;
    if (summary.unmasked && !job.no_mask) summary.mask_looked_for = scan.mask_looked_for;
    // The matrix as read (by this job, or once for a campaign's) and, for acc i64, its fixed-point
    // copy: matrix_used points at the one summed. Read once the first batches are being read: an
    // Eiger 4M matrix takes about 0.1 s to read and check, which the scan's reads then hide (the
    // decoders wait for it).
    std::shared_ptr<const MatrixFile> matrix_file;
    IntegrationMatrix fixed;
    const IntegrationMatrix* matrix_used = nullptr;
    if (!job.matrix_spec.empty()) note_file_at(reads, parse_matrix_spec(job.matrix_spec).file, "--matrix file");
    const auto read_matrix = [&] {
        if (job.matrix_spec.empty()) return;
        const std::size_t frame_pixels = scan.ni * scan.nj;
        matrix_file = job.matrix_read && job.matrix_read->matrix.pixels == frame_pixels
                          ? job.matrix_read  // else read here, which names the misfit
                          : std::make_shared<const MatrixFile>(read_matrix_file(job.matrix_spec, frame_pixels));
        const MatrixFile& file = *matrix_file;
        if (file.axes.present()) {  // bslz4-matrix's: pyFAI's intensities beside the sums, with this job's mask
            info.normalisation = bin_normalisation(file.matrix, file.axes.correction, use);
            info.axes = file.axes;
            info.axes.correction = {};
        }
        if (job.acc == Accumulator::i64) fixed = fixed_point_matrix(file.matrix, scan.type);
        matrix_used = job.acc == Accumulator::i64 ? &fixed : &file.matrix;
        info.bins = matrix_used->bins;
        info.acc = job.acc;
        info.powder_scale = matrix_used->fixed_point() ? matrix_used->powder_scale : 1;
    };
    const FrameRange selected = resolve_frames(parse_frame_selection(job.frames_spec), scan.frames);
    const std::size_t a = selected.first, b = selected.end;
    // One group for the scan at its own path (an Eiger master's data_NNNNNN together at
    // /entry/data/data), or with --per-file a group for each input dataset at its own path.
    info.per_file = job.per_file;
    info.scan_path = scan.datasets.size() == 1 && !scan.eiger_master ? scan.datasets[0].path : "/entry/data/data";
    info.scan_frames = b - a;
    info.compression = job.compression;
    info.overwrite = job.overwrite;
    if (job.peaks) {
        info.peaks_algorithm = peaks::algorithm_name(job.peaks->algorithm);
        info.peaks_wtmax = job.peaks->wtmax;
    }
    if (job.reader_threads > 16)
        throw Error(ErrorCode::bad_argument, "reader threads: " + std::to_string(job.reader_threads) + "; from 1 to 16");
    const Placement where = place(job, scan);
    times.open = seconds_since(t0);
    DecodersInTheMaking making(job, scan, use, where);

    // Every dataset's chunk index first (HDF5 reads its metadata; the chunks are read by position),
    // then one ring sized for the largest batch of any of them.
    t0 = Clock::now();
    struct Part {
        std::size_t d, first, end;  // frames [first, end) of dataset d
        ChunkIndex index;
    };
    std::vector<Part> parts;
    std::size_t slot_bytes = 0;
    try {
        for (std::size_t d = 0, offset = 0; d < scan.datasets.size(); offset += scan.datasets[d].frames, ++d) {
            const std::size_t first = std::max(a, offset) - offset, end = std::min(b, offset + scan.datasets[d].frames);
            if (end <= offset || first >= end - offset) continue;
            Part p{d, first, end - offset,
                   read_chunk_index(scan.datasets[d].dataset.get(), first, end - offset, scan.file_name + ":" + scan.datasets[d].path,
                                    scan.largest_chunk, job.per_chunk_index_limit)};
            slot_bytes = std::max(slot_bytes, largest_batch_bytes(p.index, kBatchFrames));
            for (const ChunkLocation& c : p.index.chunks) summary.frames_through_hdf5 += !p.index.sources[c.source].by_position;
            parts.push_back(std::move(p));
        }
    } catch (...) {
        making.index_failed(std::current_exception());  // the decoders' threads stop waiting
        throw;
    }
    making.index_read(slot_bytes);
    times.index = seconds_since(t0);
    const std::size_t decoders = where.decoders.size();
    const unsigned readers = job.reader_threads ? job.reader_threads
                             : where.gpu        ? static_cast<unsigned>(std::min<std::size_t>(16, 2 + 2 * where.devices.size()))
                                                : 2;
    summary.reader_threads = readers;
    summary.decoder_threads = static_cast<unsigned>(decoders);
    // Each decoder holds a batch and has the next one ready; the readers fill the rest.
    MakeSlotMemory memory = ordinary_memory;
#if BSLZ4_HAVE_CUDA
    if (where.gpu && job.pinned_ring) {
        const int device = where.devices[0];  // pinned memory is every device's (unified addressing)
        memory = [device](std::size_t bytes) -> std::unique_ptr<SlotMemory> { return std::make_unique<PinnedSlot>(bytes, device); };
    }
#endif
    BufferRing ring(readers + 2 * decoders, slot_bytes, memory);
    std::optional<BatchReader> first_reader;  // reads while the matrix is read
    const auto reading_start = Clock::now();
    if (!parts.empty()) first_reader.emplace(parts.front().index, ring, kBatchFrames, readers);
    // From here the readers may read chunks through HDF5 (see BatchReader): this thread's HDF5
    // calls hold its lock too.
    t0 = Clock::now();
    try {
        const h5::Lock lock;
        read_matrix();
    } catch (...) {
        making.matrix_failed(std::current_exception());
        throw;
    }
    making.matrix_ready(matrix_used);
    times.matrix = seconds_since(t0);

    refuse_output_over_reads(job, reads);
    for (const std::string& line : remove_stale_temporaries(output_target(job.output, true).target))
        if (job.notices) std::fprintf(job.notices, "bslz4: %s\n", line.c_str());
    auto out = [&] {
        const h5::Lock lock;
        return std::make_unique<SparseOutput>(job.output, info);
    }();
    std::unique_ptr<OutputWriter> writer;
    // A run that fails part way keeps what it wrote apart from the output (keep_incomplete), and
    // its error says where.
    const auto keep_what_was_written = [&](const std::string& why) {
        first_reader.reset();  // its threads may call HDF5, which the output's close below does too
        try {
            if (writer) writer->finish();  // the batches handed over before the fault are kept too
        } catch (...) {
            // the writer's own failure: the output marked itself damaged, and is not kept
        }
        writer.reset();  // its thread stops before the file is closed
        const std::string kept = out->keep_incomplete();
        return kept.empty() ? why : why + "; the frames written before it are kept in " + kept + " (readable; complete = 0)";
    };
    bool finishing = false;
    try {
        writer = std::make_unique<OutputWriter>(*out, kWritesQueued);  // after out: stops before it goes
        std::vector<std::size_t> frames_by(decoders, 0);
        std::vector<double> decoding_by(decoders, 0);
        std::vector<Decoder> made;  // the batch decoders hold on to these
        std::vector<std::unique_ptr<BatchDecoder>> batches;
        // Taken once the first part's readers have started, so its first batches are read while the
        // decoders are finished.
        auto take_decoders = [&] {
            if (!batches.empty()) return;
            const auto w0 = Clock::now();
            made = making.get();
            times.decoders_wait = seconds_since(w0);
            times.decoders = making.seconds();
            summary.decoder = where.gpu ? describe_devices(where.devices) : made[0].name;
            for (const Decoder& d : made) batches.push_back(std::make_unique<BatchDecoder>(job, scan, use, matrix_used, d));
        };

        // On the collector's thread, which otherwise waits for the decoders: the filter costs the
        // job nothing while it is faster than they are.
        SpotFilter spots(job.pixels_in_spot, scan.type, scan.nj);
        std::optional<ListPeaks> peaks;
        if (job.peaks)
            peaks.emplace(*job.peaks, scan.type, scan.ni, scan.nj, job.peak_threads, where.gpu ? where.devices[0] : -1);
        // On GPUs each frame's peaks are labelled on its decoder's thread (a labeller each, on the
        // decoder's GPU), beside the decoding, unless the spot filter must cut the lists first;
        // the overlaps, which join consecutive batches, on the collector. On the CPU all of it is
        // on the collector: the CPU decoder's one thread drives all the cores, and labelling
        // there held it up (H200 host, dense: 0.50 x the job without peaks, 0.66 on the collector).
        std::vector<std::unique_ptr<ListPeaks>> decoder_peaks;
        std::vector<double> peaks_by(decoders, 0);
        if (job.peaks && !spots.active() && where.gpu)
            for (std::size_t k = 0; k < decoders; ++k)
                decoder_peaks.push_back(std::make_unique<ListPeaks>(*job.peaks, scan.type, scan.ni, scan.nj, job.peak_threads,
                                                                    where.decoders[k]));
        Progress progress(b - a, job.quiet);
        const auto loop_start = reading_start;
        for (const Part& p : parts) {
            writer->begin_group(scan.datasets[p.d].path, p.end - p.first);
            if (peaks && (job.per_file || &p == &parts.front())) peaks->begin_group();
            const auto part_start = &p == &parts.front() ? reading_start : Clock::now();
            std::optional<BatchReader> next_reader;
            BatchReader& reader = &p == &parts.front() ? *first_reader : next_reader.emplace(p.index, ring, kBatchFrames, readers);
            take_decoders();
            const DecodeBatch decode = [&](const ReadBatch& batch, std::size_t k) {
                const auto d0 = Clock::now();
                OutputRows rows = batches[k]->decode(batch, p.d);
                frames_by[k] += rows.frames();  // only decoder k's thread writes here
                decoding_by[k] += seconds_since(d0);
                if (!decoder_peaks.empty()) {
                    const auto l0 = Clock::now();
                    decoder_peaks[k]->label_frames(rows, batch.first);
                    peaks_by[k] += seconds_since(l0);
                }
                return rows;
            };
            bool first = true;
            const SinkRows sink = [&](OutputRows&& rows) {
                const auto h0 = Clock::now();
                if (first) {
                    times.first_batch += seconds_since(part_start);
                    times.first_frames += rows.frames();
                    first = false;
                }
                if (spots.active()) summary.pixels_not_in_spots += keep_pixels_in_spots(spots, rows);
                if (peaks) {
                    const auto l0 = Clock::now();
                    if (decoder_peaks.empty())
                        peaks->label(rows, summary.frames);
                    else
                        peaks->pair_frames(rows);
                    summary.peaks += rows.peak_props.size() / 5;
                    summary.peak_pairs += rows.peak_pairs.size() / 5;
                    times.peaks += seconds_since(l0);
                }
                summary.pixels += rows.pixels();
                summary.frames += rows.frames();
                summary.bad_frames += rows.bad.size();
                for (const FrameError& e : rows.bad)
                    if (summary.first_bad.size() < SparseSummary::kFirstBadKept)
                        summary.first_bad.push_back({scan.datasets[p.d].path, e});
                writer->append(std::move(rows));
                progress.update(summary.frames);
                if (job.on_batch) job.on_batch(summary.frames, b - a);
                times.handing += seconds_since(h0);
                return !stop;
            };
            summary.interrupted = !decode_in_order(reader, decoders, ring.slots(), decode, sink);
            times.reading += reader.reading_seconds();
            if (&p == &parts.front()) first_reader.reset();  // its threads end before the next part's read the ring
            times.loop += seconds_since(part_start);
            writer->close_group(!summary.interrupted);
            if (summary.interrupted) break;
        }
        take_decoders();  // a job of no frames still says what it would have run on
        times.slot_memory = ring.making_seconds();
        if (where.gpu) {
            summary.frames_per_gpu.assign(where.devices.size(), 0);
            for (std::size_t k = 0; k < decoders; ++k) summary.frames_per_gpu[k % where.devices.size()] += frames_by[k];
        }
        for (double s : decoding_by) times.decoding += s;
        for (double s : peaks_by) times.peaks += s;
        times.writing = writer->writing_seconds();  // before the last writes: the loop's share
        t0 = Clock::now();
        writer->finish();
        writer.reset();
        finishing = true;
        if (summary.interrupted)
            summary.incomplete_output = out->keep_incomplete();
        else
            out->finish();  // closes the file and renames it into place
        times.finish = seconds_since(t0);
        progress.finish();
        summary.seconds = seconds_since(loop_start);
    } catch (const Error& e) {
        if (finishing) throw;  // the output's own failure: nothing could be kept
        throw Error(e.code(), keep_what_was_written(e.what()));
    } catch (...) {
        if (!finishing) keep_what_was_written("");
        throw;
    }
    summary.decoded_bytes = static_cast<double>(summary.frames) * scan.ni * scan.nj * pixel_size(scan.type);
    times.steady = times.loop - times.first_batch;
    return summary;
}

}  // namespace bslz4::tool
