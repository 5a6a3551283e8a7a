#include "sparse/job_decoders.hpp"

#include <algorithm>
#include <utility>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/chunk2sparse_csc.hpp"
#include "bslz4/cpu_count.hpp"
#include "bslz4/error.hpp"
#include "bslz4/powder.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/matrix_file.hpp"

#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/cuda/host_memory.hpp"
#endif

namespace bslz4::tool {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

IntegratedBatch integrated(SparseBatch b) { return IntegratedBatch{b, Powder{}}; }
IntegratedBatch integrated(IntegratedBatch b) { return b; }

// A CPU or GPU class behind the decoder interface, called with the job's cut.
template <class Object>
class ObjectDecoder final : public ChunkDecoder {
public:
    ObjectDecoder(std::string name, std::shared_ptr<Object> o, double cut) : ChunkDecoder(std::move(name)), o_(std::move(o)), cut_(cut) {}
    IntegratedBatch decode(ByteView base, const std::vector<std::uint64_t>& offsets,
                           const std::vector<std::uint64_t>& lengths) override {
        return integrated(o_->from_buffer(base, offsets, lengths, cut_));
    }

private:
    std::shared_ptr<Object> o_;
    double cut_;
};

template <class Object>
class ObjectLister final : public DenseLister {
public:
    ObjectLister(std::unique_ptr<Object> o, double cut) : o_(std::move(o)), cut_(cut) {}
    IntegratedBatch list(const std::vector<ByteView>& frames) override { return integrated(o_->from_frames(frames, cut_)); }

private:
    std::unique_ptr<Object> o_;
    double cut_;
};

Chunk2SparseOptions cpu_options(const SparseJob& job, const ScanInput& scan) {
    Chunk2SparseOptions o{scan.codec, 0, job.on_error};
    o.howmany = job.howmany;
    o.thresholds = job.thresholds;
    return o;
}

#if BSLZ4_HAVE_CUDA
// A GPU object's groups: a call of kBatchFrames comes in 4 groups (Chunk2SparseOptions::group),
// so slots made for more frames (their dense frames, their staged pixels) are never filled.
// Reserved for the job's batches of dense Eiger 4M u16 frames on the H200, three objects held
// 7.4 GB of device memory with the default groups (their lists grown for the calls) and 3.3 GB
// with these (batches then of 16 frames too), and were given back in
// 16 and 8-9 ms (cuMemFree takes some 0.7 ms a GB); the kernels' work is the same.
constexpr unsigned kCallGroupFrames = kBatchFrames / 4;

class PinnedSlot : public SlotMemory {
public:
    PinnedSlot(std::size_t bytes, int device) : memory_(bytes ? bytes : 1, device) {}
    std::uint8_t* data() override { return memory_.data(); }

private:
    cuda::PinnedHostMemory memory_;
};

// Once the chunk index gives the largest batch, the object grows its staging and device buffers
// for it here, on its own thread, instead of in its first batch.
// A pinned ring's batches are uploaded from where they are: no staging is grown for them.
template <class Object>
std::shared_ptr<ChunkDecoder> reserved_gpu_decoder(std::string name, std::shared_ptr<Object> o, double cut,
                                                   const std::shared_future<std::size_t>& batch_bytes, bool pinned_ring) {
    const std::size_t bytes = batch_bytes.get();
    if (bytes)
        o->reserve(kBatchFrames, bytes / kBatchFrames + 16, pinned_ring ? cuda::ChunkMemory::pinned : cuda::ChunkMemory::pageable);
    return std::make_shared<ObjectDecoder<Object>>(std::move(name), std::move(o), cut);
}

// The object is made before the matrix is waited for (its context, kernels and buffers: some 30
// ms, more for a GPU's first), and the matrix added once read: the making hides behind the
// matrix's read, not after it.
std::shared_ptr<ChunkDecoder> make_gpu_decoder(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use,
                                               const std::shared_future<const IntegrationMatrix*>& matrix_read, int device,
                                               const std::shared_future<std::size_t>& batch_bytes) {
    cuda::Chunk2SparseOptions o{0, kCallGroupFrames, cuda::Unblock::gpu, device, scan.codec, job.on_error};
    o.howmany = job.howmany;
    o.thresholds = job.thresholds;
    const std::string name = "GPU " + std::to_string(device);
    cuda::Chunk2Sparse lists(use, scan.ni, scan.nj, scan.type, o);
    if (const IntegrationMatrix* matrix = matrix_read.get())
        return reserved_gpu_decoder(name, std::make_shared<cuda::Chunk2SparseCSC>(std::move(lists), *matrix, job.acc), job.cut,
                                    batch_bytes, job.pinned_ring);
    return reserved_gpu_decoder(name, std::make_shared<cuda::Chunk2Sparse>(std::move(lists)), job.cut, batch_bytes, job.pinned_ring);
}
#endif

std::shared_ptr<ChunkDecoder> make_cpu_decoder(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use,
                                               const IntegrationMatrix* matrix) {
    const Chunk2SparseOptions o = cpu_options(job, scan);
    if (matrix) {
        auto c = std::make_shared<Chunk2SparseCSC>(use, scan.ni, scan.nj, scan.type, *matrix, job.acc, o);
        return std::make_shared<ObjectDecoder<Chunk2SparseCSC>>(
            "CPU (" + std::to_string(o.threads ? o.threads : usable_cpu_count()) + " threads)", c, job.cut);
    }
    auto c = std::make_shared<Chunk2Sparse>(use, scan.ni, scan.nj, scan.type, o);
    return std::make_shared<ObjectDecoder<Chunk2Sparse>>("CPU (" + std::to_string(c->threads()) + " threads)", c, job.cut);
}

}  // namespace

