#include "sparse/output_writer.hpp"

#include <chrono>
#include <memory>
#include <utility>

namespace bslz4::tool {

OutputWriter::OutputWriter(SparseOutput& out, std::size_t depth) : out_(out), depth_(depth), thread_([this] { work(); }) {}

OutputWriter::~OutputWriter() {
    {
        std::lock_guard<std::mutex> lock(m_);
        cancel_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void OutputWriter::begin_group(const std::string& dataset_path, std::size_t frames) {
    push([this, dataset_path, frames] { out_.begin_group(dataset_path, frames); });
}

void OutputWriter::append(OutputRows rows) {
    auto held = std::make_shared<OutputRows>(std::move(rows));  // std::function needs a copyable callable
    push([this, held] { out_.append(*held); });
}

void OutputWriter::close_group(bool complete) {
    push([this, complete] { out_.close_group(complete); });
}

void OutputWriter::finish() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return (queue_.empty() && !busy_) || error_; });
    if (error_) std::rethrow_exception(error_);
}

double OutputWriter::writing_seconds() {
    std::lock_guard<std::mutex> lock(m_);
    return writing_seconds_;
}

void OutputWriter::push(std::function<void()> write) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return queue_.size() < depth_ || error_; });
    if (error_) std::rethrow_exception(error_);
    queue_.push_back(std::move(write));
    cv_.notify_all();
}

void OutputWriter::work() {
    for (;;) {
        std::function<void()> write;
        {
            std::unique_lock<std::mutex> lock(m_);
            cv_.wait(lock, [&] { return !queue_.empty() || cancel_; });
            if (cancel_) return;
            write = std::move(queue_.front());
            queue_.pop_front();
            busy_ = true;
        }
        std::exception_ptr error;
        auto t0 = std::chrono::steady_clock::now();
        try {
            const h5::Lock h5lock;
            t0 = std::chrono::steady_clock::now();  // not the wait for the lock (readers through HDF5 hold it)
            write();
        } catch (...) {
            error = std::current_exception();
        }
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
        std::lock_guard<std::mutex> lock(m_);
        writing_seconds_ += took.count();
        busy_ = false;
        if (error) {
            error_ = error;
            queue_.clear();
        }
        cv_.notify_all();
        if (error) return;
    }
}

}  // namespace bslz4::tool
