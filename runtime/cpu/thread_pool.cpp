#include "thread_pool.hpp"

#include <algorithm>
#include <system_error>
#include <utility>

#include "bslz4/cpu_count.hpp"

namespace bslz4::detail {

ThreadPool::ThreadPool(unsigned threads) {
    if (threads == 0) threads = usable_cpu_count();
    for (unsigned w = 1; w < threads; ++w) {
        try {
            threads_.emplace_back([this, w] { worker_loop(w); });
        } catch (const std::system_error&) {
            break;  // the system starts no more threads (a pids limit, say): work with those it started
        }
    }
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    start_.notify_all();
    for (auto& t : threads_) t.join();
}

void ThreadPool::work(unsigned worker) {
    for (;;) {
        std::size_t t;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (next_ >= n_tasks_) return;
            t = next_++;
        }
        try {
            (*task_)(t, worker);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_ || t < error_task_) {
                error_ = std::current_exception();
                error_task_ = t;
            }
        }
    }
}

void ThreadPool::worker_loop(unsigned worker) {
    std::size_t seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            // Only as many workers as the call has tasks for join it; the others sleep on, so a
            // call of a few tasks waits for a few check-ins, not for every worker's.
            start_.wait(lock, [&] { return stop_ || (generation_ != seen && joining_ > 0); });
            if (stop_) return;
            seen = generation_;
            --joining_;
        }
        work(worker);
        std::lock_guard<std::mutex> lock(mutex_);
        if (--busy_ == 0) done_.notify_all();
    }
}

void ThreadPool::run(std::size_t n, const Task& task) {
    unsigned helpers = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        task_ = &task;
        n_tasks_ = n;
        next_ = 0;
        error_ = nullptr;
        helpers = static_cast<unsigned>(std::min<std::size_t>(threads_.size(), n > 0 ? n - 1 : 0));
        busy_ = helpers;
        joining_ = helpers;
        ++generation_;
    }
    // Every sleeping worker is woken (a notify_one could wake one that has just finished this
    // call and leave a place unfilled); those not needed go back to sleep without holding it up.
    if (helpers) start_.notify_all();
    work(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace bslz4::detail
