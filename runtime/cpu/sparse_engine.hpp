// The CPU decoding engine shared by Chunk2Sparse and Chunk2SparseCSC: a frame is decoded block
// by block into a block-sized buffer that stays in L1 (the dense frame is never written to
// memory). Integer pixels with no per-block consumer are listed from the block's bit planes,
// never unshuffled (plane_collect.hpp); otherwise each block is unshuffled, listed, and offered
// to the consumer (the integrator). Frames of a batch run on a thread pool, one frame per task.
#pragma once
#include <atomic>
#include <thread>
#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/error.hpp"
#include "argument_checks.hpp"
#include "chunk_decoder.hpp"
#include "host_buffer.hpp"
#include "plane_collect.hpp"
#include "sparsify.hpp"
#include "thread_pool.hpp"
#include "top_pixels.hpp"

namespace bslz4::detail {

struct WorkerSpace {
    BlockScratch scratch;
    std::vector<std::uint8_t> block;  // one decoded block
};

// What a call says about frame f's failure e: e's code (out_of_memory for a std::bad_alloc)
// and its message after "frame f: ".
inline Error frame_error(std::size_t f, const std::exception& e) {
    ErrorCode code = ErrorCode::unspecified;
    if (const auto* error = dynamic_cast<const Error*>(&e))
        code = error->code();
    else if (dynamic_cast<const std::bad_alloc*>(&e))
        code = ErrorCode::out_of_memory;
    return Error(code, "frame " + std::to_string(f) + ": " + e.what());
}

struct NoBlockWork {
    template <class T>
    void operator()(std::size_t, const T*, std::size_t, unsigned) const {}
};

struct KeepAll {
    template <class T>
    std::size_t operator()(const T*, const std::uint32_t*, std::size_t n) const {
        return n;
    }
};

struct NoFrameWork {
    void operator()(std::size_t) const {}
};

class SparseEngine {
public:
    std::size_t ni, nj, npix;
    PixelType type;
    std::size_t bpp;
    Chunk2SparseOptions options;
    std::vector<std::uint8_t> mask;
    std::vector<std::uint64_t> mask_bits;     // the mask a bit an element, as PlaneBlock reads it
    PlaneCollectFn collect_planes = nullptr;  // integer pixels listed with no per-block consumer
    ThreadPool pool;
    std::atomic<std::thread::id> caller{};  // the thread in a call of the class that owns this engine (call_guard.hpp)
    std::vector<WorkerSpace> workers;
    // Results of the last call (views handed out point here).
    HostBuffer values, indices;
    std::vector<std::size_t> npixels;
    std::vector<ErrorCode> codes;
    std::vector<FrameError> bad;
    std::mutex bad_mutex;
    TopPixelsRule top;
    std::vector<double> last_cut;
    std::vector<std::size_t> last_nabove;

    // How the engine makes its lists: from the bit planes where it can (integer pixels; float
    // ones are compared by value, unshuffled); for an integrator that sums the nonzero pixels
    // alone, from the planes of f32 pixels too (list_chunk_nonzero); or always from unshuffled
    // blocks (an integrator that must see every pixel, zeros too: a matrix with a weight that is
    // not finite, whose product with a zero pixel is NaN).
    enum class Lists { from_planes, nonzero_from_planes, unshuffled };
    Lists lists;

    SparseEngine(ByteView m, std::size_t ni_, std::size_t nj_, PixelType t, Chunk2SparseOptions o,
                 Lists how = Lists::from_planes)
        : ni(ni_), nj(nj_), npix(ni_ * nj_), type(t), bpp(pixel_size(t)), options(o),
          pool(checked_thread_count(o.threads, "Chunk2SparseOptions::threads")),
          top(o.howmany, o.thresholds), lists(how) {
        check_frame_mask(m, ni, nj);
        mask.assign(m.data, m.data + m.size);
        const CpuPath path = active_cpu_path();  // read here too, so a bad BSLZ4_CPU_PATH is refused alike
        const bool integer = t != PixelType::f32 && t != PixelType::f64;
        if ((how == Lists::from_planes && integer) || (how == Lists::nonzero_from_planes && t != PixelType::f64)) {
            collect_planes = plane_collector(bpp, path);
            mask_bits.assign(npix / 64 + 2, 0);
            for (std::size_t e = 0; e < npix; ++e) mask_bits[e / 64] |= std::uint64_t{mask[e] != 0} << (e % 64);
        }
        workers.resize(pool.size());
    }

