// Reads a dataset's chunks batch by batch into a ring of large buffers, by a few threads: each
// batch's chunks lie in one buffer, read with one positional read (pread) per run of chunks that
// are contiguous in the file, whatever order the file holds them in. Batches come out in frame
// order; a ring slot is reused once its batch is given back, so host memory stays bounded
// (slots x the largest batch) whatever the scan's length. Where the chunk index has no addresses
// (see chunk_index.hpp) the same threads read the chunks through HDF5, under its lock.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
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

class BufferRing {
public:
    BufferRing(std::size_t slots, std::size_t bytes, const MakeSlotMemory& make);
    std::size_t slots() const { return slots_.size(); }
    std::size_t bytes() const { return bytes_; }
    std::uint8_t* slot(std::size_t k) const { return slots_[k]->data(); }

private:
    std::size_t bytes_;
    std::vector<std::unique_ptr<SlotMemory>> slots_;
};

// The most bytes one batch of `batch_frames` frames of the index takes in a slot.
std::size_t largest_batch_bytes(const ChunkIndex& index, std::size_t batch_frames);

// A batch in a ring slot: frames first .. first + lengths.size() - 1 of the index's numbering.
struct ReadBatch {
    std::size_t first = 0;
    const std::uint8_t* base = nullptr;
    std::size_t size = 0;  // bytes of base holding chunks
    std::vector<std::uint64_t> offsets, lengths;  // per frame, into base
    std::vector<std::uint32_t> filter_masks;
};

class BatchReader {
public:
    // ring.bytes() must hold largest_batch_bytes(index, batch_frames).
    BatchReader(const ChunkIndex& index, BufferRing& ring, std::size_t batch_frames, unsigned threads);
    ~BatchReader();
    BatchReader(const BatchReader&) = delete;
    BatchReader& operator=(const BatchReader&) = delete;
    // The next batch in frame order (the previous one's slot is given back); false at the end.
    // Rethrows the error of the batch it reaches, so errors come in frame order.
    bool next(ReadBatch& batch);

private:
    void work();
    void stop();  // cancels the readers, joins them and closes the file
    void read_batch(std::size_t n, ReadBatch& into);
    const ChunkIndex& index_;
    BufferRing& ring_;
    std::size_t batch_frames_, batches_;
    int fd_ = -1;
    std::mutex m_;
    std::condition_variable cv_;
    std::size_t claimed_ = 0, released_ = 0;
    bool holding_ = false, cancel_ = false;
    std::vector<ReadBatch> slots_;
    std::vector<std::size_t> ready_;  // per slot: the batch it holds, or SIZE_MAX
    std::map<std::size_t, std::exception_ptr> errors_;
    std::vector<std::thread> threads_;
};

}  // namespace bslz4::tool
