// A fixed set of worker threads that run the tasks of one call at a time (frames of a batch),
// the calling thread working too. The error reported is that of the lowest failing task, so
// a batch's error does not depend on thread timing.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace bslz4::detail {

class ThreadPool {
public:
    using Task = std::function<void(std::size_t task, unsigned worker)>;

    explicit ThreadPool(unsigned threads);  // 0: every CPU the process may use (usable_cpu_count)
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }
    // Runs task(t, worker) for t in [0, n), worker in [0, size()); rethrows the lowest
    // failing task's exception once all have run.
    void run(std::size_t n, const Task& task);

private:
    void work(unsigned worker);
    void worker_loop(unsigned worker);

    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable start_, done_;
    const Task* task_ = nullptr;
    std::size_t n_tasks_ = 0;
    std::size_t next_ = 0;
    unsigned busy_ = 0;     // workers in the current call, not yet done
    unsigned joining_ = 0;  // places in the current call no worker has taken yet
    std::size_t generation_ = 0;
    bool stop_ = false;
    std::size_t error_task_ = 0;
    std::exception_ptr error_;
};

}  // namespace bslz4::detail
