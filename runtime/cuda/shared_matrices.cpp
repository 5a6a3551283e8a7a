#include "shared_matrices.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "bslz4/cuda/device.hpp"
#include "fixed_point.hpp"

namespace bslz4::cuda {

namespace detail {

namespace {

// FNV-1a over 8-byte words (then the last bytes): the content key of a mask or a matrix. A
// word at a time, because an Eiger 4M matrix is 72 MB, hashed by every object made with it.
std::uint64_t fnv1a(std::uint64_t h, const void* data, std::size_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001B3ULL;
        h ^= h >> 32;  // the product carries only upward: bring the high bits down
    }
    for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ULL;
    return h;
}
constexpr std::uint64_t kFnvSeed = 0xCBF29CE484222325ULL;

using Key = std::tuple<int, int, std::uint64_t, std::size_t>;  // device, kind, hash, size

std::mutex cache_mutex;
std::map<Key, std::shared_ptr<const void>>& cache() {
    static std::map<Key, std::shared_ptr<const void>> entries;
    return entries;
}

template <class T, class Make>
std::shared_ptr<const T> find_or_make(const Key& key, Make&& make) {
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto it = cache().find(key);
    if (it != cache().end()) return std::static_pointer_cast<const T>(it->second);
    std::shared_ptr<const T> made = make();
    cache()[key] = made;
    return made;
}

void upload(DeviceBuffer& to, const void* from, std::size_t bytes, const char* what) {
    to = DeviceBuffer(bytes, what);
    if (bytes) check(driver().cuMemcpyHtoDAsync(to.get(), from, bytes, nullptr), std::string("cuMemcpyHtoD(") + what + ")");
    check(driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

}  // namespace

std::shared_ptr<const DeviceMask> shared_mask(int device, ByteView mask) {
    const Key key{device, 0, fnv1a(kFnvSeed, mask.data, mask.size), mask.size};
    return find_or_make<DeviceMask>(key, [&] {
        auto m = std::make_shared<DeviceMask>(device);
        upload(m->bytes, mask.data, mask.size, "mask");
        return m;
    });
}

// The content key of a matrix: its arrays, shape and scale.
std::uint64_t matrix_hash(const IntegrationMatrix& m) {
    std::uint64_t h = fnv1a(kFnvSeed, m.row_start.data(), m.row_start.size() * 4);
    h = fnv1a(h, m.pixel.data(), m.pixel.size() * 4);
    h = fnv1a(h, m.weight.data(), m.weight.size() * 4);
    h = fnv1a(h, m.fixed_weight.data(), m.fixed_weight.size() * 8);
    const std::uint64_t shape[2] = {m.bins, m.pixels};
    h = fnv1a(h, shape, sizeof shape);
    return fnv1a(h, &m.powder_scale, sizeof m.powder_scale);
}

std::shared_ptr<const DeviceMatrix> upload_matrix(int device, const IntegrationMatrix& folded) {
    auto m = std::make_shared<DeviceMatrix>(device);
    m->bins = folded.bins;
    m->nnz = folded.nnz();
    upload(m->row_start, folded.row_start.data(), folded.row_start.size() * 4, "matrix row starts");
    upload(m->pixel, folded.pixel.data(), folded.pixel.size() * 4, "matrix pixels");
    if (folded.fixed_point())
        upload(m->weight, folded.fixed_weight.data(), folded.fixed_weight.size() * 8, "matrix weights");
    else
        upload(m->weight, folded.weight.data(), folded.weight.size() * 4, "matrix weights");
    return m;
}

PreparedMatrix shared_prepared_matrix(int device, const IntegrationMatrix& m, ByteView mask, PixelType type,
                                      Accumulator acc) {
    std::uint64_t h = fnv1a(matrix_hash(m), mask.data, mask.size);
    const std::uint32_t kinds[2] = {static_cast<std::uint32_t>(type), static_cast<std::uint32_t>(acc)};
    h = fnv1a(h, kinds, sizeof kinds);
    const Key key{device, 1, h, m.nnz()};
    // The cache's lock is held while the first object prepares it: the others wait for it
    // rather than do the same work beside it.
    return *find_or_make<PreparedMatrix>(key, [&] {
        const IntegrationMatrix summed = bslz4::detail::summed_matrix(fold_mask(m, mask), type, acc);
        auto p = std::make_shared<PreparedMatrix>();
        p->matrix = upload_matrix(device, summed);
        p->fixed_sums = summed.fixed_point();
        p->powder_scale = summed.fixed_point() ? summed.powder_scale : 1;
        return p;
    });
}

}  // namespace detail

void release_shared() {
    std::lock_guard<std::mutex> lock(detail::cache_mutex);
    detail::cache().clear();
}

std::size_t shared_count() {
    std::lock_guard<std::mutex> lock(detail::cache_mutex);
    return detail::cache().size();
}

}  // namespace bslz4::cuda
