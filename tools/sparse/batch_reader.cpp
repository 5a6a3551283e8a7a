#include "sparse/batch_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <system_error>

#include "sparse/positional_read.hpp"

namespace bslz4::tool {

namespace {

// Anonymous pages, not zeroed up front (the reads fill what is used), in huge pages where the
// kernel has them: a slot's first reads then fault in 2 MB at a time rather than 4 kB.
class OrdinaryMemory : public SlotMemory {
public:
    explicit OrdinaryMemory(std::size_t bytes) : bytes_(bytes ? bytes : 1) {
        void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        madvise(p, bytes_, MADV_HUGEPAGE);  // advice only: without huge pages, 4 kB pages
        data_ = static_cast<std::uint8_t*>(p);
    }
    ~OrdinaryMemory() override { munmap(data_, bytes_); }
    OrdinaryMemory(const OrdinaryMemory&) = delete;
    OrdinaryMemory& operator=(const OrdinaryMemory&) = delete;
    std::uint8_t* data() override { return data_; }

private:
    std::size_t bytes_;
    std::uint8_t* data_ = nullptr;
};

// `bytes` from `address` of the file, all of them: a short read means the file ended early.
void read_fully(int fd, std::uint8_t* to, std::uint64_t bytes, std::uint64_t address, const ChunkIndex& index, std::size_t k) {
    const PositionalRead r = read_at(fd, to, bytes, address);
    if (r.got == bytes) return;
    const std::string& path = index.files[index.sources[index.chunks[k].source].file].path;
    if (r.error) throw Error(ErrorCode::io, chunk_what(index, k) + ": cannot read " + path + ": " + std::strerror(r.error));
    throw Error(ErrorCode::truncated_chunk, chunk_what(index, k) + ": " + path + " ends at byte " + std::to_string(address + r.got) +
                                                ", before the chunk does (the file was cut short)");
}

}  // namespace

std::unique_ptr<SlotMemory> ordinary_memory(std::size_t bytes) { return std::make_unique<OrdinaryMemory>(bytes); }

BufferRing::BufferRing(std::size_t slots, std::size_t bytes, MakeSlotMemory make)
    : bytes_(bytes), make_(std::move(make)), slots_(slots), made_(std::make_unique<std::once_flag[]>(slots)) {}

std::uint8_t* BufferRing::slot(std::size_t k) {
    std::call_once(made_[k], [&] {
        const auto t0 = std::chrono::steady_clock::now();
        slots_[k] = make_(bytes_);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::lock_guard<std::mutex> lock(m_);
        making_seconds_ += s;
    });
    return slots_[k]->data();
}

double BufferRing::making_seconds() const {
    std::lock_guard<std::mutex> lock(m_);
    return making_seconds_;
}

std::size_t largest_batch_bytes(const ChunkIndex& index, std::size_t batch_frames) {
    std::uint64_t files_bytes = 0;
    for (const ChunkFile& f : index.files) files_bytes += f.bytes;
    std::size_t most = 0;
    for (std::size_t first = 0; first < index.chunks.size(); first += batch_frames) {
        std::size_t sum = 0;
        for (std::size_t k = first; k < std::min(index.chunks.size(), first + batch_frames); ++k) sum += index.chunks[k].bytes;
        // Chunks by position never overlap (read_chunk_index), and a VDS maps each source frame
        // once, so only sizes read through HDF5 can add up past the files; the buffers are never
        // sized beyond what the files hold.
        if (sum > files_bytes)
            throw Error(ErrorCode::truncated_chunk,
                        index.what + " frames " + std::to_string(index.first_frame + first) + " to " +
                        std::to_string(index.first_frame + std::min(index.chunks.size(), first + batch_frames) - 1) +
                        ": the chunk index claims " + std::to_string(sum) + " bytes for them, more than the " +
                        (index.files.size() == 1 ? std::to_string(files_bytes) + "-byte file holds"
                                                 : std::to_string(files_bytes) + " bytes its " + std::to_string(index.files.size()) +
                                                       " files hold"));
        most = std::max(most, sum);
    }
    return most;
}

BatchReader::BatchReader(const ChunkIndex& index, BufferRing& ring, std::size_t batch_frames, unsigned threads)
    : index_(index),
      ring_(ring),
      batch_frames_(batch_frames),
      batches_((index.chunks.size() + batch_frames - 1) / batch_frames),
      fds_(index.files.size(), -1),
      slots_(ring.slots()),
      ready_(ring.slots(), SIZE_MAX) {
    for (const ChunkSource& source : index.sources) {
        if (!source.by_position || fds_[source.file] >= 0) continue;
        const std::string& path = index.files[source.file].path;
        fds_[source.file] = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fds_[source.file] < 0) {
            const int error = errno;
            stop();
            throw Error(ErrorCode::io, source.what + ": cannot open " + path + " to read its chunks: " + std::strerror(error));
        }
    }
    try {
        for (unsigned t = 0; t < std::max(1u, threads); ++t) threads_.emplace_back([this] { work(); });
    } catch (const std::system_error& e) {  // a thread the system would not start (a pids limit, say)
        stop();
        // The system's threads (memory for their stacks, a pids limit) are what ran out.
        throw Error(ErrorCode::out_of_memory, index.what + ": cannot start reader thread " + std::to_string(threads_.size() + 1) +
                                                  " of " + std::to_string(std::max(1u, threads)) + ": " + e.what() +
                                                  " (give fewer with --readers)");
    }
}

