/* DLPack's exchange structs (https://dmlc.github.io/dlpack/latest/c_api.html), the part a
 * producer of CUDA arrays needs: written from the spec, layout and values as in its dlpack.h
 * (major version 1), so that CuPy, PyTorch and JAX take a bslz4::cuda::DeviceArray without a
 * copy. C and C++.
 *
 * A program that uses the official dlpack.h gets its types, not these, when it includes that
 * header before any bslz4 header (DLPACK_DLPACK_H_ is its include guard); included after, it
 * would define the same names a second time. */
#ifndef BSLZ4_CUDA_DLPACK_H_
#define BSLZ4_CUDA_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#if defined(DLPACK_DLPACK_H_) && !defined(DLPACK_MAJOR_VERSION)
#error "the dlpack.h included before bslz4's is older than DLPack 1.0 (no DLManagedTensorVersioned)"
#endif

#ifndef DLPACK_DLPACK_H_

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t major; /* a different major version means a different layout: only call the deleter */
    uint32_t minor;
} DLPackVersion;

/* The spec gives the enumeration a 32-bit underlying type in C++; in C an enum is an int. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id; /* the CUDA device ordinal for kDLCUDA */
} DLDevice;

typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLOpaqueHandle = 3U,
    kDLBfloat = 4U,
    kDLComplex = 5U,
    kDLBool = 6U,
} DLDataTypeCode;

typedef struct {
    uint8_t code; /* a DLDataTypeCode, kept in one byte */
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void* data; /* a CUdeviceptr for kDLCUDA; NULL for a tensor of no elements */
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;   /* ndim elements */
    int64_t* strides; /* ndim elements, counted in elements, not bytes */
    uint64_t byte_offset;
} DLTensor;

/* The classic form, which every consumer takes. Whoever holds it calls deleter(self) exactly
 * once when done (a tensor never consumed too); the deleter frees self as well. */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

/* The versioned form (DLPack >= 1.0, what __dlpack__(max_version=(1, 0)) asks for): the same
 * tensor after a version and flags. Everything up to flags stays where it is in every major
 * version, so the deleter can always be called. */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned* self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DLPACK_DLPACK_H_ */

#ifdef __cplusplus
/* The ABI, pinned (64-bit hosts, the only ones CUDA runs on): whichever header defined the
 * types, they are laid out as every consumer reads them. */
static_assert(sizeof(void*) == 8, "DLPack export assumes a 64-bit host");
static_assert(sizeof(DLPackVersion) == 8, "DLPackVersion layout");
static_assert(sizeof(DLDevice) == 8 && offsetof(DLDevice, device_id) == 4, "DLDevice layout");
static_assert(sizeof(DLDataType) == 4 && offsetof(DLDataType, bits) == 1 && offsetof(DLDataType, lanes) == 2,
              "DLDataType layout");
static_assert(offsetof(DLTensor, data) == 0 && offsetof(DLTensor, device) == 8 && offsetof(DLTensor, ndim) == 16 &&
                  offsetof(DLTensor, dtype) == 20 && offsetof(DLTensor, shape) == 24 &&
                  offsetof(DLTensor, strides) == 32 && offsetof(DLTensor, byte_offset) == 40 && sizeof(DLTensor) == 48,
              "DLTensor layout");
static_assert(offsetof(DLManagedTensor, dl_tensor) == 0 && offsetof(DLManagedTensor, manager_ctx) == 48 &&
                  offsetof(DLManagedTensor, deleter) == 56 && sizeof(DLManagedTensor) == 64,
              "DLManagedTensor layout");
static_assert(offsetof(DLManagedTensorVersioned, version) == 0 && offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
                  offsetof(DLManagedTensorVersioned, deleter) == 16 && offsetof(DLManagedTensorVersioned, flags) == 24 &&
                  offsetof(DLManagedTensorVersioned, dl_tensor) == 32 && sizeof(DLManagedTensorVersioned) == 80,
              "DLManagedTensorVersioned layout");
static_assert(kDLCPU == 1 && kDLCUDA == 2 && kDLCUDAHost == 3 && kDLCUDAManaged == 13, "DLDeviceType values");
static_assert(kDLInt == 0 && kDLUInt == 1 && kDLFloat == 2 && kDLBfloat == 4 && kDLBool == 6, "DLDataTypeCode values");
static_assert(DLPACK_FLAG_BITMASK_READ_ONLY == 1 && DLPACK_FLAG_BITMASK_IS_COPIED == 2, "DLPack flag bits");
#endif

#endif /* BSLZ4_CUDA_DLPACK_H_ */
