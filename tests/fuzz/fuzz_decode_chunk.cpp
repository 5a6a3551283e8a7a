// Fuzzes decode_chunk for element sizes 1 to 16 and both codecs against the reference
// decoder (reference_decoder.hpp): both accept or both refuse, and what both accept decodes to
// the same bytes. zstd blocks are held against ZSTD_decompress itself.
// Input: byte 0 picks the element size ((byte & 15) + 1) and the codec (bit 4: zstd), the
// rest is the chunk.

#include <algorithm>
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
using bslz4::fuzz::Refusal;

// The harness's own limit, not the library's: a header may ask for frames of any size that
// the blocks can physically hold (a zstd block up to 32768 bytes per input byte), which both
// decoders would allocate. Such headers are the layout and Chunk2Sparse targets' business.
constexpr std::uint64_t kMaxFrameBytes = 64u << 20;

std::vector<std::vector<std::uint8_t>> make_seeds() {
    std::vector<std::vector<std::uint8_t>> seeds;
    for (const auto& c : fuzz::seed_chunks()) {
        const std::uint8_t codec_bit = c.codec == Codec::zstd ? 16 : 0;
        std::vector<std::uint8_t> s{static_cast<std::uint8_t>((c.elem_size - 1) | codec_bit)};
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
    const Codec codec = (data[0] & 16u) ? Codec::zstd : Codec::lz4;
    const ByteView chunk(data + 1, size - 1);
    if (chunk.size >= 12 && fuzz::read_be(chunk.data, 8) > kMaxFrameBytes) return 0;
    const std::string where = "element size " + std::to_string(es) + ", " + codec_name(codec) + ", " +
                              std::to_string(chunk.size) + "-byte chunk: ";

    const fuzz::RefChunk ref = fuzz::ref_decode_chunk(chunk.data, chunk.size, es, codec == Codec::zstd);
    bool ok = true;
    std::string message;
    std::vector<std::uint8_t> pixels;
    try {
        pixels = decode_chunk(chunk, es, codec);
    } catch (const Error& e) {
        ok = false;
        message = e.what();
    }

    const bool ref_ok = ref.refusal == Refusal::none;
    if (ok && !ref_ok) fail(where + "the library decoded it, the reference refuses it (" + ref.why + ")");
    if (!ok && ref_ok) fail(where + "the library refused a chunk the reference decodes: " + message);
    if (!ok) {
        if (message.empty()) fail(where + "an error without a message");
        return 0;
    }
    if (pixels != ref.pixels) fail(where + "the library's pixels differ from the reference's");

    // decode_chunk_into: the same bytes into the caller's buffer, any other size refused.
    std::vector<std::uint8_t> into(pixels.size() + 1, 0xA5);
    try {
        decode_chunk_into(chunk, es, codec, into.data(), pixels.size());
    } catch (const Error& e) {
        fail(where + "decode_chunk_into refused what decode_chunk decoded: " + e.what());
    }
    if (!std::equal(pixels.begin(), pixels.end(), into.begin()) || into.back() != 0xA5)
        fail(where + "decode_chunk_into wrote other bytes than decode_chunk");
    bool refused = false;
    try {
        decode_chunk_into(chunk, es, codec, into.data(), pixels.size() + 1);
    } catch (const Error&) {
        refused = true;
    }
    if (!refused) fail(where + "decode_chunk_into accepted a buffer one byte too long");
    return 0;
}
