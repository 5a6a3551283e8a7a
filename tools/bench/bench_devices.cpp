#include "bench/bench_devices.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bench/pinned_chunks.hpp"
#endif

namespace bslz4::tool {

namespace {

using Clock = std::chrono::steady_clock;

// Holds each thread until all have arrived, so that the GPUs' measurements overlap.
class StartLine {
public:
    explicit StartLine(std::size_t threads) : waiting_(threads) {}
    void arrive_and_wait() {
        std::unique_lock<std::mutex> lock(m_);
        if (--waiting_ == 0) {
            cv_.notify_all();
            return;
        }
        cv_.wait(lock, [&] { return waiting_ == 0; });
    }
    // A thread that failed before the line lets the others go without it.
    void leave() {
        std::lock_guard<std::mutex> lock(m_);
        if (--waiting_ == 0) cv_.notify_all();
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    std::size_t waiting_;
};

// One timed run: frames done, and when it started and ended.
struct Timed {
    double frames_per_s = 0;
    std::size_t frames = 0;
    Clock::time_point start, end;
};

// Runs measure(device, start_line) on a thread per device; rethrows the first failure.
template <class Measure>
std::vector<Timed> on_every_device(const std::vector<int>& devices, Measure&& measure) {
    std::vector<Timed> out(devices.size());
    std::vector<std::exception_ptr> errors(devices.size());
    StartLine line(devices.size());
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < devices.size(); ++k)
        threads.emplace_back([&, k] {
            bool arrived = false;
            try {
                out[k] = measure(devices[k], [&] {
                    arrived = true;
                    line.arrive_and_wait();
                });
            } catch (...) {
                errors[k] = std::current_exception();
                if (!arrived) line.leave();
            }
        });
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    return out;
}

double together(const std::vector<Timed>& runs) {
    Clock::time_point first = runs[0].start, last = runs[0].end;
    std::size_t frames = 0;
    for (const Timed& r : runs) {
        first = std::min(first, r.start);
        last = std::max(last, r.end);
        frames += r.frames;
    }
    return frames / std::chrono::duration<double>(last - first).count();
}

void print_each(const char* what, const std::vector<int>& devices, const std::vector<Timed>& runs, double sum, double all,
                double one) {
    std::printf("%s\n", what);
    for (std::size_t k = 0; k < devices.size(); ++k)
        std::printf("  gpu %d %27s %9.0f frames/s\n", devices[k], "", runs[k].frames_per_s);
    std::printf("  %-34s %9.0f frames/s  = %.2f x one GPU alone (%.0f)\n", "sum of the GPUs' own rates", sum, sum / one, one);
    std::printf("  %-34s %9.0f frames/s  = %.2f x one GPU alone\n", "all frames / the wall time shared", all, all / one);
}

}  // namespace

SeveralGpuFigures bench_several_gpus(const EigerStack& stack, double cut, double seconds, const std::vector<int>& devices,
                                     double one_a, double one_b) {
    SeveralGpuFigures fig;
#if BSLZ4_HAVE_CUDA
    std::printf("\n%zu GPUs at once (gpus", devices.size());
    for (int d : devices) std::printf(" %d", d);
    std::printf("), a host thread each, measurements started together:\n");
    const std::vector<Timed> a = on_every_device(devices, [&](int device, auto&& start) {
        cuda::Chunk2Sparse gpu(stack.mask, stack.ni, stack.nj, stack.type, {0, 0, cuda::Unblock::gpu, device, Codec::lz4});
        const auto group = stack.views(gpu.group());
        unsigned repeats = 2;
        const double t = gpu.time_on_device(group, cut, repeats);
        repeats = static_cast<unsigned>(std::max(2.0, seconds / (t / repeats)));
        start();
        Timed r;
        r.start = Clock::now();
        const double on_device = gpu.time_on_device(group, cut, repeats);
        r.end = Clock::now();
        r.frames = group.size() * repeats;
        r.frames_per_s = r.frames / on_device;
        return r;
    });
    const std::vector<Timed> b = on_every_device(devices, [&](int device, auto&& start) {
        cuda::Chunk2Sparse gpu(stack.mask, stack.ni, stack.nj, stack.type, {0, 0, cuda::Unblock::gpu, device, Codec::lz4});
        const std::size_t nframes = 4 * gpu.group();
        const PinnedChunks pinned = pin_chunks(stack.views(nframes), device);
        gpu.from_buffer(pinned.base(), pinned.offsets, pinned.lengths, cut);  // warm-up
        start();
        Timed r;
        r.start = Clock::now();
        do {
            gpu.from_buffer(pinned.base(), pinned.offsets, pinned.lengths, cut);
            r.frames += nframes;
            r.end = Clock::now();
        } while (std::chrono::duration<double>(r.end - r.start).count() < seconds);
        r.frames_per_s = r.frames / std::chrono::duration<double>(r.end - r.start).count();
        return r;
    });
    for (const Timed& r : a) fig.a.push_back(r.frames_per_s);
    for (const Timed& r : b) fig.b.push_back(r.frames_per_s);
    for (double v : fig.a) fig.a_sum += v;
    for (double v : fig.b) fig.b_sum += v;
    fig.a_together = together(a);
    fig.b_together = together(b);
    print_each("gpu (a) chunks on the device:", devices, a, fig.a_sum, fig.a_together, one_a);
    print_each("gpu (b) from pinned host memory (each GPU its own):", devices, b, fig.b_sum, fig.b_together, one_b);
#else
    (void)stack, (void)cut, (void)seconds, (void)devices, (void)one_a, (void)one_b;
#endif
    return fig;
}

}  // namespace bslz4::tool
