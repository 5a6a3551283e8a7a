#include "sparse/batch_decoder.hpp"

#include <cstdlib>
#include <string>
#include <type_traits>

#include "bslz4/error.hpp"
#include "hdf5/scan_input.hpp"

namespace bslz4::tool {

namespace {

// A decoder's "frame j: why" (j counted in its call) -> "FILE:DATASET frame F: why", F the frame
// of the input dataset.
std::string scan_frame_message(const std::string& what, const ScanInput& scan, std::size_t d, std::size_t frame) {
    std::string why = what;
    const std::size_t colon = why.find(": ");
    if (why.rfind("frame ", 0) == 0 && colon != std::string::npos) why = why.substr(colon + 2);
    return frame_place(scan, d, frame) + ": " + why;  // a VDS frame names its source file's frame too
}

// The error of a decoder given frames[0], frames[1], ..., its code kept, naming the input's frame.
[[noreturn]] void rethrow_with_frame(const Error& e, const ScanInput& scan, std::size_t d, const std::vector<std::size_t>& frames) {
    const std::string what = e.what();
    const std::size_t j = what.rfind("frame ", 0) == 0 ? std::strtoull(what.c_str() + 6, nullptr, 10) : 0;
    throw Error(e.code(), scan_frame_message(what, scan, d, j < frames.size() ? frames[j] : frames[0]));
}

// What the decoder reported of frame j of its call (OnError::report): bad[] is in frame order.
FrameError reported(const SparseBatch& b, std::size_t j) {
    for (std::size_t k = 0; k < b.nbad; ++k)
        if (b.bad[k].frame == j) return b.bad[k];
    return {j, b.code(j), "frame " + std::to_string(j) + ": " + error_code_name(b.code(j))};
}

// The input frames of the batch at `positions`.
std::vector<std::size_t> frames_of(const ReadBatch& batch, const std::vector<std::size_t>& positions) {
    std::vector<std::size_t> frames;
    for (std::size_t k : positions) frames.push_back(batch.first + k);
    return frames;
}

}  // namespace

OutputRows BatchDecoder::decode(const ReadBatch& batch, std::size_t d, const PowderTarget& to) {
    const std::size_t count = batch.lengths.size(), frame_bytes = scan_.ni * scan_.nj * pixel_size(scan_.type);
    std::vector<std::size_t> coded, raw;  // positions in the batch
    std::vector<FrameError> refused;      // raw chunks that hold no raw frame, by position in the batch
    for (std::size_t k = 0; k < count; ++k) {
        const std::uint32_t mask = batch.filter_masks[k];
        if (mask == 0) {
            coded.push_back(k);
            continue;
        }
        const std::string what = scan_.file_name + ":" + scan_.datasets[d].path + " frame " + std::to_string(batch.first + k);
        FrameError e{k, ErrorCode::ok, ""};
        if (mask != 1) {
            e.code = ErrorCode::bad_header;
            e.message = what + ": the chunk's filter mask " + std::to_string(mask) + " names filters the dataset does not have";
        } else if (batch.lengths[k] != frame_bytes) {
            e.code = ErrorCode::wrong_decoded_size;
            e.message = what + ": stored with bitshuffle skipped (filter mask 1), so it should hold the raw frame of " +
                        std::to_string(frame_bytes) + " bytes, but it has " + std::to_string(batch.lengths[k]);
        } else {
            raw.push_back(k);
            continue;
        }
        if (job_.on_error != OnError::report) throw Error(e.code, e.message);
        refused.push_back(std::move(e));
    }
    IntegratedBatch from_chunks, from_raw;
    if (!coded.empty()) {
        std::vector<std::uint64_t> offsets, lengths;
        for (std::size_t k : coded) {
            offsets.push_back(batch.offsets[k]);
            lengths.push_back(batch.lengths[k]);
        }
        try {
            from_chunks = coded.size() == count ? decoder_.decode(ByteView(batch.base, batch.size), batch.offsets, batch.lengths)
                                                : decoder_.decode(ByteView(batch.base, batch.size), offsets, lengths);
        } catch (const Error& e) {
            rethrow_with_frame(e, scan_, d, frames_of(batch, coded));
        }
    }
    if (!raw.empty()) {
        if (!dense_) dense_ = make_dense_lister(job_, scan_, use_, matrix_);
        std::vector<ByteView> frames;
        for (std::size_t k : raw) frames.emplace_back(batch.base + batch.offsets[k], batch.lengths[k]);
        try {
            from_raw = dense_->list(frames);
        } catch (const Error& e) {
            rethrow_with_frame(e, scan_, d, frames_of(batch, raw));
        }
    }
    if (matrix_ && !to.powders) throw Error(ErrorCode::bad_argument, "a batch with a matrix came with nowhere to write its powders");
    if (to.powders && batch.first < to.dataset_frame)
        throw Error(ErrorCode::bad_argument, "a batch's powders were given a place after its first frame");
    const std::size_t powder_bytes = to.powders ? to.powders->row_bytes() : 0;
    const std::size_t row0 = to.row + (batch.first - to.dataset_frame);  // of the batch's first frame
    // Consecutive frames whose sums lie side by side in the decoder's buffer go in one write.
    std::size_t run_row = 0, run_count = 0;
    const std::uint8_t* run_sums = nullptr;
    const auto write_run = [&] {
        if (run_count) to.powders->write(run_row, run_count, run_sums);
        run_count = 0;
    };
    OutputRows rows;
    rows.nnz.reserve(count);
    std::size_t next_coded = 0, next_raw = 0, next_refused = 0;
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t frame = batch.first + k;
        const auto bad = [&](const FrameError& e) {
            rows.add_bad(frame, e.code, e.message);
            if (!powder_bytes) return;
            write_run();
            to.powders->write_zero(row0 + k);
        };
        if (next_refused < refused.size() && refused[next_refused].frame == k) {
            bad(refused[next_refused++]);
            continue;
        }
        // j counts this frame's place in its decoder's call, as the decoder's reports do.
        const bool is_raw = next_raw < raw.size() && raw[next_raw] == k;
        const IntegratedBatch& from = is_raw ? from_raw : from_chunks;
        const std::size_t j = is_raw ? next_raw++ : next_coded++;
        if (from.sparse.code(j) != ErrorCode::ok) {
            const FrameError e = reported(from.sparse, j);
            bad({e.frame, e.code, scan_frame_message(e.message, scan_, d, frame)});
            continue;
        }
        rows.add(from.sparse.frame(j), scan_.nj);
        if (!powder_bytes) continue;
        const auto* sums = static_cast<const std::uint8_t*>(from.powder.data) + j * powder_bytes;
        if (run_count && (run_row + run_count != row0 + k || run_sums + run_count * powder_bytes != sums)) write_run();
        if (!run_count) {
            run_row = row0 + k;
            run_sums = sums;
        }
        ++run_count;
    }
    if (powder_bytes) write_run();
    return rows;
}


std::size_t keep_pixels_in_spots(SpotFilter& spots, OutputRows& rows) {
    const std::size_t elem = rows.pixels() ? rows.intensity.size() / rows.pixels() : 0, before = rows.pixels();
    std::size_t from = 0, to = 0;
    for (auto& nnz : rows.nnz) {
        const auto n = static_cast<std::size_t>(nnz);
        const std::size_t kept = spots.keep(rows.row.data() + from, rows.col.data() + from, rows.intensity.data() + from * elem, n,
                                            rows.row.data() + to, rows.col.data() + to, rows.intensity.data() + to * elem);
        nnz = static_cast<std::remove_reference_t<decltype(nnz)>>(kept);
        from += n;
        to += kept;
    }
    rows.row.resize(to);
    rows.col.resize(to);
    rows.intensity.resize(to * elem);
    return before - to;
}

}  // namespace bslz4::tool
