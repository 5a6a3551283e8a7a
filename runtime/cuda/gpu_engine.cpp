#include "gpu_engine.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "argument_checks.hpp"
#include "bslz4/cpu_count.hpp"
#include "bslz4/error.hpp"
#include "device_array_state.hpp"
#include "device_cut.hpp"
#include "fixed_point.hpp"
#include "integrator_checks.hpp"
#include "kernel_image.hpp"

namespace bslz4::cuda::detail {

using bslz4::detail::CallGuard;

namespace {

constexpr unsigned kMaxBatch = 64;
constexpr unsigned kMaxGroup = 256;
constexpr unsigned kMinL2Batch = 8;
// A call's frames in at least this many groups, each of at least kMinGroupFrames (group_frames).
constexpr std::size_t kGroupsACall = 4, kMinGroupFrames = 8;

// Groups in flight at once, each in its own slot: with three, a group's upload never waits
// for the host to finish the group before it, nor for the kernels of the group that used
// its slot last (H200: from pinned memory 0.78 x the upload rate with three, 0.77 with two).
constexpr unsigned kSlots = 3;
// Host threads copying a call's chunks from the caller's memory into pinned staging: the copy
// runs beside the upload and the kernels of other groups, and is what bounds multi from
// pageable memory (H200 host: 16 threads 33,400 frames/s, 8 threads 32,500).
constexpr unsigned kMaxStagingThreads = 16;
// Groups of at most this many frames have their block headers walked on the host, whatever
// options.unblock says: the GPU's walk is one thread block a frame following the chain of 1,092
// headers of a dense Eiger 4M frame through shared memory (H200: about 180 us whatever the
// frames, the most of a one-frame call's kernels; 230 us when it was one thread a frame), the
// host's about 38 us a frame, beside the copy into staging. Larger groups keep the GPU's walk,
// which overlaps the other slots' work.
constexpr std::size_t kHostUnblockFrames = 4;

int resolve_device(int requested) {
    if (requested >= 0) return requested;
    CUcontext current = nullptr;
    if (driver().cuCtxGetCurrent(&current) == CUDA_SUCCESS && current) {
        CUdevice dev = 0;
        check(driver().cuCtxGetDevice(&dev), "cuCtxGetDevice");
        return static_cast<int>(dev);
    }
    return 0;
}

Chunk2SparseOptions checked_options(Chunk2SparseOptions o, PixelType t) {
    if (pixel_size(t) > 4 || t == PixelType::u64 || t == PixelType::i64 || t == PixelType::f64)
        throw Error(ErrorCode::bad_argument, std::string("the GPU decodes u8 u16 u32 i8 i16 i32 f32 pixels, not ") + pixel_type_name(t) +
                    "; use bslz4::Chunk2Sparse (CPU)");
    return o;
}

std::shared_ptr<const Module> kernels_for(const PrimaryContext& ctx, const DeviceInfo& info) {
    ScopedContext scope(ctx);
    return shared_kernels(ctx.ordinal(), info.sm, info.name);
}

// Sized from the memory free now, not the card's: another process may hold most of it.
std::size_t memory_budget_of(const PrimaryContext& ctx, const DeviceInfo& info) {
    ScopedContext scope(ctx);
    std::size_t free_bytes = 0, card_bytes = 0;
    check(driver().cuMemGetInfo(&free_bytes, &card_bytes), "cuMemGetInfo");
    return std::min(info.memory_bytes, free_bytes) / (8 * kSlots);
}

// Options asking for more are bounded: at most kMaxBatch and kMaxGroup, and what fits.
GpuEngine::GroupSizes choose_sizes(const Chunk2SparseOptions& o, const DeviceInfo& info, std::size_t frame_bytes, std::size_t budget) {
    unsigned batch = o.batch;
    if (batch == 0) {
        const std::size_t in_l2 = info.l2_bytes * 3 / 4 / frame_bytes;
        batch = in_l2 >= kMinL2Batch ? static_cast<unsigned>(std::min<std::size_t>(in_l2, kMaxBatch)) : kMaxBatch;
    }
    // A batch takes its dense frames, their partial sums by tile (with a matrix) and, from
    // incompressible chunks, 8/3 bytes of LZ4 sequences a chunk byte: under 5 frames' bytes
    // a frame. A group takes its chunks and its lists: 2 frames' bytes a frame.
    batch = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>({batch, kMaxBatch, budget / (5 * frame_bytes)})));
    unsigned group = o.group ? o.group : kMaxGroup;
    group = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>({group, kMaxGroup, budget / frame_bytes})));
    return {std::min(batch, group), group};
}

