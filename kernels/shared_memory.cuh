// Loads and stores of shared memory by 32-bit address, for the decode's match loop. Given a
// generic pointer, the compiler rebuilds the shared window's address (on sm_90 from the
// block's cluster rank) over and over; a 32-bit address computed once stays in a register.
// The "memory" clobbers keep them in order with the other accesses.
#pragma once
#include <stdint.h>

namespace bslz4_kernels {

// The address goes through an opaque move: left to itself the compiler would fold it back into
// the generic pointer's conversion and redo that inside the loop.
__device__ inline uint32_t shared_address(const void* p) {
    uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(p));
    asm volatile("mov.b32 %0, %0;" : "+r"(a));
    return a;
}

__device__ inline unsigned load_shared_u8(uint32_t a) {
    unsigned v;
    asm volatile("ld.shared.u8 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
    return v;
}

__device__ inline void store_shared_u8(uint32_t a, unsigned v) {
    asm volatile("st.shared.u8 [%0], %1;" ::"r"(a), "r"(v) : "memory");
}

}  // namespace bslz4_kernels