    // The cut as the bit planes compare it (PlaneCut): unsigned, sign bit flipped for signed T.
    template <class T>
    static PlaneCut plane_cut(const PixelThreshold<T>& th) {
        using U = std::make_unsigned_t<T>;
        PlaneCut cut;
        if constexpr (std::is_signed<T>::value) cut.flip = std::uint64_t{1} << (8 * sizeof(T) - 1);
        cut.t = static_cast<std::uint64_t>(static_cast<U>(th.t)) ^ cut.flip;
        cut.all = th.mode == CutMode::all;
        return cut;
    }

    // A chunk of integer pixels listed from its bit planes, block by block, compared with
    // `planes` (the cut, or 0 for every nonzero pixel), then the raw tail with th. Each block's
    // n listed pixels go to kept(v, idx, n), which returns how many of them stay (compacted in
    // place); the tail's raw pixels to tail(first, pixels, n).
    template <class T, class Kept = KeepAll, class Tail = NoBlockWork>
    std::size_t list_planes(const ChunkDecoder& decoder, WorkerSpace& ws, const PlaneCut& planes,
                            const PixelThreshold<T>& th, T* ov, std::uint32_t* oi, Kept&& kept = {}, Tail&& tail = {},
                            unsigned worker = 0) {
        const BlockLayout& layout = decoder.layout();
        std::size_t count = 0;
        for (std::size_t b = 0; b < layout.n_blocks(); ++b) {
            const PlaneBlock block{decoder.decode_planes(b, ws.scratch), layout.block_elems(b), mask_bits.data(),
                                   static_cast<std::uint32_t>(decoder.block_first(b))};
            const std::size_t n = collect_planes(block, planes, ov + count, oi + count);
            count += kept(ov + count, oi + count, n);
        }
        if (layout.tail_elems) {
            const std::size_t first = decoder.n_elems() - layout.tail_elems;
            decoder.copy_tail(ws.block.data());
            const T* px = reinterpret_cast<const T*>(ws.block.data());
            count += list_above(px, mask.data() + first, layout.tail_elems, static_cast<std::uint32_t>(first), th,
                                ov + count, oi + count);
            tail(first, px, layout.tail_elems, worker);
        }
        return count;
    }

    // Lists one frame's chunk into out_v / out_i (room for npix each); returns the count.
    // each_block(first, pixels, n, worker) also sees every decoded block (the integrators).
    template <class EachBlock = NoBlockWork>
    std::size_t list_chunk(ByteView chunk, double cut, std::uint8_t* out_v, std::uint32_t* out_i, unsigned worker,
                           EachBlock&& each_block = {}) {
        const ChunkDecoder decoder(chunk, bpp, options.codec, npix * bpp);
        WorkerSpace& ws = workers[worker];
        const std::size_t block_bytes = decoder.buffer_bytes();
        if (ws.block.size() < block_bytes) ws.block.resize(block_bytes);
        return visit_pixel_type(type, [&](auto zero) {
            using T = decltype(zero);
            const PixelThreshold<T> th(cut);
            T* ov = reinterpret_cast<T*>(out_v);
            if constexpr (std::is_integral<T>::value && std::is_same<std::decay_t<EachBlock>, NoBlockWork>::value) {
                if (collect_planes && th.mode != CutMode::none) return list_planes(decoder, ws, plane_cut(th), th, ov, out_i);
            }
            std::size_t count = 0;
            decoder.for_each_block(ws.scratch, ws.block.data(), [&](std::size_t first, const std::uint8_t* px, std::size_t n) {
                count += list_above(reinterpret_cast<const T*>(px), mask.data() + first, n,
                                            static_cast<std::uint32_t>(first), th, ov + count, out_i + count);
                each_block(first, reinterpret_cast<const T*>(px), n, worker);
            });
            return count;
        });
    }

    // As list_chunk, for an integrator that needs only the nonzero pixels (nonzero_alone):
    // each_listed(values, indices, n, th) sums a block's nonzero unmasked pixels and keeps those
    // above the cut th, in place and in order, returning how many (one pass over the list for
    // both). Integers and floats of up to 32 bits (with the plane collector) are collected from
    // the planes with the cut at 0 and no sign flip, which lists every pixel with a 1 in some
    // plane, signed or not: its nonzero ones, and a float's -0, whose w x -0 changes no sum and
    // which no cut of 0 or more keeps. The others are unshuffled a block at a time and their
    // nonzero pixels listed from it (a dense frame's zeros would otherwise be a branch taken at
    // random for each pixel). Otherwise the chunk goes through list_chunk, each_block seeing
    // every block as there.
    template <class EachBlock, class EachListed>
    std::size_t list_chunk_nonzero(ByteView chunk, double cut, std::uint8_t* out_v, std::uint32_t* out_i,
                                   unsigned worker, EachBlock&& each_block, EachListed&& each_listed) {
        const bool planes = collect_planes && type != PixelType::u64 && type != PixelType::i64;
        return visit_pixel_type(type, [&](auto zero) -> std::size_t {
            using T = decltype(zero);
            const PixelThreshold<T> th(cut);
            if (!nonzero_alone(th)) return list_chunk(chunk, cut, out_v, out_i, worker, each_block);
            T* ov = reinterpret_cast<T*>(out_v);
            if constexpr (std::is_integral<T>::value || std::is_same<T, float>::value) {
                if (planes) return list_nonzero_planes(chunk, th, ov, out_i, worker, each_block, each_listed);
            }
            const ChunkDecoder decoder(chunk, bpp, options.codec, npix * bpp);
            WorkerSpace& ws = workers[worker];
            if (ws.block.size() < decoder.buffer_bytes()) ws.block.resize(decoder.buffer_bytes());
            std::size_t count = 0;
            decoder.for_each_block(ws.scratch, ws.block.data(), [&](std::size_t first, const std::uint8_t* px, std::size_t n) {
                count += sum_nonzero(reinterpret_cast<const T*>(px), first, n, th, ov + count, out_i + count, each_listed);
            });
            return count;
        });
    }