std::shared_ptr<const DeviceMask> mask_on(const PrimaryContext& ctx, const std::vector<std::uint8_t>& mask) {
    ScopedContext scope(ctx);
    return shared_mask(ctx.ordinal(), mask);
}

}  // namespace

GpuEngine::GpuEngine(ByteView m, std::size_t ni, std::size_t nj, PixelType t, Chunk2SparseOptions o)
    : format_(ni, nj, t),
      mask_host_(m.data, m.data + m.size),
      ctx_(resolve_device(o.device)),
      info_(device_info(ctx_.ordinal())),
      staging_threads_(std::max(1u, std::min(kMaxStagingThreads, usable_cpu_count()))),
      collector_(format_, m, o.codec, powder_spec_, staging_threads_, status_),
      options_(checked_options(o, t)),
      module_(kernels_for(ctx_, info_)),
      memory_budget_(memory_budget_of(ctx_, info_)),
      sizes_(choose_sizes(options_, info_, format_.frame_bytes(), memory_budget_)),
      mask_(mask_on(ctx_, mask_host_)),
      faults_(format_, options_.codec),
      staging_(format_, options_.codec, faults_, staging_threads_),
      upload_(format_, sizes_.batch, memory_budget_),
      kernels_(ctx_, *module_, info_, format_, sizes_.batch, mask_, powder_spec_) {
    ScopedContext scope(ctx_);
    slots_.reserve(kSlots);
    for (unsigned k = 0; k < kSlots; ++k) slots_.emplace_back(format_, sizes_.batch, sizes_.group);
    set_top_pixels(bslz4::detail::TopPixelsRule(options_.howmany, options_.thresholds));
}

void GpuEngine::set_top_pixels(const bslz4::detail::TopPixelsRule& rule) {
    CallGuard guard(caller_, "GPU object");
    kernels_.set_top_pixels(rule);
    collector_.set_top_pixels(rule);
}

void GpuEngine::add_matrix(const IntegrationMatrix& m, Accumulator a) {
    // A lists object handed to Chunk2SparseCSC may be in a call on another thread: refused, as
    // any second call is, before anything of the engine changes.
    CallGuard guard(caller_, "GPU object");
    bslz4::detail::check_integrator(m, format_.ni, format_.nj, format_.type, a);
    ScopedContext scope(ctx_);
    // The same choice of sums as the CPU's, so the powders agree (bit for bit where int64).
    const PreparedMatrix prepared = shared_prepared_matrix(ctx_.ordinal(), m, ByteView(mask_host_.data(), mask_host_.size()),
                                                           format_.type, a, format_.ni, format_.nj);
    powder_spec_.matrix = prepared.matrix;
    powder_spec_.acc = a;
    powder_spec_.bins = m.bins;
    powder_spec_.scale = m.fixed_point() ? m.powder_scale : 1;
    powder_spec_.fixed_sums = prepared.fixed_sums;
    powder_spec_.sum_to_f64 = prepared.fixed_sums && a == Accumulator::f64 ? 1 / prepared.powder_scale : 1;
    try {
        kernels_.add_matrix(*module_);
        for (GroupSlot& s : slots_) s.add_powders(kernels_.partial_bytes());
    } catch (...) {
        // No memory for the partial sums (or the kernel refused its shared memory): the engine
        // goes back to listing, as it did before (only an engine without a matrix is given one),
        // so a lists object handed to Chunk2SparseCSC stays whole.
        powder_spec_ = PowderSpec();
        for (GroupSlot& s : slots_) s.partial = DeviceBuffer();
        throw;
    }
}

