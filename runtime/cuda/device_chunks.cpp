#include "device_chunks.hpp"

#include <algorithm>
#include <sstream>

#include "argument_checks.hpp"
#include "bslz4/error.hpp"
#include "kernel_launch.hpp"

namespace bslz4::cuda::detail {

namespace {

std::string hex(std::uint64_t p) {
    std::ostringstream s;
    s << "0x" << std::hex << p;
    return s.str();
}

// Bytes from `base` to the end of the device allocation it lies in, on device `ordinal`.
std::uint64_t bytes_after(std::uint64_t base, int ordinal) {
    CUdeviceptr start = 0;
    std::size_t size = 0;
    const CUresult r = driver().cuMemGetAddressRange(&start, &size, static_cast<CUdeviceptr>(base));
    if (r != CUDA_SUCCESS)
        throw Error(ErrorCode::bad_argument, "from_device: " + hex(base) + " is not device memory the driver knows (" +
                                                 failure_text(r, "cuMemGetAddressRange") + ")");
    int on = -1;
    const CUresult d = driver().cuPointerGetAttribute(&on, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, static_cast<CUdeviceptr>(base));
    if (d != CUDA_SUCCESS || on != ordinal)
        throw Error(ErrorCode::bad_argument, "from_device: " + hex(base) + " is memory of GPU " + std::to_string(on) +
                                                 ", not of this object's GPU " + std::to_string(ordinal));
    return start + size - base;
}

}  // namespace

DeviceChunks::DeviceChunks(std::uint64_t base, const std::vector<std::uint64_t>& offsets,
                           const std::vector<std::uint64_t>& lengths, int ordinal, bool report)
    : base_(base), offsets_(offsets), lengths_(lengths) {
    bslz4::detail::check_buffer_counts(offsets, lengths);
    // The allocation's bytes from base, as a buffer of that size: the checks from_buffer makes.
    const ByteView allocation(nullptr, static_cast<std::size_t>(bytes_after(base, ordinal)));
    inside_.assign(offsets.size(), true);
    for (std::size_t f = 0; f < offsets.size(); ++f) {
        try {
            bslz4::detail::chunk_in_buffer(allocation, offsets[f], lengths[f]);
        } catch (const Error& e) {
            if (!report) throw Error(e.code(), "frame " + std::to_string(f) + ": " + e.what() + " (the device allocation from " +
                                                   hex(base) + ")");
            inside_[f] = false;
            outside_.push_back({f, e.code(), "frame " + std::to_string(f) + ": " + e.what() + " (the device allocation from " + hex(base) + ")"});
        }
    }
}

Staged DeviceChunks::stage(GroupSlot& s, std::size_t first, std::size_t count, const CallStatus& call) const {
    check(driver().cuEventSynchronize(s.uploaded.get()), "cuEventSynchronize");
    std::uint64_t* offs = s.meta();
    std::uint64_t* lens = offs + count;
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t f = first + k;
        offs[k] = total;
        lens[k] = call.is_bad(f) ? 0 : length(f);
        total += staged_bytes(static_cast<std::size_t>(lens[k]));
    }
    return {nullptr, static_cast<std::size_t>(total)};
}

void DeviceChunks::gather(GroupSlot& s, std::size_t first, std::size_t count, const Kernel<abi::GatherArgs>& gather_kernel) const {
    grow_transfer(s.source_offset_host, count * 8, "chunk sources");
    grow_device(s.source_offset, count * 8, "chunk sources");
    auto* from = reinterpret_cast<std::uint64_t*>(s.source_offset_host.data());
    for (std::size_t k = 0; k < count; ++k) from[k] = inside(first + k) ? offsets_[first + k] : 0;
    const CUstream st = s.copy_stream();
    check(driver().cuMemcpyHtoDAsync(s.source_offset.get(), from, count * 8, st), "cuMemcpyHtoDAsync(chunk sources)");
    for (std::size_t f0 = 0, p = 0; f0 < count; f0 += s.part_frames, ++p) {
        const auto n = static_cast<unsigned>(std::min(count - f0, s.part_frames));
        abi::GatherArgs a{};
        a.src = reinterpret_cast<const std::uint8_t*>(base_);
        a.src_offset = s.source_offset.as<const std::uint64_t>();
        a.length = s.chunk_length.as<const std::uint64_t>();
        a.dst = s.chunks_dev.as<std::uint8_t>();
        a.dst_offset = s.chunk_offset.as<const std::uint64_t>();
        a.first = static_cast<std::uint32_t>(f0);
        launch(gather_kernel, {n, 1, abi::kGatherThreads, 0}, st, a);
        check(driver().cuEventRecord(s.part_uploaded[p].get(), st), "cuEventRecord");
    }
    check(driver().cuEventRecord(s.uploaded.get(), st), "cuEventRecord");
}

ByteView DeviceChunks::host_copy(std::size_t f) {
    if (!inside(f)) return ByteView(nullptr, 0);
    auto it = host_.find(f);
    if (it == host_.end()) {
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(lengths_[f]));
        Stream st = make_stream();
        if (!bytes.empty()) {
            check(driver().cuMemcpyDtoHAsync(bytes.data(), static_cast<CUdeviceptr>(base_ + offsets_[f]), bytes.size(), st.get()),
                  "cuMemcpyDtoHAsync(chunk read back)");
            check(driver().cuStreamSynchronize(st.get()), "cuStreamSynchronize");
        }
        it = host_.emplace(f, std::move(bytes)).first;
    }
    return ByteView(it->second.data(), it->second.size());
}

}  // namespace bslz4::cuda::detail
