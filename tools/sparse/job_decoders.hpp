// The decoders of bslz4 sparse's conveyor: where the job decodes (the CPU, or these GPUs with
// so many objects each), each decoder behind one interface, and their making on threads of their
// own while the job reads its chunk index and matrix.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/chunk2sparse_csc.hpp"
#include "bslz4/integration_matrix.hpp"
#include "bslz4/powder.hpp"
#include "hdf5/scan_input.hpp"
#include "sparse/batch_reader.hpp"
#include "sparse/sparse_job.hpp"

namespace bslz4::tool {

// Frames a batch: what the ring's slots hold and a decoder's call takes.
constexpr std::size_t kBatchFrames = 64;

// A decoder of the ring's batches: the CPU class, or one GPU object, behind one call.
class ChunkDecoder {
public:
    explicit ChunkDecoder(std::string name) : name_(std::move(name)) {}
    virtual ~ChunkDecoder() = default;
    ChunkDecoder(const ChunkDecoder&) = delete;
    ChunkDecoder& operator=(const ChunkDecoder&) = delete;
    const std::string& name() const { return name_; }
    // The chunks at `offsets` (`lengths` bytes each) of base, decoded, listed and integrated.
    virtual IntegratedBatch decode(ByteView base, const std::vector<std::uint64_t>& offsets,
                                   const std::vector<std::uint64_t>& lengths) = 0;

private:
    std::string name_;
};

// Lists frames whose chunk holds the raw pixels (bitshuffle skipped), on the host: the CPU class.
class DenseLister {
public:
    virtual ~DenseLister() = default;
    virtual IntegratedBatch list(const std::vector<ByteView>& frames) = 0;
};
std::unique_ptr<DenseLister> make_dense_lister(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use,
                                               const IntegrationMatrix* matrix);

// Where the job decodes: on the CPU, or on these GPUs, with job.objects_per_gpu decoders each.
struct Placement {
    bool gpu = false;
    std::vector<int> devices;
    std::vector<int> decoders;  // the device of each decoder (-1: the CPU)
    // Of those, the ones added so that labelling peaks keeps up: a decoder labels after its
    // batch's ring slot is given back, so each of these adds one slot to the ring, not two.
    std::size_t labelling_decoders = 0;
};
Placement place(const SparseJob& job, const ScanInput& scan);
// Whether the decoders' threads label the peaks (--peaks on GPUs, no spot filter to cut the lists
// first); else the collector does. place() counts a decoder more for it.
bool decoders_label_peaks(const SparseJob& job, bool gpu);

// The memory of the ring's slots: pinned (for DMA) when decoding on GPUs with job.pinned_ring.
MakeSlotMemory slot_memory(const SparseJob& job, const Placement& where);

// The decoders are made on threads of their own (a GPU's first object makes its context, loads
// the kernels and takes its buffers, then grows them for the largest batch once the chunk index
// says how large: fixed costs worth hiding behind the index's read and the first batches' reads),
// each GPU's at the same time as the others'. They wait for the matrix (read while the first
// batches are; a GPU object is made first and takes the matrix once it is read) and for the
// index's largest batch.
class DecodersInTheMaking {
public:
    DecodersInTheMaking(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use, const Placement& where);
    // Left before the index or the matrix was read (an error on the way): the decoders' threads
    // stop waiting for them, so that made_'s futures, which wait for those threads, can finish.
    ~DecodersInTheMaking();
    DecodersInTheMaking(const DecodersInTheMaking&) = delete;
    DecodersInTheMaking& operator=(const DecodersInTheMaking&) = delete;
    // The largest batch's bytes, once the chunk index is read: the GPU decoders reserve for it.
    void index_read(std::size_t largest_batch_bytes);
    // The index could not be read: the decoders waiting for it stop (their failure is not reported).
    void index_failed(std::exception_ptr why);
    // The matrix the decoders sum with (null: none), once read: they wait for it.
    void matrix_ready(const IntegrationMatrix* m);
    void matrix_failed(std::exception_ptr why);
    // Waits for them all; rethrows the first failure.
    std::vector<std::shared_ptr<ChunkDecoder>> get();
    // The longest any took, in seconds, from the start.
    double seconds();

private:
    std::chrono::steady_clock::time_point t0_;
    std::mutex m_;
    double longest_ = 0;
    std::promise<std::size_t> batch_bytes_;  // these two outlive the threads that wait on them (made_ goes first)
    std::promise<const IntegrationMatrix*> matrix_;
    bool answered_ = false, matrix_answered_ = false;
    std::vector<std::future<std::shared_ptr<ChunkDecoder>>> made_;
};

}  // namespace bslz4::tool