    // Whether an integrator may take the nonzero pixels alone: it need not see every pixel, and
    // the cut lists no zero pixel.
    template <class T>
    bool nonzero_alone(const PixelThreshold<T>& th) const {
        return lists != Lists::unshuffled && th.mode != CutMode::all && !(th.mode == CutMode::compare && th(T(0)));
    }

    // The nonzero unmasked pixels of n decoded ones (frame pixels first ..) listed at ov, oi and
    // handed to each_listed with the cut th; returns how many it keeps.
    template <class T, class EachListed>
    std::size_t sum_nonzero(const T* px, std::size_t first, std::size_t n, const PixelThreshold<T>& th, T* ov,
                            std::uint32_t* oi, EachListed& each_listed) const {
        const std::size_t listed = list_pixels(px, mask.data() + first, n, static_cast<std::uint32_t>(first),
                                               [](T v) { return v != T(0); }, ov, oi);
        return each_listed(ov, oi, listed, th);
    }

    template <class T, class EachBlock, class EachListed>
    std::size_t list_nonzero_planes(ByteView chunk, const PixelThreshold<T>& th, T* ov, std::uint32_t* oi,
                                    unsigned worker, EachBlock& each_block, EachListed& each_listed) {
        const ChunkDecoder decoder(chunk, bpp, options.codec, npix * bpp);
        WorkerSpace& ws = workers[worker];
        if (ws.block.size() < decoder.buffer_bytes()) ws.block.resize(decoder.buffer_bytes());
        const auto kept = [&](T* v, std::uint32_t* idx, std::size_t n) -> std::size_t { return each_listed(v, idx, n, th); };
        return list_planes(decoder, ws, PlaneCut{}, th, ov, oi, kept, each_block, worker);  // PlaneCut{}: value > 0
    }

    // Lists a dense frame (pixels in memory, not a chunk) above `cut`, each_block seeing every
    // piece of it as list_chunk's see blocks.
    template <class EachBlock = NoBlockWork>
    std::size_t list_dense(ByteView frame, double cut, std::uint8_t* out_v, std::uint32_t* out_i, unsigned worker,
                           EachBlock&& each_block = {}) {
        return visit_pixel_type(type, [&](auto zero) {
            using T = decltype(zero);
            const PixelThreshold<T> th(cut);
            std::size_t count = 0;
            for_each_dense_piece<T>(frame, [&](std::size_t first, const T* piece, std::size_t n) {
                count += list_above(piece, mask.data() + first, n, static_cast<std::uint32_t>(first), th,
                                    reinterpret_cast<T*>(out_v) + count, out_i + count);
                each_block(first, piece, n, worker);
            });
            return count;
        });
    }

    // As list_dense, for an integrator that needs only the nonzero pixels (as list_chunk_nonzero
    // for chunks): each piece's nonzero unmasked pixels go to each_listed(values, indices, n, th),
    // which sums them and keeps those above th; otherwise list_dense.
    template <class EachBlock, class EachListed>
    std::size_t list_dense_nonzero(ByteView frame, double cut, std::uint8_t* out_v, std::uint32_t* out_i,
                                   unsigned worker, EachBlock&& each_block, EachListed&& each_listed) {
        return visit_pixel_type(type, [&](auto zero) -> std::size_t {
            using T = decltype(zero);
            const PixelThreshold<T> th(cut);
            if (!nonzero_alone(th)) return list_dense(frame, cut, out_v, out_i, worker, each_block);
            T* ov = reinterpret_cast<T*>(out_v);
            std::size_t count = 0;
            for_each_dense_piece<T>(frame, [&](std::size_t first, const T* piece, std::size_t n) {
                count += sum_nonzero(piece, first, n, th, ov + count, out_i + count, each_listed);
            });
            return count;
        });
    }

