// The output's HDF5 writes on a thread of their own, in the order given, so that decoding never
// waits for them: the decoding thread hands a batch's rows over and goes on, and waits only
// when `depth` writes are already queued (host memory stays bounded). Each write holds h5::Lock.
// A write's failure is rethrown to the decoding thread by its next call.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "hdf5/sparse_output.hpp"

namespace bslz4::tool {

class OutputWriter {
public:
    OutputWriter(SparseOutput& out, std::size_t depth);
    // Drops what is still queued (finish() writes it): called while an exception unwinds, the
    // output is removed anyway.
    ~OutputWriter();
    OutputWriter(const OutputWriter&) = delete;
    OutputWriter& operator=(const OutputWriter&) = delete;

    void begin_group(const std::string& dataset_path, std::size_t frames);
    void append(OutputRows rows);
    void close_group(bool complete);
    // Returns once everything queued is written; rethrows a write's failure.
    void finish();
    // Seconds the thread spent writing so far (the bench's "busy").
    double writing_seconds();

private:
    void push(std::function<void()> write);
    void work();
    SparseOutput& out_;
    std::size_t depth_;
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> queue_;
    bool busy_ = false, cancel_ = false;
    double writing_seconds_ = 0;
    std::exception_ptr error_;
    std::thread thread_;  // last: starts once the rest is built
};

}  // namespace bslz4::tool
