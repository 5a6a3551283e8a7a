// bslz4_pinned_memory: cuda::PinnedHostMemory for C callers' chunk buffers.
#include "bslz4/bslz4.h"
#include "bslz4/cuda/host_memory.hpp"
#include "c_gpu_setup.hpp"
#include "c_status.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

struct bslz4_pinned_memory {
    cuda::PinnedHostMemory memory;
};

int bslz4_gpu_pinned_memory_create(size_t bytes, int device, bslz4_pinned_memory** memory) {
    return guarded("bslz4_gpu_pinned_memory_create", [&] {
        require(memory, "memory");
        *memory = nullptr;
        require_gpu();
        *memory = new bslz4_pinned_memory{cuda::PinnedHostMemory(bytes, device)};
        return BSLZ4_OK;
    });
}

int bslz4_pinned_memory_destroy(bslz4_pinned_memory* memory) {
    delete memory;
    return BSLZ4_OK;
}

int bslz4_pinned_memory_data(const bslz4_pinned_memory* memory, void** data, size_t* bytes, int* pinned) {
    return guarded("bslz4_pinned_memory_data", [&] {
        require(memory, "memory");
        require(data, "data");
        require(bytes, "bytes");
        *data = memory->memory.data();
        *bytes = memory->memory.size();
        if (pinned) *pinned = memory->memory.pinned() ? 1 : 0;
        return BSLZ4_OK;
    });
}