BatchReader::~BatchReader() { stop(); }

void BatchReader::stop() {
    {
        std::lock_guard<std::mutex> lock(m_);
        cancel_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
    for (int& fd : fds_) {
        if (fd >= 0) close(fd);
        fd = -1;
    }
}

void BatchReader::work() {
    for (;;) {
        std::size_t n = 0;
        {
            std::unique_lock<std::mutex> lock(m_);
            // after a failed batch no later one is started: the reader stops there
            if (cancel_ || claimed_ >= batches_ || (!errors_.empty() && errors_.begin()->first < claimed_)) return;
            n = claimed_++;
            // slot n % slots is free once every batch up to n - slots is given back
            cv_.wait(lock, [&] { return cancel_ || n < released_ + ring_.slots(); });
            if (cancel_) return;
        }
        ReadBatch batch;
        std::exception_ptr error;
        auto t0 = std::chrono::steady_clock::now();
        try {
            ring_.slot(n % ring_.slots());  // made at its first use: timed as the ring's, not as reading
            t0 = std::chrono::steady_clock::now();
            read_batch(n, batch);
        } catch (...) {
            error = std::current_exception();
        }
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
        std::lock_guard<std::mutex> lock(m_);
        reading_seconds_ += took.count();
        if (error) {
            errors_[n] = error;
        } else {
            slots_[n % ring_.slots()] = std::move(batch);
            ready_[n % ring_.slots()] = n;
        }
        cv_.notify_all();
    }
}

void BatchReader::read_batch(std::size_t n, ReadBatch& into) {
    const std::size_t first = n * batch_frames_, count = std::min(batch_frames_, index_.chunks.size() - first);
    std::uint8_t* base = ring_.slot(n % ring_.slots());
    into.number = n;
    into.first = index_.first_frame + first;
    into.base = base;
    into.offsets.assign(count, 0);
    into.lengths.assign(count, 0);
    into.filter_masks.assign(count, 0);
    // Chunks without addresses through HDF5; the others by position, below.
    std::uint64_t at = 0;
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < count; ++k) {
        const ChunkLocation& c = index_.chunks[first + k];
        const ChunkSource& source = index_.sources[c.source];
        if (source.by_position) {
            order.push_back(k);
            continue;
        }
        const hsize_t offset[3] = {c.source_frame, 0, 0};
        into.offsets[k] = at;
        into.lengths[k] = c.bytes;
        const h5::Lock lock;
        if (c.bytes && H5Dread_chunk(source.dataset, H5P_DEFAULT, offset, &into.filter_masks[k], base + at) < 0)
            throw h5::failure(chunk_what(index_, first + k) + ": direct chunk read failed");
        at += c.bytes;
    }
    // In each file's order, so that chunks stored back to back (in any frame order) are one read.
    const auto file_of = [&](std::size_t k) { return index_.sources[index_.chunks[first + k].source].file; };
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return std::make_pair(file_of(x), index_.chunks[first + x].address) < std::make_pair(file_of(y), index_.chunks[first + y].address);
    });
    for (std::size_t r = 0; r < order.size();) {
        const ChunkLocation& start = index_.chunks[first + order[r]];
        const std::size_t file = file_of(order[r]);
        std::uint64_t run = 0;
        std::size_t end = r;
        for (; end < order.size(); ++end) {
            const ChunkLocation& c = index_.chunks[first + order[end]];
            if (file_of(order[end]) != file || c.address != start.address + run) break;
            into.offsets[order[end]] = at + run;
            into.lengths[order[end]] = c.bytes;
            into.filter_masks[order[end]] = c.filter_mask;
            run += c.bytes;
        }
        read_fully(fds_[file], base + at, run, start.address, index_, first + order[r]);
        at += run;
        r = end;
    }
    into.size = at;
}

bool BatchReader::take(ReadBatch& batch) {
    std::unique_lock<std::mutex> lock(m_);
    if (cancel_ || taken_ >= batches_) return false;
    const std::size_t n = taken_++;
    const auto earlier_failed = [&] { return !errors_.empty() && errors_.begin()->first < n; };
    cv_.wait(lock, [&] { return cancel_ || ready_[n % ring_.slots()] == n || errors_.count(n) || earlier_failed(); });
    if (cancel_ || (!errors_.count(n) && earlier_failed())) return false;
    if (errors_.count(n)) {
        batch = ReadBatch{};
        batch.number = n;
        batch.error = errors_[n];
        return true;
    }
    batch = slots_[n % ring_.slots()];
    return true;
}

void BatchReader::give_back(const ReadBatch& batch) {
    if (batch.error) return;  // it holds no slot
    {
        std::lock_guard<std::mutex> lock(m_);
        ready_[batch.number % ring_.slots()] = SIZE_MAX;
        given_back_.insert(batch.number);
        while (!given_back_.empty() && *given_back_.begin() == released_) {
            given_back_.erase(given_back_.begin());
            ++released_;
        }
    }
    cv_.notify_all();
}

double BatchReader::reading_seconds() {
    std::lock_guard<std::mutex> lock(m_);
    return reading_seconds_;
}

void BatchReader::cancel() {
    {
        std::lock_guard<std::mutex> lock(m_);
        cancel_ = true;
    }
    cv_.notify_all();
}

}  // namespace bslz4::tool
