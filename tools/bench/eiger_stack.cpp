#include "bench/eiger_stack.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "bslz4/cpu_count.hpp"
#include "bslz4/encode.hpp"
#include "cli/command_line.hpp"
#include "synthetic/synthetic_eiger.hpp"

namespace bslz4::tool {

std::size_t EigerStack::compressed_bytes() const {
    std::size_t n = 0;
    for (const auto& c : chunks) n += c.size();
    return n;
}

double EigerStack::compression_ratio() const {
    return static_cast<double>(frame_bytes()) * static_cast<double>(chunks.size()) / static_cast<double>(compressed_bytes());
}

std::string EigerStack::describe() const {
    return std::string("synthetic Eiger 4M ") + pixel_type_name(type) + ", " + synthetic_profile_name(profile) + " profile";
}

std::vector<ByteView> EigerStack::views(std::size_t count) const {
    std::vector<ByteView> out;
    out.reserve(count);
    for (std::size_t f = 0; f < count; ++f) out.emplace_back(chunks[f % chunks.size()]);
    return out;
}

IntegrationMatrix radial_matrix(std::size_t ni, std::size_t nj, std::size_t bins, std::size_t azim) {
    constexpr double kPi = 3.14159265358979323846;
    const double ci = 0.5 * static_cast<double>(ni), cj = 0.5 * static_cast<double>(nj);
    const double step = std::hypot(ci, cj) / static_cast<double>(bins - 1);
    std::vector<float> data;
    std::vector<std::uint32_t> indices, indptr = {0};
    for (std::size_t i = 0; i < ni; ++i)
        for (std::size_t j = 0; j < nj; ++j) {  // a column per pixel (CSC)
            const double r = std::hypot(static_cast<double>(i) + 0.5 - ci, static_cast<double>(j) + 0.5 - cj) / step;
            const auto b = std::min(static_cast<std::size_t>(r), bins - 2);
            const double frac = std::min(1.0, r - static_cast<double>(b));
            const double turn = (std::atan2(static_cast<double>(i) + 0.5 - ci, static_cast<double>(j) + 0.5 - cj) + kPi) / (2 * kPi);
            const std::size_t sector = std::min(static_cast<std::size_t>(turn * static_cast<double>(azim)), azim - 1);
            const std::size_t base = sector * bins;
            indices.push_back(static_cast<std::uint32_t>(base + b));
            data.push_back(static_cast<float>(1.0 - frac));
            indices.push_back(static_cast<std::uint32_t>(base + b + 1));
            data.push_back(static_cast<float>(frac));
            indptr.push_back(static_cast<std::uint32_t>(data.size()));
        }
    const MatrixInput in{MatrixLayout::csc, bins * azim, ni * nj, data.data(), data.size(), IndexType::u32,
                         indices.data(), indices.size(), indptr.data(), indptr.size()};
    return normalise_matrix(in);
}

EigerStack make_eiger_stack(std::size_t ni, std::size_t nj, PixelType type, std::size_t frames,
                            SyntheticProfile profile) {
    EigerStack stack;
    stack.ni = ni;
    stack.nj = nj;
    stack.type = type;
    stack.profile = profile;
    stack.mask = synthetic_eiger_mask(ni, nj);
    stack.chunks.resize(frames);
    const unsigned workers = std::max(1u, std::min<unsigned>(usable_cpu_count(), static_cast<unsigned>(frames)));
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            for (std::size_t f = w; f < frames; f += workers)
                stack.chunks[f] = encode_chunk(synthetic_eiger_frame(ni, nj, type, f, profile), pixel_size(type));
        });
    for (auto& t : pool) t.join();
    return stack;
}

std::vector<SyntheticProfile> parse_profiles(const std::string& text, bool all_allowed) {
    const std::vector<SyntheticProfile> every = {SyntheticProfile::dense, SyntheticProfile::sparse,
                                                 SyntheticProfile::very_sparse};
    if (all_allowed && text == "all") return every;
    std::string names;
    for (SyntheticProfile p : every) {
        if (text == synthetic_profile_name(p)) return {p};
        names += std::string(names.empty() ? "" : ", ") + synthetic_profile_name(p);
    }
    throw UsageError("--profile: unknown profile '" + text + "' (" + names + (all_allowed ? " or all)" : ")"));
}

PixelType parse_synthetic_type(const std::string& text) {
    const PixelType t = parse_type_argument(text, "--type");  // u16 or numpy's uint16
    if (t == PixelType::u16 || t == PixelType::u32) return t;
    throw UsageError("--type: synthetic Eiger frames are u16 (uint16) or u32 (uint32), not '" + text + "'");
}

}  // namespace bslz4::tool