    // f(first, pixels, n) for each piece of a dense frame of T, in order. The frame may be
    // unaligned: it is read in aligned pieces through a copy.
    template <class T, class F>
    void for_each_dense_piece(ByteView frame, F&& f) const {
        if (frame.size != npix * bpp)
            throw Error(ErrorCode::bad_argument, "dense frame has " + std::to_string(frame.size) + " bytes, expected " +
                                                     std::to_string(npix * bpp));
        constexpr std::size_t kPiece = 4096;
        T piece[kPiece];
        for (std::size_t first = 0; first < npix; first += kPiece) {
            const std::size_t n = std::min(kPiece, npix - first);
            std::memcpy(piece, frame.data + first * sizeof(T), n * sizeof(T));
            f(first, static_cast<const T*>(piece), n);
        }
    }

    // Frame f's list of n pixels above `cut` (at v, idx) cut down by the top-pixels rule; its
    // last_cut and last_nabove recorded. Returns the pixels kept.
    std::size_t keep_top(std::size_t f, std::uint8_t* v, std::uint32_t* idx, std::size_t n, double cut) {
        const TopPixelsRule::Outcome o = top.apply(type, v, idx, n, cut);
        last_cut[f] = o.cut;
        last_nabove[f] = o.nabove;
        return o.kept;
    }

    // The single-frame calls' list: frame 0 of a call of one, always throwing.
    SparseFrame one_frame(double cut, const std::function<std::size_t(std::uint8_t*, std::uint32_t*)>& list) {
        std::uint8_t* v = values.reserve(npix * bpp);
        auto* idx = reinterpret_cast<std::uint32_t*>(indices.reserve(npix * sizeof(std::uint32_t)));
        last_cut.assign(1, cut);
        last_nabove.assign(1, 0);
        std::size_t n;
        try {
            n = keep_top(0, v, idx, list(v, idx), cut);
        } catch (const std::exception& e) {
            throw frame_error(0, e);
        }
        SparseFrame out{n, v, idx, type};
        out.last_cut = last_cut[0];
        out.last_nabove = last_nabove[0];
        return out;
    }

    // Runs list_frame(f, values row, indices row, worker) for every frame on the pool, then the
    // top-pixels rule on its list (the call's cut given as `cut`). A frame
    // that throws: with OnError::throw_first the call throws its frame_error (the first such
    // frame's); with OnError::report (unless memory ran out, which is no fault of the frame's)
    // the frame gets 0 pixels, forget_frame(f) clears what else it left (a powder row), and its
    // code and message go in the batch. The lists go into the caller's rows when `into` is
    // given (ListRows), else into this engine's buffers.
    template <class ListFrame, class ForgetFrame = NoFrameWork>
    SparseBatch run_batch(std::size_t nframes, double cut, OnError on_error, const ListRows* into,
                          ListFrame&& list_frame, ForgetFrame&& forget_frame = {}) {
        if (into) check_list_rows(*into, nframes, npix, type);
        npixels.assign(nframes, 0);
        last_cut.assign(nframes, cut);
        last_nabove.assign(nframes, 0);
        codes.assign(nframes, ErrorCode::ok);
        bad.clear();
        const std::size_t row = into ? into->row_length : npix;
        std::uint8_t* v = into ? static_cast<std::uint8_t*>(into->values) : values.reserve(nframes * npix * bpp);
        auto* idx = into ? into->indices
                         : reinterpret_cast<std::uint32_t*>(indices.reserve(nframes * npix * sizeof(std::uint32_t)));
        pool.run(nframes, [&](std::size_t f, unsigned worker) {
            try {
                std::uint8_t* fv = v + f * row * bpp;
                std::uint32_t* fi = idx + f * row;
                npixels[f] = keep_top(f, fv, fi, list_frame(f, fv, fi, worker), cut);
            } catch (const std::exception& e) {
                Error error = frame_error(f, e);
                if (on_error == OnError::throw_first || error.code() == ErrorCode::out_of_memory) throw error;
                npixels[f] = 0;
                last_cut[f] = cut;
                last_nabove[f] = 0;
                forget_frame(f);
                codes[f] = error.code();
                const std::lock_guard<std::mutex> lock(bad_mutex);
                bad.push_back({f, error.code(), error.what()});
            }
        });
        std::sort(bad.begin(), bad.end(), [](const FrameError& a, const FrameError& b) { return a.frame < b.frame; });
        return {nframes, row, npixels.data(), v, idx, type, codes.data(), bad.data(), bad.size(), last_cut.data(),
                last_nabove.data()};
    }
};

}  // namespace bslz4::detail
