// Loads and stores of shared memory by 32-bit address, for the decode's match copies. Given a
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

// 16 bytes at a 16-byte-aligned address.
__device__ inline uint4 load_shared_v4(uint32_t a) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a) : "memory");
    return v;
}

__device__ inline void store_shared_v4(uint32_t a, uint4 v) {
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

}  // namespace bslz4_kernels
