#include "sparse/run_on_threads.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace bslz4::tool {

void run_on_threads(std::size_t n, unsigned threads, const std::function<void(std::size_t)>& work) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex m;
    auto loop = [&] {
        for (std::size_t k; (k = next++) < n;) {
            try {
                work(k);
            } catch (...) {
                std::lock_guard<std::mutex> lock(m);
                if (!error) error = std::current_exception();
                next = n;
            }
        }
    };
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < threads && t < n; ++t) {
        try {
            helpers.emplace_back(loop);
        } catch (const std::system_error&) {
            break;  // fewer threads: the work is still done
        }
    }
    loop();
    for (std::thread& h : helpers) h.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace bslz4::tool