void GpuEngine::submit(GroupSlot& s, const GroupSlot* previous, const Staged& in, std::size_t first, std::size_t count,
                       const abi::Cut& cut, ChunkSource chunks, const DeviceChunks* on_device) {
    upload_.upload_meta(s, in, count, previous);
    // Chunks on the device have their block headers walked there: the host does not hold them.
    const bool host_walk = walks_on_host(count, on_device);
    if (host_walk && !in.beside_ran) {  // not walked while staged: walked here, as staged
        const std::uint64_t* offs = s.meta();
        const auto staged = [&](std::size_t f) { return ByteView(in.from + offs[f - first], offs[count + f - first]); };
        upload_.walk_headers(s, first, count, ChunkSource(staged), chunks, faults_, status_);
    }
    if (host_walk) upload_.upload_walked(s, count);
    if (on_device)
        on_device->gather(s, first, count, kernels_.gather_kernel());
    else
        upload_.upload_chunks(s, in, count);
    kernels_.queue(s, first, count, cut, !host_walk, outputs_);
    collector_.queue_downloads(s, first, count);
}

// The slot is idle (its last group collected). Its lists' and powders' buffers are sized by the
// groups called for, not the largest group: room for lists of cap pixels is 2.3 GB a slot for
// 256 dense Eiger 4M u16 frames (an object held 9 GB of device memory, whose freeing alone took
// 6 ms), and a 2D powder (1,500 x 72 bins, f64) is 864 kB a frame, 221 MB pinned a slot for 256
// frames, where bslz4 sparse calls 64 frames in groups of 16. `lists`: whether the calls list
// (decompress and integrate do not).
void GpuEngine::size_group(GroupSlot& s, std::size_t count, bool lists) {
    if (lists) {
        grow_device(s.values, count * format_.cap * format_.bpp, "listed values");
        grow_device(s.indices, count * format_.cap * 4, "listed indices");
    }
    if (!powder_spec_.matrix) return;
    const std::size_t need = count * powder_spec_.row_bytes();
    grow_device(s.powder, need, "powders");
    grow_transfer(s.powder_host, need, "powders");
}

bool GpuEngine::walks_on_host(std::size_t count, const DeviceChunks* on_device) const {
    return !on_device && (options_.unblock != Unblock::gpu || count <= kHostUnblockFrames);
}

void GpuEngine::screen_lengths(std::size_t first, std::size_t count, ChunkSource chunks, const DeviceChunks& on_device) {
    // A chunk longer than any of a frame is read back to be judged as the host judges it; the
    // block size, in its header, is checked by the unblock kernel instead.
    for (std::size_t f = first; f < first + count; ++f) {
        if (status_.is_bad(f) || on_device.length(f) <= format_.max_chunk_bytes) continue;
        const Verdict v = faults_.before_upload(chunks(f));
        if (v.ok()) continue;
        if (!status_.reporting()) faults_.refuse(first, f, v, chunks);
        status_.mark_bad(f, v.code, frame_message(f, v));
    }
}

void GpuEngine::screen(std::size_t first, std::size_t count, ChunkSource chunks, const DeviceChunks* on_device) {
    if (on_device) return screen_lengths(first, count, chunks, *on_device);
    if (!status_.reporting()) return faults_.check_before_upload(first, count, chunks);
    for (std::size_t f = first; f < first + count; ++f) {
        if (status_.is_bad(f)) continue;
        const Verdict v = faults_.before_upload(chunks(f));
        if (!v.ok()) status_.mark_bad(f, v.code, frame_message(f, v));
    }
}

void GpuEngine::take_refused(bool reporting) {
    for (const ZstdRestaging::Refusal& r : staging_.refused()) {
        if (!reporting) throw Error(r.verdict.code, frame_message(r.frame, r.verdict));
        status_.mark_bad(r.frame, r.verdict.code, frame_message(r.frame, r.verdict));
    }
}

void GpuEngine::finish_pending(std::size_t groups, ChunkSource chunks) {
    for (std::size_t j = 0; j < slots_.size(); ++j) collector_.finish(slots_[(groups + j) % slots_.size()], chunks, faults_);
}

void GpuEngine::abandon() noexcept {
    for (GroupSlot& s : slots_) {
        if (s.upload_stream) driver().cuStreamSynchronize(s.upload_stream.get());
        if (s.stream) driver().cuStreamSynchronize(s.stream.get());
        s.pending = false;
    }
}

