// DeviceArray's DLPack export: the tensor describes the array (shape, strides, dtype, device,
// pointer), its memory reads back as to_host() does on a stream of the consumer's own right after
// the call, and the memory is freed exactly once, by whichever of the array and its tensors goes
// last, on any thread. Part of test_gpu (whose main skips without a GPU).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/dlpack.h"
#include "context.hpp"
#include "driver_allocation_hook.hpp"
#include "driver_api.hpp"
#include "driver_objects.hpp"
#include "gpu_comparison.hpp"
#include "matrix_support.hpp"
#include "synthetic/synthetic_eiger.hpp"

using namespace bslz4;

namespace {

using Frames = test::Stack;  // chunks, mask and shape

Frames eiger_frames(std::size_t ni, std::size_t nj, PixelType t, std::size_t n) {
    Frames s{ni, nj, t, {}, synthetic_eiger_mask(ni, nj)};
    for (std::size_t f = 0; f < n; ++f) s.chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, t, f % 5), pixel_size(t)));
    return s;
}

// Small batches and groups, so a call spreads over several of the object's streams.
const cuda::Chunk2SparseOptions kSeveralStreams{4, 8, cuda::Unblock::gpu, -1, Codec::lz4};

// What a consumer does: reads the tensor's bytes on a non-blocking stream of its own, waiting for
// nothing but that stream.
std::vector<std::uint8_t> read_as_consumer(const DLTensor& t) {
    std::size_t elements = 1;
    for (std::int32_t d = 0; d < t.ndim; ++d) elements *= static_cast<std::size_t>(t.shape[d]);
    std::vector<std::uint8_t> out(elements * t.dtype.bits / 8 * t.dtype.lanes);
    const cuda::detail::DriverApi& api = cuda::detail::driver();
    const cuda::detail::PrimaryContext ctx(t.device.device_id);
    const cuda::detail::ScopedContext scope(ctx);
    const cuda::detail::Stream own = cuda::detail::make_stream();
    const CUdeviceptr from = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
    cuda::detail::check(api.cuMemcpyDtoHAsync(out.data(), from, out.size(), own.get()), "cuMemcpyDtoHAsync");
    cuda::detail::check(api.cuStreamSynchronize(own.get()), "cuStreamSynchronize");
    return out;
}

std::vector<std::int64_t> shape_of(const DLTensor& t) { return {t.shape, t.shape + t.ndim}; }
std::vector<std::int64_t> strides_of(const DLTensor& t) { return {t.strides, t.strides + t.ndim}; }

void require_describes(const DLTensor& t, const cuda::DeviceArray& a, std::uint8_t code, unsigned bits) {
    std::vector<std::int64_t> shape(a.shape().begin(), a.shape().end());
    REQUIRE(shape_of(t) == shape);
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
    REQUIRE(strides_of(t) == strides);
    REQUIRE(t.byte_offset == 0);
    REQUIRE(t.dtype.code == code);
    REQUIRE(t.dtype.bits == bits);
    REQUIRE(t.dtype.lanes == 1);
    REQUIRE(t.device.device_type == kDLCUDA);
    REQUIRE(t.device.device_id == a.device());
    REQUIRE(reinterpret_cast<std::uintptr_t>(t.data) == a.device_pointer());
}

bool no_context_current() {
    CUcontext current = nullptr;
    cuda::detail::check(cuda::detail::driver().cuCtxGetCurrent(&current), "cuCtxGetCurrent");
    return current == nullptr;
}

}  // namespace

