// Chunk2Sparse on the CPU. A frame is decoded block by block into a block-sized buffer that
// stays in L1, and listed from there: the dense frame is never written to memory.
#include "bslz4/chunk2sparse.hpp"

#include <cstring>
#include <string>

#include "bslz4/error.hpp"
#include "buffer_ranges.hpp"
#include "chunk_decoder.hpp"
#include "host_buffer.hpp"
#include "sparsify.hpp"
#include "thread_pool.hpp"

namespace bslz4 {

namespace {

struct WorkerSpace {
    detail::BlockScratch scratch;
    std::vector<std::uint8_t> block;  // one decoded block
};

std::string frame_error(std::size_t f, const std::exception& e) {
    return "frame " + std::to_string(f) + ": " + e.what();
}

}  // namespace

struct Chunk2Sparse::State {
    std::size_t ni, nj, npix;
    PixelType type;
    std::size_t bpp;
    Chunk2SparseOptions options;
    std::vector<std::uint8_t> mask;
    detail::ThreadPool pool;
    std::vector<WorkerSpace> workers;
    // Results of the last call (views handed out point here).
    detail::HostBuffer values, indices;
    std::vector<std::size_t> npixels;

    State(ByteView m, std::size_t ni_, std::size_t nj_, PixelType t, Chunk2SparseOptions o)
        : ni(ni_), nj(nj_), npix(ni_ * nj_), type(t), bpp(pixel_size(t)), options(o), pool(o.threads) {
        if (ni == 0 || nj == 0) throw Error("frame shape " + std::to_string(ni) + " x " + std::to_string(nj) + " is empty");
        if (npix > 0xFFFFFFFFull) throw Error("frame of " + std::to_string(npix) + " pixels does not fit 32-bit indices");
        if (m.size != npix)
            throw Error("mask has " + std::to_string(m.size) + " bytes, the frame " + std::to_string(ni) + " x " +
                        std::to_string(nj) + " needs " + std::to_string(npix));
        mask.assign(m.data, m.data + m.size);
        workers.resize(pool.size());
    }

    // Lists one frame's chunk into out_v / out_i (room for npix each); returns the count.
    std::size_t list_chunk(ByteView chunk, double cut, std::uint8_t* out_v, std::uint32_t* out_i, unsigned worker) {
        const detail::ChunkDecoder decoder(chunk, bpp, options.codec, npix * bpp);
        WorkerSpace& ws = workers[worker];
        const std::size_t block_bytes = decoder.layout().header.block_elems * bpp;
        if (ws.block.size() < block_bytes) ws.block.resize(block_bytes);
        return visit_pixel_type(type, [&](auto zero) {
            using T = decltype(zero);
            const detail::PixelThreshold<T> th(cut);
            T* ov = reinterpret_cast<T*>(out_v);
            std::size_t count = 0;
            decoder.for_each_block(ws.scratch, ws.block.data(), [&](std::size_t first, const std::uint8_t* px, std::size_t n) {
                count += detail::list_above(reinterpret_cast<const T*>(px), mask.data() + first, n,
                                            static_cast<std::uint32_t>(first), th, ov + count, out_i + count);
            });
            return count;
        });
    }

    std::size_t list_dense(ByteView frame, double cut, std::uint8_t* out_v, std::uint32_t* out_i) {
        if (frame.size != npix * bpp)
            throw Error("dense frame has " + std::to_string(frame.size) + " bytes, expected " + std::to_string(npix * bpp));
        return visit_pixel_type(type, [&](auto zero) {
            using T = decltype(zero);
            // The frame may be unaligned: list it in aligned pieces through a copy.
            constexpr std::size_t kPiece = 4096;
            T piece[kPiece];
            std::size_t count = 0;
            for (std::size_t first = 0; first < npix; first += kPiece) {
                const std::size_t n = std::min(kPiece, npix - first);
                std::memcpy(piece, frame.data + first * sizeof(T), n * sizeof(T));
                count += detail::list_above(piece, mask.data() + first, n, static_cast<std::uint32_t>(first),
                                            detail::PixelThreshold<T>(cut), reinterpret_cast<T*>(out_v) + count,
                                            out_i + count);
            }
            return count;
        });
    }

    template <class ListFrame>
    SparseBatch run_batch(std::size_t nframes, ListFrame&& list_frame) {
        npixels.assign(nframes, 0);
        std::uint8_t* v = values.reserve(nframes * npix * bpp);
        auto* idx = reinterpret_cast<std::uint32_t*>(indices.reserve(nframes * npix * sizeof(std::uint32_t)));
        pool.run(nframes, [&](std::size_t f, unsigned worker) {
            try {
                npixels[f] = list_frame(f, v + f * npix * bpp, idx + f * npix, worker);
            } catch (const std::exception& e) {
                throw Error(frame_error(f, e));
            }
        });
        return {nframes, npix, npixels.data(), v, idx, type};
    }
};

Chunk2Sparse::Chunk2Sparse(ByteView mask, std::size_t ni, std::size_t nj, PixelType pixel_type, Chunk2SparseOptions options)
    : state_(std::make_unique<State>(mask, ni, nj, pixel_type, options)) {}
Chunk2Sparse::~Chunk2Sparse() = default;
Chunk2Sparse::Chunk2Sparse(Chunk2Sparse&&) noexcept = default;
Chunk2Sparse& Chunk2Sparse::operator=(Chunk2Sparse&&) noexcept = default;

std::size_t Chunk2Sparse::ni() const { return state_->ni; }
std::size_t Chunk2Sparse::nj() const { return state_->nj; }
PixelType Chunk2Sparse::pixel_type() const { return state_->type; }
unsigned Chunk2Sparse::threads() const { return state_->pool.size(); }

SparseFrame Chunk2Sparse::operator()(ByteView chunk, double cut) {
    State& s = *state_;
    std::uint8_t* v = s.values.reserve(s.npix * s.bpp);
    auto* idx = reinterpret_cast<std::uint32_t*>(s.indices.reserve(s.npix * sizeof(std::uint32_t)));
    std::size_t n;
    try {
        n = s.list_chunk(chunk, cut, v, idx, 0);
    } catch (const std::exception& e) {
        throw Error(frame_error(0, e));
    }
    return {n, v, idx, s.type};
}

SparseBatch Chunk2Sparse::multi(const std::vector<ByteView>& chunks, double cut) {
    return state_->run_batch(chunks.size(), [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w) {
        return state_->list_chunk(chunks[f], cut, v, idx, w);
    });
}

SparseBatch Chunk2Sparse::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                      const std::vector<std::uint64_t>& lengths, double cut) {
    detail::check_buffer_ranges(base, offsets, lengths);
    return state_->run_batch(offsets.size(), [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w) {
        return state_->list_chunk(ByteView(base.data + offsets[f], lengths[f]), cut, v, idx, w);
    });
}

SparseBatch Chunk2Sparse::from_frames(const std::vector<ByteView>& frames, double cut) {
    return state_->run_batch(frames.size(), [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned) {
        return state_->list_dense(frames[f], cut, v, idx);
    });
}

CooFrame Chunk2Sparse::coo(ByteView chunk, double cut) { return make_coo((*this)(chunk, cut), state_->nj); }

}  // namespace bslz4
