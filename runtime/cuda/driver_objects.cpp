#include "driver_objects.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <new>

#include "library_log.hpp"

namespace bslz4::cuda::detail {

std::string megabytes(std::size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return text;
}

namespace {

// "GPU 0 has 3.1 MB free of 150021.3 MB", for out-of-memory messages ("" if the driver cannot say).
std::string free_memory_note() {
    std::size_t free = 0, total = 0;
    CUdevice dev = 0;
    if (driver().cuMemGetInfo(&free, &total) != CUDA_SUCCESS || driver().cuCtxGetDevice(&dev) != CUDA_SUCCESS) return "";
    return " (GPU " + std::to_string(dev) + " has " + megabytes(free) + " free of " + megabytes(total) + ")";
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes, const char* what) : size_(bytes) {
    CUdeviceptr p = 0;
    const CUresult r = driver().cuMemAlloc(&p, bytes ? bytes : 1);
    if (r != CUDA_SUCCESS) {
        const std::string call = std::string("cuMemAlloc(") + what + ", " + megabytes(bytes) + ")";
        throw CudaError(r, failure_text(r, call) + (r == CUDA_ERROR_OUT_OF_MEMORY ? free_memory_note() : ""));
    }
    mem_ = DriverHandle<CUdeviceptr, DeviceMemoryRelease>(p);
}

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Buffers from one huge page on are RegisteredMemory (on the H200 host 2 to 3 times quicker to
// make than cuMemHostAlloc's from 1 MB up, and 6 times for four threads at once, which
// cuMemHostAlloc serialises); smaller ones are not worth a mapping of their own.
constexpr std::size_t kRegisterFrom = kHugePage;

// A refusal to lock memory (a host short of lockable memory, a driver that will not), which
// falls back; any other failure (no context, a broken one) is an error.
bool refusal(CUresult r) {
    return r == CUDA_ERROR_OUT_OF_MEMORY || r == CUDA_ERROR_NOT_PERMITTED || r == CUDA_ERROR_NOT_SUPPORTED ||
           r == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
}

}  // namespace

bool RegisteredRelease::release(MappedRange r) {
    // Unlocked first: unmapping locked pages would leave the driver's record of them dangling.
    // Where the driver has no record left (deinitialised, or its context reset by someone
    // else), the mapping still goes; after any other failure it stays, and the failure is logged.
    const CUresult u = driver().cuMemHostUnregister(r.data);
    if (u == CUDA_SUCCESS || u == CUDA_ERROR_DEINITIALIZED || u == CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
        munmap(r.data, r.bytes);
    return u == CUDA_SUCCESS;
}

namespace {

// Memory the system says it can give without swapping (MemAvailable), or 0 when it does not say.
std::size_t memory_available() {
    std::FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    std::fclose(f);
    return static_cast<std::size_t>(kb) * 1024;
}

}  // namespace

RegisteredMemory register_mapped(std::size_t bytes, const char* what) {
    const std::size_t mapped = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    // Faulting in what the system cannot give would bring the OOM killer, where cuMemHostAlloc
    // (asked instead) refuses and the buffer falls back to pageable memory.
    const std::size_t available = memory_available();
    if (mapped < bytes || (available != 0 && mapped > available / 2)) return {};
    // One huge page more than needed, so the range can start on a huge-page boundary (kernels
    // before 6.7 do not align large anonymous mappings).
    void* raw = mmap(nullptr, mapped + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return {};  // cuMemHostAlloc decides
    auto* start = static_cast<std::uint8_t*>(raw);
    const std::size_t head = (kHugePage - reinterpret_cast<std::uintptr_t>(start) % kHugePage) % kHugePage;
    if (head) munmap(start, head);
    if (kHugePage - head) munmap(start + head + mapped, kHugePage - head);
    std::uint8_t* p = start + head;
    (void)madvise(p, mapped, MADV_HUGEPAGE);  // a hint: without huge pages it still works, slower
    // Not copied into a forked child (as cuMemHostAlloc's memory is not): a fork would otherwise
    // copy every locked byte at once.
    (void)madvise(p, mapped, MADV_DONTFORK);
    // Faulted in before the driver locks it: a write a page (one fault a huge page).
    const long page = sysconf(_SC_PAGESIZE);
    const std::size_t step = page > 0 ? static_cast<std::size_t>(page) : 4096;
    auto* at = static_cast<volatile std::uint8_t*>(p);
    for (std::size_t b = 0; b < mapped; b += step) at[b] = 0;
    const CUresult r = driver().cuMemHostRegister(p, mapped, CU_MEMHOSTREGISTER_PORTABLE);
    if (r != CUDA_SUCCESS) {
        munmap(p, mapped);
        if (!refusal(r)) check(r, std::string("cuMemHostRegister(") + what + ", " + megabytes(bytes) + ")");
        return {};
    }
    return RegisteredMemory(MappedRange{p, mapped});
}

TransferBuffer::TransferBuffer(std::size_t bytes, const char* what) : size_(bytes) {
    if (bytes >= kRegisterFrom) {
        registered_ = register_mapped(bytes, what);
        if (registered_) return;
    }
    void* p = nullptr;
    const CUresult r = driver().cuMemHostAlloc(&p, bytes ? bytes : 1, CU_MEMHOSTALLOC_PORTABLE);
    if (r == CUDA_SUCCESS) {
        pinned_ = DriverHandle<void*, PinnedMemoryRelease>(p);
        return;
    }
    if (!refusal(r)) check(r, std::string("cuMemHostAlloc(") + what + ", " + megabytes(bytes) + ")");
    const std::string refused = failure_text(r, std::string("cuMemHostAlloc(") + what + ", " + megabytes(bytes) + ")");
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
        bslz4::detail::log(LogLevel::warning, ("the driver refused pinned host memory (" + refused +
                                               "); using pageable memory instead: copies to and from the GPU are "
                                               "slower and do not overlap the kernels").c_str());
    pageable_.reset(new (std::nothrow) std::uint8_t[bytes ? bytes : 1]);
    if (!pageable_)
        throw Error(ErrorCode::out_of_memory, "out of host memory: " + megabytes(bytes) + " for " + what + " (pinned memory was refused too: " +
                    refused + ")");
}

Stream make_stream() {
    CUstream s = nullptr;
    check(driver().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    return Stream(s);
}

Event make_event(bool timing) {
    CUevent e = nullptr;
    check(driver().cuEventCreate(&e, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    return Event(e);
}

Module load_module(const void* image, std::size_t image_bytes, const char* what) {
    CUmodule m = nullptr;
    check(driver().cuModuleLoadData(&m, image),
          std::string("cuModuleLoadData(") + what + ", " + std::to_string(image_bytes / 1024) + " kB)");
    return Module(m);
}

}  // namespace bslz4::cuda::detail
