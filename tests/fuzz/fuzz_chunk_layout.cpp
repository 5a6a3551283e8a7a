// Fuzzes the chunk header and block walker (parse_chunk_header, block_starts) for element
// sizes 1 to 16 against the reference walker: both accept or both refuse, and an accepted
// layout is the reference's (every block's place and size, the raw tail).
// Input: byte 0 picks the element size ((byte & 15) + 1), the rest is the chunk.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "fuzz_report.hpp"
#include "reference_decoder.hpp"
#include "seed_corpus.hpp"

namespace {

using namespace bslz4;
using bslz4::fuzz::fail;

std::vector<std::vector<std::uint8_t>> make_seeds() {
    std::vector<std::vector<std::uint8_t>> seeds;
    for (const auto& c : fuzz::seed_chunks()) {
        std::vector<std::uint8_t> s{static_cast<std::uint8_t>(c.elem_size - 1)};
        s.insert(s.end(), c.bytes.begin(), c.bytes.end());
        seeds.push_back(std::move(s));
    }
    return seeds;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::write_seeds_if_asked(make_seeds);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::size_t es = (data[0] & 15u) + 1;
    const ByteView chunk(data + 1, size - 1);
    const std::string where = "element size " + std::to_string(es) + ", " + std::to_string(chunk.size) + "-byte chunk: ";

    fuzz::RefLayout ref;
    std::string ref_why;
    const bool ref_header_ok = fuzz::ref_header(chunk.data, chunk.size, es, ref, ref_why);
    bool header_ok = true;
    std::string message;
    ChunkHeader header;
    try {
        header = parse_chunk_header(chunk, es);
    } catch (const Error& e) {
        header_ok = false;
        message = e.what();
    }
    if (header_ok != ref_header_ok)
        fail(where + "parse_chunk_header " + (header_ok ? "accepted" : "refused (" + message + ")") +
             ", the reference " + (ref_header_ok ? "accepts" : "refuses (" + ref_why + ")"));
    if (header_ok && (header.decoded_bytes != ref.decoded_bytes || header.block_elems != ref.block_elems))
        fail(where + "parse_chunk_header's sizes differ from the reference's");
    if (!header_ok && message.empty()) fail(where + "an error without a message");

    ref = {};
    const bool ref_ok = fuzz::ref_layout(chunk.data, chunk.size, es, ref, ref_why);
    bool ok = true;
    BlockLayout layout;
    try {
        layout = block_starts(chunk, es);
    } catch (const Error& e) {
        ok = false;
        message = e.what();
    }
    if (ok != ref_ok)
        fail(where + "block_starts " + (ok ? "accepted" : "refused (" + message + ")") + ", the reference " +
             (ref_ok ? "accepts" : "refuses (" + ref_why + ")"));
    if (!ok) {
        if (message.empty()) fail(where + "an error without a message");
        return 0;
    }
    if (layout.n_blocks() != ref.block_at.size()) fail(where + "block count differs from the reference's");
    for (std::size_t b = 0; b < layout.n_blocks(); ++b)
        if (layout.starts[b] != ref.block_at[b] || layout.block_elems(b) != ref.block_elems_of[b])
            fail(where + "block " + std::to_string(b) + " differs from the reference's");
    if (layout.tail_offset != ref.tail_at || layout.tail_elems * es != ref.tail_bytes)
        fail(where + "the raw tail differs from the reference's");

    // The frame-size check: the right size passes, any other is refused.
    try {
        block_starts(chunk, es, ref.decoded_bytes);
    } catch (const Error& e) {
        fail(where + "refused with its own decoded size as the frame size: " + e.what());
    }
    if (ref.decoded_bytes + es > ref.decoded_bytes) {
        bool refused = false;
        try {
            block_starts(chunk, es, ref.decoded_bytes + es);
        } catch (const Error&) {
            refused = true;
        }
        if (!refused) fail(where + "accepted with a frame size one element larger than its header says");
    }
    return 0;
}
