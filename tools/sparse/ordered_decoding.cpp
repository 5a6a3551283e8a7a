#include "sparse/ordered_decoding.hpp"

#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "bslz4/error.hpp"

namespace bslz4::tool {

namespace {

struct Decoded {
    OutputRows rows;
    std::exception_ptr error;
};

class Decoders {
public:
    Decoders(BatchReader& reader, std::size_t window, const DecodeBatch& decode, const FinishRows& finish)
        : reader_(reader), window_(window), decode_(decode), finish_(finish) {}
    ~Decoders() { stop(); }

    void start(std::size_t decoders) {
        try {
            for (std::size_t k = 0; k < decoders; ++k) threads_.emplace_back([this, k] { work(k); });
        } catch (const std::system_error& e) {
            stop();
            // The system's threads (memory for their stacks, a pids limit) are what ran out.
            throw Error(ErrorCode::out_of_memory, "cannot start decoding thread " + std::to_string(threads_.size() + 1) + " of " +
                        std::to_string(decoders) + ": " + e.what());
        }
    }

    // Batch n once decoded (or failed).
    Decoded wait_for(std::size_t n) {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return done_.count(n) > 0; });
        Decoded d = std::move(done_[n]);
        done_.erase(n);
        ++sunk_;
        lock.unlock();
        cv_.notify_all();
        return d;
    }

    void stop() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stopping_ = true;
        }
        cv_.notify_all();
        reader_.cancel();
        for (std::thread& t : threads_) t.join();
        threads_.clear();
    }

private:
    void work(std::size_t k) {
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(m_);
                cv_.wait(lock, [&] { return stopping_ || taken_ < sunk_ + window_; });
                if (stopping_) return;
                ++taken_;
            }
            ReadBatch batch;
            if (!reader_.take(batch)) return;
            Decoded d;
            d.error = batch.error;
            if (!d.error) {
                try {
                    d.rows = decode_(batch, k);
                } catch (...) {
                    d.error = std::current_exception();
                }
            }
            const std::size_t number = batch.number, first = batch.first;
            reader_.give_back(batch);
            if (!d.error && finish_) {
                try {
                    finish_(d.rows, first, k);
                } catch (...) {
                    d.error = std::current_exception();
                }
            }
            {
                std::lock_guard<std::mutex> lock(m_);
                // Every batch before this one is taken already, so each still comes back.
                if (d.error) stopping_ = true;
                done_.emplace(number, std::move(d));
            }
            cv_.notify_all();
        }
    }

    BatchReader& reader_;
    std::size_t window_;
    const DecodeBatch& decode_;
    const FinishRows& finish_;
    std::mutex m_;
    std::condition_variable cv_;
    std::size_t taken_ = 0, sunk_ = 0;
    bool stopping_ = false;
    std::map<std::size_t, Decoded> done_;
    std::vector<std::thread> threads_;
};

}  // namespace

bool decode_in_order(BatchReader& reader, std::size_t decoders, std::size_t window, const DecodeBatch& decode,
                     const SinkRows& sink, const FinishRows& finish) {
    Decoders d(reader, std::max<std::size_t>(window, 1), decode, finish);
    d.start(std::max<std::size_t>(decoders, 1));
    for (std::size_t n = 0; n < reader.batches(); ++n) {
        Decoded batch = d.wait_for(n);
        if (batch.error) {
            d.stop();
            std::rethrow_exception(batch.error);
        }
        if (!sink(std::move(batch.rows))) return false;  // ~Decoders stops the others
    }
    return true;
}

}  // namespace bslz4::tool
