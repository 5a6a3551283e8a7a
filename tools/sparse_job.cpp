#include "sparse_job.hpp"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/chunk2sparse_csc.hpp"
#include "bslz4/error.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/matrix_file.hpp"
#include "hdf5/scan_input.hpp"
#include "hdf5/sparse_output.hpp"
#include "progress.hpp"

#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#endif

namespace bslz4::tool {

namespace {

constexpr std::size_t kBatchFrames = 64;
constexpr std::size_t kQueueBatches = 2;

using Decode = std::function<IntegratedBatch(const std::vector<ByteView>&)>;

struct Decoder {
    std::string name;
    Decode run;
    std::shared_ptr<void> keep;  // the object behind run
};

template <class Object>
Decoder sparse_only(std::string name, std::shared_ptr<Object> o, double cut) {
    return {std::move(name), [o, cut](const std::vector<ByteView>& c) { return IntegratedBatch{o->multi(c, cut), Powder{}}; }, o};
}
template <class Object>
Decoder integrating(std::string name, std::shared_ptr<Object> o, double cut) {
    return {std::move(name), [o, cut](const std::vector<ByteView>& c) { return o->multi(c, cut); }, o};
}

Decoder make_decoder(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use,
                     const IntegrationMatrix* matrix) {
    bool gpu = job.where == SparseJob::Where::gpu;
#if BSLZ4_HAVE_CUDA
    const bool gpu_type = scan.codec == Codec::lz4 && pixel_size(scan.type) <= 4 && scan.type != PixelType::f64;
    if (job.where == SparseJob::Where::any) gpu = cuda::available() && gpu_type;
    if (gpu) {
        if (!cuda::available()) throw Error("--gpu: " + cuda::unavailable_reason());
        const cuda::DeviceInfo info = cuda::device_info(job.device);
        const std::string name = "GPU " + std::to_string(job.device) + " (" + info.name + ")";
        const cuda::Chunk2SparseOptions o{0, 0, cuda::Unblock::gpu, job.device, scan.codec};
        if (matrix)
            return integrating(name, std::make_shared<cuda::Chunk2SparseCSC>(use, scan.ni, scan.nj, scan.type, *matrix, job.acc, o),
                               job.cut);
        return sparse_only(name, std::make_shared<cuda::Chunk2Sparse>(use, scan.ni, scan.nj, scan.type, o), job.cut);
    }
#else
    if (gpu) throw Error("--gpu: this build has no GPU runtime (built without nvcc)");
#endif
    const Chunk2SparseOptions o{scan.codec, 0};
    if (matrix) {
        auto c = std::make_shared<Chunk2SparseCSC>(use, scan.ni, scan.nj, scan.type, *matrix, job.acc, o);
        return integrating("CPU (" + std::to_string(std::thread::hardware_concurrency()) + " threads)", c, job.cut);
    }
    auto c = std::make_shared<Chunk2Sparse>(use, scan.ni, scan.nj, scan.type, o);
    return sparse_only("CPU (" + std::to_string(c->threads()) + " threads)", c, job.cut);
}

std::vector<std::uint8_t> choose_mask(const SparseJob& job, const ScanInput& scan, std::string& source) {
    std::vector<std::uint8_t> use(scan.ni * scan.nj, 1);
    if (job.no_mask) {
        source = "none (--no-mask)";
    } else if (!job.mask_spec.empty()) {
        const std::size_t colon = job.mask_spec.rfind(':');
        if (colon == std::string::npos || colon == 0) throw Error("mask '" + job.mask_spec + "': expected FILE:PATH");
        const std::string file_name = job.mask_spec.substr(0, colon), path = job.mask_spec.substr(colon + 1);
        const h5::Handle file = h5::open_file(file_name);
        const h5::Handle d = h5::open_dataset(file.get(), path, file_name);
        const auto masked = h5::read_nonzero(d.get(), use.size(), job.mask_spec);
        for (std::size_t i = 0; i < use.size(); ++i) use[i] = !masked[i];
        source = job.mask_spec;
    } else if (!scan.nexus_mask.empty()) {
        for (std::size_t i = 0; i < use.size(); ++i) use[i] = scan.nexus_mask[i] == 0;
        source = scan.file_name + ":" + scan.nexus_mask_path;
    } else {
        source = "none (the file has no pixel_mask)";
    }
    return use;
}

void frame_range(const std::string& spec, std::size_t frames, std::size_t& a, std::size_t& b) {
    a = 0;
    b = frames;
    if (spec.empty()) return;
    const std::size_t colon = spec.find(':');
    auto number = [&](const std::string& t, std::size_t fallback) {
        if (t.empty()) return fallback;
        char* end = nullptr;
        const unsigned long long v = std::strtoull(t.c_str(), &end, 10);
        if (*end || t[0] == '-') throw Error("--frames '" + spec + "': expected A:B with whole numbers");
        return static_cast<std::size_t>(v);
    };
    if (colon == std::string::npos) throw Error("--frames '" + spec + "': expected A:B");
    a = number(spec.substr(0, colon), 0);
    b = std::min(frames, number(spec.substr(colon + 1), frames));
    if (a >= b) throw Error("--frames " + spec + " selects no frame of the " + std::to_string(frames));
}

// "frame j: why" from a batch -> "FILE:DATASET frame K: why".
[[noreturn]] void rethrow_with_frame(const Error& e, const ScanInput& scan, std::size_t d, std::size_t first) {
    std::string what = e.what();
    std::size_t j = 0;
    if (what.rfind("frame ", 0) == 0) {
        const std::size_t colon = what.find(':');
        j = std::strtoull(what.c_str() + 6, nullptr, 10);
        what = what.substr(colon + 2);
    }
    throw Error(scan.file_name + ":" + scan.datasets[d].path + " frame " + std::to_string(first + j) + ": " + what);
}

// Reads batches of chunks ahead of the decoder, on its own thread.
class ChunkReader {
public:
    ChunkReader(const ScanInput& scan, std::size_t d, std::size_t a, std::size_t b)
        : scan_(scan), d_(d), thread_([this, a, b] { read(a, b); }) {}
    ~ChunkReader() {
        {
            std::lock_guard<std::mutex> lock(m_);
            cancel_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    // The next batch (first frame, chunks); false at the end. Rethrows a read error.
    bool next(std::size_t& first, std::vector<std::vector<std::uint8_t>>& chunks) {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return !q_.empty() || done_; });
        if (q_.empty()) {
            if (error_) std::rethrow_exception(error_);
            return false;
        }
        first = q_.front().first;
        chunks = std::move(q_.front().second);
        q_.pop_front();
        cv_.notify_all();
        return true;
    }

private:
    void read(std::size_t a, std::size_t b) {
        try {
            for (std::size_t first = a; first < b; first += kBatchFrames) {
                std::vector<std::vector<std::uint8_t>> chunks;
                for (std::size_t f = first; f < std::min(b, first + kBatchFrames); ++f) {
                    const h5::Lock h5lock;  // quiet on this thread too
                    chunks.push_back(read_frame_chunk(scan_, d_, f));
                }
                std::unique_lock<std::mutex> lock(m_);
                cv_.wait(lock, [&] { return q_.size() < kQueueBatches || cancel_; });
                if (cancel_) break;
                q_.emplace_back(first, std::move(chunks));
                cv_.notify_all();
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(m_);
            error_ = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(m_);
        done_ = true;
        cv_.notify_all();
    }

    const ScanInput& scan_;
    std::size_t d_;
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<std::pair<std::size_t, std::vector<std::vector<std::uint8_t>>>> q_;
    bool done_ = false, cancel_ = false;
    std::exception_ptr error_;
    std::thread thread_;  // last: starts once the rest is built
};

}  // namespace

SparseSummary run_sparse_job(const SparseJob& job, const std::atomic<bool>& stop) {
    const ScanInput scan =
        open_scan(job.input, job.dataset, job.no_mask || !job.mask_spec.empty() ? NexusMask::skip : NexusMask::read);
    OutputInfo info;
    info.command_line = job.command_line;
    info.input_file = job.input;
    info.cut = job.cut;
    info.ni = scan.ni;
    info.nj = scan.nj;
    info.type = scan.type;
    const std::vector<std::uint8_t> use = choose_mask(job, scan, info.mask_source);
    IntegrationMatrix matrix;
    if (!job.matrix_spec.empty()) {
        matrix = read_matrix_file(job.matrix_spec);
        if (job.acc == Accumulator::i64) matrix = fixed_point_matrix(matrix, scan.type);
        info.bins = matrix.bins;
        info.acc = job.acc;
        info.powder_scale = matrix.fixed_point() ? matrix.powder_scale : 1;
    }
    std::size_t a = 0, b = 0;
    frame_range(job.frames_spec, scan.frames, a, b);
    const Decoder decoder = make_decoder(job, scan, use, job.matrix_spec.empty() ? nullptr : &matrix);
    SparseOutput out(job.output, info);

    SparseSummary summary;
    summary.decoder = decoder.name;
    Progress progress(b - a, job.quiet);
    std::size_t offset = 0;  // scan frame of the dataset's first frame
    for (std::size_t d = 0; d < scan.datasets.size() && !summary.interrupted; offset += scan.datasets[d].frames, ++d) {
        const std::size_t la = std::max(a, offset) - offset, lb = std::min(b, offset + scan.datasets[d].frames);
        if (lb <= offset || la >= lb - offset) continue;
        const std::size_t local_end = lb - offset;
        {
            const h5::Lock h5lock;
            out.begin_group(scan.datasets[d].path, local_end - la);
        }
        ChunkReader reader(scan, d, la, local_end);
        std::size_t first = 0;
        std::vector<std::vector<std::uint8_t>> chunks;
        while (reader.next(first, chunks)) {
            const std::vector<ByteView> views(chunks.begin(), chunks.end());
            IntegratedBatch result;
            try {
                result = decoder.run(views);
            } catch (const Error& e) {
                rethrow_with_frame(e, scan, d, first);
            }
            {
                const h5::Lock h5lock;
                out.append(result.sparse, info.bins ? &result.powder : nullptr, views.size());
            }
            for (std::size_t f = 0; f < views.size(); ++f) summary.pixels += result.sparse.npixels[f];
            summary.frames += views.size();
            progress.update(summary.frames);
            if (stop) {
                summary.interrupted = true;
                break;
            }
        }
        const h5::Lock h5lock;
        out.close_group(!summary.interrupted);
    }
    progress.finish();
    summary.decoded_bytes = static_cast<double>(summary.frames) * scan.ni * scan.nj * pixel_size(scan.type);
    summary.seconds = progress.seconds();
    return summary;
}

}  // namespace bslz4::tool