TEST_CASE("a decompressed stack exports as a C-order DLPack tensor of its pixel type, complete on any stream", "[gpu][dlpack]") {
    struct Expect {
        PixelType type;
        std::uint8_t code;
    };
    const Expect cases[] = {{PixelType::u8, kDLUInt},  {PixelType::u16, kDLUInt}, {PixelType::u32, kDLUInt},
                            {PixelType::i8, kDLInt},   {PixelType::i16, kDLInt},  {PixelType::i32, kDLInt},
                            {PixelType::f32, kDLFloat}};
    for (const Expect& e : cases) {
        INFO(pixel_type_name(e.type));
        const Frames s = eiger_frames(40, 48, e.type, 21);
        cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, kSeveralStreams);
        const cuda::DeviceArray frames = gpu.decompress(s.views());
        DLManagedTensor* t = frames.to_dlpack();
        const std::vector<std::uint8_t> seen = read_as_consumer(t->dl_tensor);  // before anything waits for the device
        require_describes(t->dl_tensor, frames, e.code, 8 * static_cast<unsigned>(pixel_size(e.type)));
        REQUIRE(t->dl_tensor.ndim == 3);
        REQUIRE(strides_of(t->dl_tensor) == std::vector<std::int64_t>{40 * 48, 48, 1});
        REQUIRE(seen == frames.to_host());
        for (std::size_t f = 0; f < s.chunks.size(); ++f) {
            const std::vector<std::uint8_t> want = decode_chunk(s.chunks[f], pixel_size(e.type));
            REQUIRE(std::memcmp(seen.data() + f * want.size(), want.data(), want.size()) == 0);
        }
        t->deleter(t);
    }
}

TEST_CASE("powders export as (frames, bins) DLPack tensors of the accumulator's type, complete on any stream", "[gpu][dlpack]") {
    const std::size_t ni = 40, nj = 48, bins = 33;
    const Frames s = eiger_frames(ni, nj, PixelType::u16, 21);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(bins, ni * nj, 2.0, 4).input());
    struct Expect {
        Accumulator acc;
        std::uint8_t code;
        unsigned bits;
    };
    for (const Expect& e : {Expect{Accumulator::f64, kDLFloat, 64}, Expect{Accumulator::f32, kDLFloat, 32},
                            Expect{Accumulator::i64, kDLInt, 64}}) {
        INFO(accumulator_name(e.acc));
        const IntegrationMatrix x = e.acc == Accumulator::i64 ? fixed_point_matrix(m, s.type) : m;
        cuda::Chunk2SparseCSC gpu(s.mask, ni, nj, s.type, x, e.acc, kSeveralStreams);
        const cuda::DeviceArray powders = gpu.integrate(s.views());
        DLManagedTensor* t = powders.to_dlpack();
        const std::vector<std::uint8_t> seen = read_as_consumer(t->dl_tensor);
        require_describes(t->dl_tensor, powders, e.code, e.bits);
        REQUIRE(shape_of(t->dl_tensor) == std::vector<std::int64_t>{21, bins});
        REQUIRE(strides_of(t->dl_tensor) == std::vector<std::int64_t>{bins, 1});
        REQUIRE(seen == powders.to_host());
        t->deleter(t);
    }
}

TEST_CASE("a tensor outliving its array keeps the memory, which its deleter then frees once", "[gpu][dlpack]") {
    const Frames s = eiger_frames(30, 32, PixelType::u16, 5);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type);
    cuda::DeviceArray frames = gpu.decompress(s.views());
    const CUdeviceptr p = frames.device_pointer();
    const std::vector<std::uint8_t> want = frames.to_host();
    test::DriverAllocationHook frees;
    DLManagedTensor* t = frames.to_dlpack();
    frames = cuda::DeviceArray();
    REQUIRE(frees.frees_of(p) == 0);
    REQUIRE(read_as_consumer(t->dl_tensor) == want);
    t->deleter(t);
    REQUIRE(frees.frees_of(p) == 1);
    REQUIRE(frees.free_count() == 1);
}

TEST_CASE("an array dropped after its tensors' deleters frees its memory once, itself", "[gpu][dlpack]") {
    const Frames s = eiger_frames(30, 32, PixelType::u16, 5);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type);
    cuda::DeviceArray frames = gpu.decompress(s.views());
    const CUdeviceptr p = frames.device_pointer();
    test::DriverAllocationHook frees;
    {
        const cuda::DeviceArray held = std::move(frames);
        DLManagedTensor* t = held.to_dlpack();
        t->deleter(t);
        REQUIRE(frees.frees_of(p) == 0);
        REQUIRE(held.to_host().size() == held.bytes());
    }
    REQUIRE(frees.frees_of(p) == 1);
    REQUIRE(frees.free_count() == 1);
}