std::size_t GpuEngine::group_frames(std::size_t g, std::size_t first, std::size_t nframes) const {
    // A call comes in at least kGroupsACall groups (of at least kMinGroupFrames frames), so that
    // one group's staging and upload run beside another's kernels and a third's results coming
    // back: a 64-frame call in one group (a dense Eiger 4M batch on the H200) did each in turn,
    // 1.1 ms of fixed cost a call.
    const std::size_t share = std::max<std::size_t>(kMinGroupFrames, (nframes + kGroupsACall - 1) / kGroupsACall);
    std::size_t count = std::min<std::size_t>({g == 0 ? sizes_.batch : sizes_.group, share, nframes - first});
    if (g > 0 && count == nframes - first && count > sizes_.batch) count -= sizes_.batch;
    return count;
}

void GpuEngine::reserve(std::size_t frames, std::size_t chunk_bytes, ChunkMemory chunks) {
    CallGuard guard(caller_, "GPU object");
    bslz4::detail::check_reserve_frames(frames, format_.npix * (format_.bpp + 4) + powder_spec_.row_bytes());
    ScopedContext scope(ctx_);
    // No longer lz4 chunk is ever uploaded (FrameFaults::before_upload); a zstd chunk uploads
    // its restaged length, whatever its own.
    chunk_bytes = staging_.uploaded_bytes(std::min(chunk_bytes, format_.max_chunk_bytes));
    // Between calls every slot is idle: its groups were finished, or abandoned after an error.
    const std::vector<std::size_t> most = largest_groups(frames);
    for (std::size_t k = 0; k < slots_.size(); ++k) {
        if (!most[k]) continue;
        if (chunks == ChunkMemory::pageable || options_.codec != Codec::lz4) staging_.reserve(slots_[k], most[k], chunk_bytes);
        upload_.reserve(slots_[k], most[k], chunk_bytes);
        size_group(slots_[k], most[k], true);
    }
    collector_.reserve(frames);
}

std::vector<std::size_t> GpuEngine::largest_groups(std::size_t frames) const {
    std::vector<std::size_t> most(slots_.size(), 0);
    for (std::size_t g = 0, first = 0; first < frames; ++g) {
        const std::size_t count = group_frames(g, first, frames);
        most[g % slots_.size()] = std::max(most[g % slots_.size()], count);
        first += count;
        if (g >= 2 * slots_.size()) break;  // every later group is a full group or the last batch
    }
    return most;
}

SparseBatch GpuEngine::run(std::size_t nframes, double cut, ChunkSource chunks, OnError on_error,
                           const std::vector<FrameError>& known_bad, DeviceChunks* on_device, const ListRows* rows) {
    CallGuard guard(caller_, "GPU object");
    ScopedContext scope(ctx_);
    CallOutputs outputs = outputs_;
    outputs.rows = rows;
    collector_.begin(nframes, cut, outputs);  // first: it checks the caller's rows
    status_.begin(nframes, on_error);
    for (const FrameError& e : known_bad) status_.mark_bad(e.frame, e.code, e.message);
    // What the upload sees: a frame found bad on the host is an empty chunk, which the kernels
    // find short and skip (its verdict is the one marked; the collector reads the real chunks).
    const auto screened_lookup = [&](std::size_t f) {
        const ByteView c = chunks(f);
        return status_.is_bad(f) ? ByteView(c.data, 0) : c;
    };
    const ChunkSource screened(screened_lookup);
    const abi::Cut c = make_cut(format_.type, cut);
    try {
        // Every slot idle, each grown now for the largest group it will take: a buffer freed
        // and made again part way through the call would wait for the device.
        const std::vector<std::size_t> most = largest_groups(nframes);
        for (std::size_t k = 0; k < slots_.size(); ++k)
            if (most[k]) size_group(slots_[k], most[k], outputs_.lists);
        std::size_t g = 0;
        // The first group of a call is one batch, so the kernels start after a short upload
        // and the uploads of the full groups that follow overlap them; the last batch is a
        // group of its own, so what runs after the last upload is one batch's kernels.
        // A group is staged before its slot's previous group is finished: its copies overlap
        // that group's last kernels as well as the other slots' uploads and kernels.
        const GroupSlot* previous = nullptr;
        for (std::size_t first = 0; first < nframes; ++g) {
            GroupSlot& s = slots_[g % slots_.size()];
            const std::size_t count = group_frames(g, first, nframes);
            Staged in;
            // The host's walk of an lz4 group's headers reads the caller's chunks (the bytes it
            // uploads) while they are copied into staging.
            const auto walk = [&] { upload_.walk_headers(s, first, count, screened, screened, faults_, status_); };
            try {
                screen(first, count, chunks, on_device);
                if (on_device) {
                    in = on_device->stage(s, first, count, status_);
                } else {
                    in = staging_.stage(s, first, count, screened,
                                        walks_on_host(count, nullptr) ? BesideStaging(walk) : BesideStaging());
                    take_refused(status_.reporting());
                }
            } catch (const Error&) {
                finish_pending(g, chunks);  // an earlier frame's fault is reported first
                throw;
            }
            collector_.finish(s, chunks, faults_);
            try {
                submit(s, previous, in, first, count, c, screened, on_device);
            } catch (const Error&) {
                finish_pending(g, chunks);  // an earlier frame's fault is reported first
                throw;
            }
            first += count;
            previous = &s;
        }
        finish_pending(g, chunks);
    } catch (...) {
        abandon();
        throw;
    }
    status_.sort();
    return collector_.lists(nframes);
}