std::unique_ptr<DenseLister> make_dense_lister(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use,
                                               const IntegrationMatrix* matrix) {
    const Chunk2SparseOptions o = cpu_options(job, scan);
    if (matrix)
        return std::make_unique<ObjectLister<Chunk2SparseCSC>>(
            std::make_unique<Chunk2SparseCSC>(use, scan.ni, scan.nj, scan.type, *matrix, job.acc, o), job.cut);
    return std::make_unique<ObjectLister<Chunk2Sparse>>(std::make_unique<Chunk2Sparse>(use, scan.ni, scan.nj, scan.type, o), job.cut);
}

// Peaks on a GPU are labelled on each decoder's thread after its batch (the lists go up again,
// the labels come down), which nearly doubles a decoder's time: the job takes this many more
// decoder objects a GPU, so that the decoders stay ahead of the readers. H200, dense 2,000-frame
// scan, --peaks lmlabel against the same job without, two runs each: 2 objects 0.84 and 0.91
// of its whole call, 0.82 and 0.85 steady; 3 objects 0.90 and 0.87, 1.08 and 0.97 steady;
// 4 objects (measured before the labellers were made side by side) 0.69 and 0.76 whole.
constexpr unsigned kMoreObjectsWithPeaks = 1;
// With a matrix each decoder's thread also writes its batch's powders into the output (a batch
// of 1,500 x 72 f64 powders is 55 MB, some 30 ms of page faults and copying), so a matrix job
// takes this many more decoder objects a GPU. H200, dense 2,000-frame scan, one run each: with
// the 1,500 x 72 matrix, 4 objects against 2: steady 5,584 against 3,738 frames/s (0.97 and 0.52
// x the read rate), whole call 0.76 and 0.81 s; with 2,000 bins, 0.92 and 0.91 x the read rate.
// Only where a batch's powders are this large: each object more costs its making, its share of
// the ring and its giving back (14 ms a matrix object after the job, H200 host), and a 2,000-bin
// batch's powders are 1 MB. A matrix whose bins its file does not say counts as large.
constexpr unsigned kMoreObjectsWithMatrix = 2;
constexpr std::size_t kLargePowderBatchBytes = std::size_t{8} << 20;

