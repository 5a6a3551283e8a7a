// LZ4 blocks written sequence by sequence, for the tests of the format's rules: blocks no
// encoder writes (an offset of 0, a match in the block's last bytes), shared by the CPU and GPU
// tests so both judge the same bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace bslz4::test {

class Lz4BlockWriter {
public:
    // A sequence: the literals, then a match of `match` bytes (at least 4) at distance `offset`
    // (written as given, 0 included).
    Lz4BlockWriter& sequence(const std::vector<std::uint8_t>& literals, unsigned offset, std::size_t match) {
        token(literals.size(), match - 4);
        out_.insert(out_.end(), literals.begin(), literals.end());
        offset_at_ = out_.size();
        out_.push_back(static_cast<std::uint8_t>(offset));
        out_.push_back(static_cast<std::uint8_t>(offset >> 8));
        if (match - 4 >= 15) length(match - 4 - 15);
        decoded_ += literals.size() + match;
        return *this;
    }

    // The block, ended by a last sequence of literals only.
    std::vector<std::uint8_t> last(const std::vector<std::uint8_t>& literals) {
        token(literals.size(), 0);
        out_.insert(out_.end(), literals.begin(), literals.end());
        decoded_ += literals.size();
        return out_;
    }

    // The block as it is, ending with a match.
    const std::vector<std::uint8_t>& bytes() const { return out_; }
    std::size_t decoded() const { return decoded_; }
    // Where the last sequence's offset field is in the block.
    std::size_t offset_at() const { return offset_at_; }

private:
    void token(std::size_t lit, std::size_t match_extra) {
        out_.push_back(static_cast<std::uint8_t>((lit < 15 ? lit : 15) << 4 | (match_extra < 15 ? match_extra : 15)));
        if (lit >= 15) length(lit - 15);
    }
    void length(std::size_t rest) {
        for (; rest >= 255; rest -= 255) out_.push_back(255);
        out_.push_back(static_cast<std::uint8_t>(rest));
    }

    std::vector<std::uint8_t> out_;
    std::size_t decoded_ = 0;
    std::size_t offset_at_ = 0;
};

// n bytes of noise (literals that no match could replace).
inline std::vector<std::uint8_t> noise_bytes(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) b = static_cast<std::uint8_t>(rng());
    return v;
}

// Good sequences (8 literals, then a match at distance 8) until `at` bytes are decoded, then
// one sequence of `literals` literals and a match of `match` bytes at `offset`: a block with one
// chosen sequence at output byte `at` (or up to 11 bytes later, those bytes joining its
// literals). finish_block ends it.
inline Lz4BlockWriter block_around(std::size_t at, std::size_t literals, unsigned offset, std::size_t match) {
    Lz4BlockWriter w;
    while (at - w.decoded() >= 48 + 12) w.sequence(noise_bytes(8, static_cast<std::uint32_t>(w.decoded())), 8, 40);
    if (at - w.decoded() >= 12) w.sequence(noise_bytes(8, 1), 8, at - w.decoded() - 8);
    w.sequence(noise_bytes(at - w.decoded() + literals, 2), offset, match);
    return w;
}

// Ends w with good sequences and at least 5 last literals, `expected` bytes in all
// (expected >= w.decoded() + 5).
inline std::vector<std::uint8_t> finish_block(Lz4BlockWriter& w, std::size_t expected) {
    while (expected - w.decoded() >= 48 + 20) w.sequence(noise_bytes(8, 3), 8, 40);
    const std::size_t rest = expected - w.decoded();
    if (rest >= 20) w.sequence(noise_bytes(8, 4), 8, rest - 16);  // a match of rest - 16 >= 4
    return w.last(noise_bytes(rest >= 20 ? 8 : rest, 5));
}

}  // namespace bslz4::test