TEST_CASE("two tensors of one array share its memory, freed once when the last of the three goes", "[gpu][dlpack]") {
    const Frames s = eiger_frames(30, 32, PixelType::i32, 5);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type);
    cuda::DeviceArray frames = gpu.decompress(s.views());
    const CUdeviceptr p = frames.device_pointer();
    test::DriverAllocationHook frees;
    DLManagedTensor* a = frames.to_dlpack();
    DLManagedTensorVersioned* b = frames.to_dlpack_versioned();
    REQUIRE(a->dl_tensor.data == b->dl_tensor.data);
    REQUIRE(a->manager_ctx != b->manager_ctx);
    a->deleter(a);
    frames = cuda::DeviceArray();
    REQUIRE(frees.frees_of(p) == 0);
    b->deleter(b);
    REQUIRE(frees.frees_of(p) == 1);
    REQUIRE(frees.free_count() == 1);
}

TEST_CASE("the last tensor's deleter frees the memory on a thread with no context current, and leaves none current", "[gpu][dlpack]") {
    const Frames s = eiger_frames(30, 32, PixelType::u8, 5);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type);
    cuda::DeviceArray frames = gpu.decompress(s.views());
    const CUdeviceptr p = frames.device_pointer();
    test::DriverAllocationHook frees;
    DLManagedTensor* t = frames.to_dlpack();
    frames = cuda::DeviceArray();
    bool none_before = false, none_after = false;
    std::thread consumer([&] {
        none_before = no_context_current();
        t->deleter(t);
        none_after = no_context_current();
    });
    consumer.join();
    REQUIRE(none_before);
    REQUIRE(none_after);
    REQUIRE(frees.frees_of(p) == 1);
    REQUIRE(frees.free_count() == 1);
}

TEST_CASE("the versioned tensor says DLPack 1.0 and flags 0 (writable, not a copy) and describes the same array", "[gpu][dlpack]") {
    const std::size_t ni = 30, nj = 32;
    const Frames s = eiger_frames(ni, nj, PixelType::u16, 6);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(17, ni * nj, 2.0, 9).input());
    cuda::Chunk2SparseCSC gpu(s.mask, ni, nj, s.type, m, Accumulator::f64);
    const cuda::DeviceArray powders = gpu.integrate(s.views());
    DLManagedTensorVersioned* t = powders.to_dlpack_versioned();
    REQUIRE(t->version.major == 1);
    REQUIRE(t->version.minor == 0);
    REQUIRE(t->flags == 0);
    REQUIRE((t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) == 0);
    REQUIRE((t->flags & DLPACK_FLAG_BITMASK_IS_COPIED) == 0);
    require_describes(t->dl_tensor, powders, kDLFloat, 64);
    REQUIRE(shape_of(t->dl_tensor) == std::vector<std::int64_t>{6, 17});
    REQUIRE(read_as_consumer(t->dl_tensor) == powders.to_host());
    t->deleter(t);
}

TEST_CASE("exporting an empty or moved-from array is a bad_argument error, not a tensor of nothing", "[gpu][dlpack]") {
    const cuda::DeviceArray empty;
    const auto refused = [](const cuda::DeviceArray& a) {
        for (int versioned = 0; versioned < 2; ++versioned) {
            try {
                if (versioned) {
                    DLManagedTensorVersioned* t = a.to_dlpack_versioned();
                    t->deleter(t);
                } else {
                    DLManagedTensor* t = a.to_dlpack();
                    t->deleter(t);
                }
                FAIL("an empty array was exported");
            } catch (const Error& e) {
                REQUIRE(e.code() == ErrorCode::bad_argument);
                REQUIRE(std::string(e.what()).find("empty") != std::string::npos);
            }
        }
    };
    refused(empty);
    const Frames s = eiger_frames(30, 32, PixelType::u16, 2);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type);
    cuda::DeviceArray frames = gpu.decompress(s.views());
    const cuda::DeviceArray taker = std::move(frames);
    refused(frames);
    DLManagedTensor* t = taker.to_dlpack();
    REQUIRE(t->dl_tensor.data != nullptr);
    t->deleter(t);
}