namespace {

bool large_powders(const SparseJob& job, const ScanInput& scan) {
    const std::size_t bins = job.matrix_read ? job.matrix_read->matrix.bins : [&] {
        const h5::Lock lock;
        return matrix_file_bins(job.matrix_spec, scan.ni * scan.nj);
    }();
    // Divided, not multiplied: a shape attribute's bins may be any int64, read before the matrix is checked.
    return bins == 0 || bins >= kLargePowderBatchBytes / (accumulator_size(job.acc) * kBatchFrames);
}

}  // namespace

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
    unsigned objects = std::max(1u, job.objects_per_gpu);
    const bool labelling = decoders_label_peaks(job, p.gpu);
    if (labelling) objects += kMoreObjectsWithPeaks;
    if (p.gpu && !job.matrix_spec.empty() && large_powders(job, scan)) objects += kMoreObjectsWithMatrix;
    for (unsigned k = 0; k < objects; ++k)
        for (int d : p.devices) p.decoders.push_back(d);
    if (labelling) p.labelling_decoders = std::size_t{kMoreObjectsWithPeaks} * p.devices.size();
    if (!p.gpu) p.decoders = {-1};
    return p;
}

bool decoders_label_peaks(const SparseJob& job, bool gpu) { return gpu && job.peaks && job.pixels_in_spot <= 1; }

MakeSlotMemory slot_memory(const SparseJob& job, const Placement& where) {
#if BSLZ4_HAVE_CUDA
    if (where.gpu && job.pinned_ring) {
        const int device = where.devices[0];  // pinned memory is every device's (unified addressing)
        return [device](std::size_t bytes) -> std::unique_ptr<SlotMemory> { return std::make_unique<PinnedSlot>(bytes, device); };
    }
#else
    (void)job;
    (void)where;
#endif
    return ordinary_memory;
}

DecodersInTheMaking::DecodersInTheMaking(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use,
                                         const Placement& where)
    : t0_(std::chrono::steady_clock::now()) {
    const std::shared_future<std::size_t> batch_bytes = batch_bytes_.get_future().share();
    const std::shared_future<const IntegrationMatrix*> matrix_read = matrix_.get_future().share();
    try {
        for (const int device : where.decoders) {
            made_.push_back(std::async(std::launch::async, [&job, &scan, &use, matrix_read, device, batch_bytes, this] {
#if BSLZ4_HAVE_CUDA
                std::shared_ptr<ChunkDecoder> d = device >= 0 ? make_gpu_decoder(job, scan, use, matrix_read, device, batch_bytes)
                                                              : make_cpu_decoder(job, scan, use, matrix_read.get());
#else
                (void)batch_bytes;
                (void)device;
                std::shared_ptr<ChunkDecoder> d = make_cpu_decoder(job, scan, use, matrix_read.get());
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

DecodersInTheMaking::~DecodersInTheMaking() {
    if (!answered_) index_failed(std::make_exception_ptr(Error(ErrorCode::io, "the sparse job ended before its chunk index was read")));
    if (!matrix_answered_)
        matrix_failed(std::make_exception_ptr(Error(ErrorCode::io, "the sparse job ended before its matrix was read")));
}

void DecodersInTheMaking::index_read(std::size_t largest_batch_bytes) {
    answered_ = true;
    batch_bytes_.set_value(largest_batch_bytes);
}

void DecodersInTheMaking::index_failed(std::exception_ptr why) {
    answered_ = true;
    batch_bytes_.set_exception(std::move(why));
}

void DecodersInTheMaking::matrix_ready(const IntegrationMatrix* m) {
    matrix_answered_ = true;
    matrix_.set_value(m);
}

void DecodersInTheMaking::matrix_failed(std::exception_ptr why) {
    matrix_answered_ = true;
    matrix_.set_exception(std::move(why));
}

std::vector<std::shared_ptr<ChunkDecoder>> DecodersInTheMaking::get() {
    std::vector<std::shared_ptr<ChunkDecoder>> decoders;
    for (auto& f : made_) decoders.push_back(f.get());
    return decoders;
}

double DecodersInTheMaking::seconds() {
    std::lock_guard<std::mutex> lock(m_);
    return longest_;
}

}  // namespace bslz4::tool
