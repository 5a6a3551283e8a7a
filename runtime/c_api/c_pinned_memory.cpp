// bslz4_pinned_memory: cuda::PinnedHostMemory for C callers' chunk buffers.
#include <utility>

#include "bslz4/bslz4.h"
#include "bslz4/cuda/host_memory.hpp"
#include "c_arguments.hpp"
#include "c_gpu_setup.hpp"
#include "c_handle_class.hpp"
#include "c_status.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

struct bslz4_pinned_memory : Tagged<HandleClass::pinned_memory> {
    explicit bslz4_pinned_memory(cuda::PinnedHostMemory m) : memory(std::move(m)) {}
    cuda::PinnedHostMemory memory;
};

int bslz4_gpu_pinned_memory_create(size_t bytes, int device, bslz4_pinned_memory** memory) {
    return guarded("bslz4_gpu_pinned_memory_create", [&] {
        require(memory, "memory");
        *memory = nullptr;
        checked_bytes(bytes, "bytes");
        require_gpu();
        *memory = new bslz4_pinned_memory{cuda::PinnedHostMemory(bytes, device)};
        return BSLZ4_OK;
    });
}

int bslz4_pinned_memory_destroy(bslz4_pinned_memory* memory) {
    return destroy_call("bslz4_pinned_memory_destroy", memory, "memory");
}

int bslz4_pinned_memory_data(const bslz4_pinned_memory* memory, void** data, size_t* bytes, int* pinned) {
    return guarded("bslz4_pinned_memory_data", [&] {
        const cuda::PinnedHostMemory& m = checked(memory, "memory")->memory;
        require(data, "data");
        require(bytes, "bytes");
        *data = m.data();
        *bytes = m.size();
        if (pinned) *pinned = m.pinned() ? 1 : 0;
        return BSLZ4_OK;
    });
}