SparseBatch GpuEngine::run_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                  const std::vector<std::uint64_t>& lengths, double cut, const ListRows* rows) {
    std::vector<FrameError> outside;
    if (options_.on_error == OnError::report) {
        bslz4::detail::check_buffer_counts(offsets, lengths);
        for (std::size_t f = 0; f < offsets.size(); ++f) {
            try {
                bslz4::detail::chunk_in_buffer(base, offsets[f], lengths[f]);
            } catch (const Error& e) {
                outside.push_back({f, e.code(), "frame " + std::to_string(f) + ": " + e.what()});
            }
        }
    } else {
        bslz4::detail::check_buffer_ranges(base, offsets, lengths);
    }
    const auto in_buffer = [&](std::size_t f) {
        const bool inside = offsets[f] <= base.size && lengths[f] <= base.size - offsets[f];
        return inside ? ByteView(base.data + offsets[f], static_cast<std::size_t>(lengths[f])) : ByteView(base.data, 0);
    };
    return run(offsets.size(), cut, ChunkSource(in_buffer), options_.on_error, outside, nullptr, rows);
}

double GpuEngine::time_kernels(const std::vector<ByteView>& chunks, double cut, unsigned repeats) {
    CallGuard guard(caller_, "GPU object");
    if (chunks.empty() || chunks.size() > sizes_.group)
        throw Error(ErrorCode::bad_argument, "time_on_device takes 1 to group() = " + std::to_string(sizes_.group) + " chunks");
    ScopedContext scope(ctx_);
    const abi::Cut c = make_cut(format_.type, cut);
    const auto lookup = [&](std::size_t f) { return chunks[f]; };
    const ChunkSource source(lookup);
    const std::size_t n = chunks.size();
    try {
        faults_.check_before_upload(0, n, source);
        for (GroupSlot& s : slots_) {
            const Staged in = staging_.stage(s, 0, n, source);
            take_refused(false);
            upload_.upload_meta(s, in, n, nullptr);
            upload_.upload_chunks(s, in, n);
            size_group(s, n, outputs_.lists);
            kernels_.queue(s, 0, n, c, true, outputs_);  // warm-up, and a check that the chunks are good
        }
        for (GroupSlot& s : slots_) check(driver().cuStreamSynchronize(s.stream.get()), "cuStreamSynchronize");
        Event start = make_event(true), stop = make_event(true);
        const CUstream first = slots_[0].stream.get();
        check(driver().cuEventRecord(start.get(), first), "cuEventRecord");
        for (std::size_t k = 1; k < slots_.size(); ++k)
            check(driver().cuStreamWaitEvent(slots_[k].stream.get(), start.get(), 0), "cuStreamWaitEvent");
        for (unsigned r = 0; r < repeats; ++r) kernels_.queue(slots_[r % slots_.size()], 0, n, c, true, outputs_);
        std::vector<Event> done;
        for (std::size_t k = 1; k < slots_.size(); ++k) {
            done.push_back(make_event(false));
            check(driver().cuEventRecord(done.back().get(), slots_[k].stream.get()), "cuEventRecord");
            check(driver().cuStreamWaitEvent(first, done.back().get(), 0), "cuStreamWaitEvent");
        }
        check(driver().cuEventRecord(stop.get(), first), "cuEventRecord");
        check(driver().cuEventSynchronize(stop.get()), "cuEventSynchronize");
        float ms = 0;
        check(driver().cuEventElapsedTime(&ms, start.get(), stop.get()), "cuEventElapsedTime");
        return ms / 1e3;
    } catch (...) {
        abandon();
        throw;
    }
}

