#include "shared_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <vector>

#include "bslz4/cuda/device.hpp"
#include "fixed_point.hpp"
#include "matrix_passes.hpp"
#include "kernel_abi.h"
#include "tile_matrix.hpp"

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

// fnv1a of n bytes as the hashes of their 4 MB pieces, hashed on several threads (an Eiger 4M
// matrix's arrays, 72 MB, took 22 ms on one, hashed by every object made with it), then hashed
// in order: the same key on any number of threads.
std::uint64_t pieces_hash(std::uint64_t h, const void* data, std::size_t n) {
    constexpr std::size_t kPiece = std::size_t{4} << 20;
    const std::size_t pieces = (n + kPiece - 1) / kPiece;
    if (pieces <= 1) return fnv1a(h, data, n);
    std::vector<std::uint64_t> piece(pieces);
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    const std::size_t threads = std::min(pieces, bslz4::detail::entry_parts(n / 4));
    bslz4::detail::run_parts(threads, [&](std::size_t t) {
        for (std::size_t k = t; k < pieces; k += threads) piece[k] = fnv1a(kFnvSeed + k, bytes + k * kPiece, std::min(kPiece, n - k * kPiece));
    });
    return fnv1a(h, piece.data(), pieces * sizeof(std::uint64_t));
}

// The content key of a matrix: its arrays, shape and scale.
std::uint64_t matrix_hash(const IntegrationMatrix& m) {
    std::uint64_t h = pieces_hash(kFnvSeed, m.row_start.data(), m.row_start.size() * 4);
    h = pieces_hash(h, m.pixel.data(), m.pixel.size() * 4);
    h = pieces_hash(h, m.weight.data(), m.weight.size() * 4);
    h = pieces_hash(h, m.fixed_weight.data(), m.fixed_weight.size() * 8);
    const std::uint64_t shape[2] = {m.bins, m.pixels};
    h = fnv1a(h, shape, sizeof shape);
    return fnv1a(h, &m.powder_scale, sizeof m.powder_scale);
}

static_assert(bslz4::detail::TileMatrix::kTileSide == bslz4_abi::kTileSide, "the host tiles the matrix as the kernel reads it");

template <class T>
void upload_vector(DeviceBuffer& to, const std::vector<T>& from, const char* what) {
    upload(to, from.data(), from.size() * sizeof(T), what);
}

// The tiled matrix (tile_matrix.hpp), float or fixed-point weights, to the device.
template <class W>
std::shared_ptr<const DeviceMatrix> upload_matrix(int device, std::size_t bins, const bslz4::detail::TiledMatrix<W>& tiled) {
    auto d = std::make_shared<DeviceMatrix>(device);
    const bslz4::detail::TileMatrix& t = tiled.tiles;
    d->bins = bins;
    d->tiles = t.tiles;
    d->tiles_x = t.tiles_x;
    d->slots = t.slots;
    upload_vector(d->tile_slot_first, t.tile_slot_first, "matrix tiles' slots");
    upload_vector(d->slot_entry_first, t.slot_entry_first, "matrix slots' entries");
    upload_vector(d->entry_pixel, t.entry_pixel, "matrix pixels by tile");
    upload_vector(d->entry_weight, tiled.weight, "matrix weights by tile");
    upload_vector(d->bin_slot_first, t.bin_slot_first, "matrix bins' slots");
    upload_vector(d->bin_slot, t.bin_slot, "matrix slots by bin");
    if constexpr (std::is_same<W, std::int64_t>::value) {
        d->packed_weights = std::all_of(tiled.weight.begin(), tiled.weight.end(), [](std::int64_t w) { return bslz4_abi::weight_packs(w); });
    }
    return d;
}

PreparedMatrix shared_prepared_matrix(int device, const IntegrationMatrix& m, ByteView mask, PixelType type,
                                      Accumulator acc, std::size_t rows, std::size_t cols) {
    std::uint64_t h = pieces_hash(matrix_hash(m), mask.data, mask.size);
    const std::uint64_t kinds[3] = {static_cast<std::uint64_t>(type), static_cast<std::uint64_t>(acc), cols};
    h = fnv1a(h, kinds, sizeof kinds);
    const Key key{device, 1, h, m.nnz()};
    // The cache's lock is held while the first object prepares it: the others wait for it
    // rather than do the same work beside it.
    return *find_or_make<PreparedMatrix>(key, [&] {
        // Folded only where the mask drops entries: a matrix made with the detector's mask, as
        // pyFAI makes them, is summed as it is, without a copy of its 70 MB.
        const bool fold = bslz4::detail::masks_entries(m, mask);
        IntegrationMatrix folded = fold ? fold_mask(m, mask) : IntegrationMatrix{};
        const IntegrationMatrix& summed = fold ? folded : m;
        const bslz4::detail::ExactSumScale exact = bslz4::detail::exact_sum_scale(summed, type, acc);
        auto p = std::make_shared<PreparedMatrix>();
        if (exact.fixed) {  // its float weights made fixed point as they are tiled
            p->matrix = upload_matrix(device, summed.bins, bslz4::detail::tile_matrix_at_scale(summed, rows, cols, exact.scale_log2));
            p->fixed_sums = true;
            p->powder_scale = std::ldexp(1.0, exact.scale_log2);
        } else if (summed.fixed_point()) {  // acc i64: the caller's fixed-point matrix
            p->matrix = upload_matrix(device, summed.bins, bslz4::detail::tile_fixed_matrix(summed, rows, cols));
            p->fixed_sums = true;
            p->powder_scale = summed.powder_scale;
        } else {
            p->matrix = upload_matrix(device, summed.bins, bslz4::detail::tile_matrix(summed, rows, cols));
            p->fixed_sums = false;
            p->powder_scale = 1;
        }
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
