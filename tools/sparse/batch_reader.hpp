// Reads a dataset's chunks batch by batch into a ring of large buffers, by a few threads: each
// batch's chunks lie in one buffer, read with one positional read (pread) per run of chunks that
// are contiguous in the file, whatever order the file holds them in. Batches come out in frame
// order; a ring slot is reused once its batch is given back, so host memory stays bounded
// (slots x the largest batch) whatever the scan's length. Several decoders may take batches at
// once (one a GPU) and give them back in any order. Where the chunk index has no addresses (see
// chunk_index.hpp) the same threads read the chunks through HDF5, under its lock. A virtual
// dataset's chunks lie in several files: each is opened once, and runs never cross files.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "hdf5/chunk_index.hpp"

namespace bslz4::tool {

// The memory of a ring slot: pinned when decoding on the GPU (DMA from there), ordinary on the CPU.
class SlotMemory {
public:
    virtual ~SlotMemory() = default;
    virtual std::uint8_t* data() = 0;
};
using MakeSlotMemory = std::function<std::unique_ptr<SlotMemory>(std::size_t bytes)>;
std::unique_ptr<SlotMemory> ordinary_memory(std::size_t bytes);

// A slot's memory is made when a reader first fills it, on that reader's thread: pinning a
// slot costs about as much as reading it, so the first batches are read (and decoded) while the
// later slots are still being pinned, rather than after all of them.
class BufferRing {
public:
    BufferRing(std::size_t slots, std::size_t bytes, MakeSlotMemory make);
    std::size_t slots() const { return slots_.size(); }
    std::size_t bytes() const { return bytes_; }
    // Slot k's memory, made at the first call for k (calls for different k may run at once).
    std::uint8_t* slot(std::size_t k);
    // Seconds spent making slot memory so far (summed over the threads that made it).
    double making_seconds() const;

private:
    std::size_t bytes_;
    MakeSlotMemory make_;
    std::vector<std::unique_ptr<SlotMemory>> slots_;
    std::unique_ptr<std::once_flag[]> made_;
    mutable std::mutex m_;
    double making_seconds_ = 0;
};

// The most bytes one batch of `batch_frames` frames of the index takes in a slot.
std::size_t largest_batch_bytes(const ChunkIndex& index, std::size_t batch_frames);

// A batch in a ring slot: frames first .. first + lengths.size() - 1 of the index's numbering.
struct ReadBatch {
    std::size_t number = 0;  // 0, 1, ... in frame order
    std::size_t first = 0;
    const std::uint8_t* base = nullptr;
    std::size_t size = 0;  // bytes of base holding chunks
    std::vector<std::uint64_t> offsets, lengths;  // per frame, into base
    std::vector<std::uint32_t> filter_masks;
    std::exception_ptr error;  // reading this batch failed (nothing above is valid then)
};

class BatchReader {
public:
    // ring.bytes() must hold largest_batch_bytes(index, batch_frames).
    BatchReader(const ChunkIndex& index, BufferRing& ring, std::size_t batch_frames, unsigned threads);
    ~BatchReader();
    BatchReader(const BatchReader&) = delete;
    BatchReader& operator=(const BatchReader&) = delete;
    std::size_t batches() const { return batches_; }
    // The next batch in frame order, once read: each call (from any thread) its own batch. A
    // batch whose reading failed comes with its error set. False at the end, after cancel(), or
    // when an earlier batch failed (its taker reports that error).
    bool take(ReadBatch& batch);
    // The batch's slot may be read into again. Batches may be given back in any order.
    void give_back(const ReadBatch& batch);
    // Takes waiting now or later return false.
    void cancel();
    // Seconds the reader threads spent reading so far, summed over them (the bench's "busy"): the
    // reads, and for chunks read through HDF5 the waits for its lock; not the ring's slots made.
    double reading_seconds();

private:
    void work();
    void stop();  // cancels the readers, joins them and closes the file
    void read_batch(std::size_t n, ReadBatch& into);
    const ChunkIndex& index_;
    BufferRing& ring_;
    std::size_t batch_frames_, batches_;
    std::vector<int> fds_;  // per file of the index; -1 where no chunk is read by position
    std::mutex m_;
    std::condition_variable cv_;
    std::size_t claimed_ = 0;   // batches the reader threads have started
    std::size_t taken_ = 0;     // batches handed to takers
    std::size_t released_ = 0;  // every batch before this one is given back
    std::set<std::size_t> given_back_;  // batches given back at or after released_
    bool cancel_ = false;
    std::vector<ReadBatch> slots_;
    std::vector<std::size_t> ready_;  // per slot: the batch it holds, or SIZE_MAX
    std::map<std::size_t, std::exception_ptr> errors_;
    double reading_seconds_ = 0;
    std::vector<std::thread> threads_;
};

}  // namespace bslz4::tool