DeviceArray GpuEngine::run_to_device(std::size_t nframes, bool frames, ChunkSource chunks, DeviceChunks* on_device) {
    CallGuard guard(caller_, "GPU object");  // outputs_ is the call's
    const std::vector<std::size_t> shape = frames ? std::vector<std::size_t>{nframes, format_.ni, format_.nj}
                                                  : std::vector<std::size_t>{nframes, powder_spec_.bins};
    const std::size_t bytes = frames ? nframes * format_.frame_bytes() : nframes * powder_spec_.row_bytes();
    DeviceArray out(std::make_unique<DeviceArrayState>(
        ctx_.ordinal(), shape, frames ? pixel_type_name(format_.type) : accumulator_name(powder_spec_.acc), bytes));
    struct Restore {
        CallOutputs& outputs;
        ~Restore() { outputs = CallOutputs(); }
    } restore{outputs_};
    outputs_.lists = false;
    (frames ? outputs_.dense : outputs_.powders) = &out;
    run(nframes, 0.0, chunks, OnError::throw_first, {}, on_device);
    return out;
}

namespace {

// from_device takes lz4 chunks only: a zstd chunk is decompressed on the host, so it would have
// to be read back whole first.
void check_device_codec(Codec codec) {
    if (codec != Codec::lz4)
        throw Error(ErrorCode::bad_argument, "from_device takes lz4 chunks; zstd chunks are decompressed on the host: "
                                             "copy them there and call multi or from_buffer");
}

}  // namespace

SparseBatch GpuEngine::run_device(std::uint64_t base, const std::vector<std::uint64_t>& offsets,
                                  const std::vector<std::uint64_t>& lengths, double cut, const ListRows* rows) {
    CallGuard guard(caller_, "GPU object");
    check_device_codec(options_.codec);
    ScopedContext scope(ctx_);
    DeviceChunks on_device(base, offsets, lengths, ctx_.ordinal(), options_.on_error == OnError::report);
    const auto read_back = [&](std::size_t f) { return on_device.host_copy(f); };
    return run(offsets.size(), cut, ChunkSource(read_back), options_.on_error, on_device.outside(), &on_device, rows);
}

DeviceArray GpuEngine::run_device_to_device(std::uint64_t base, const std::vector<std::uint64_t>& offsets,
                                            const std::vector<std::uint64_t>& lengths, bool frames) {
    CallGuard guard(caller_, "GPU object");
    check_device_codec(options_.codec);
    ScopedContext scope(ctx_);
    DeviceChunks on_device(base, offsets, lengths, ctx_.ordinal(), false);
    const auto read_back = [&](std::size_t f) { return on_device.host_copy(f); };
    return run_to_device(offsets.size(), frames, ChunkSource(read_back), &on_device);
}

GpuEngine& live_engine(const std::unique_ptr<GpuEngine>& engine) {
    if (!engine)
        throw Error(ErrorCode::bad_argument, "this GPU object was moved from (its engine given to another object, such as a "
                                             "Chunk2SparseCSC made from it): it takes no more calls");
    return *engine;
}

std::unique_ptr<GpuEngine> make_engine(ByteView mask, std::size_t ni, std::size_t nj, PixelType type,
                                       Chunk2SparseOptions options) {
    bslz4::detail::check_frame_mask(mask, ni, nj);
    const std::string why = unavailable_reason();
    if (!why.empty()) throw Error(ErrorCode::gpu_fault, why);
    return std::make_unique<GpuEngine>(mask, ni, nj, type, options);
}

}  // namespace bslz4::cuda::detail
