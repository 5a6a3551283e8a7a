// `bslz4 sparse --howmany N [--thresholds a,b,c]`: the lists written are the library's with that
// top-pixels setting, and a wrong option is a usage error before any file is read.
#include <catch2/catch.hpp>

#include <cstdio>
#include <optional>

#include "bslz4/bslz4.hpp"
#include "h5_reader.hpp"
#include "hdf5/scan_writer.hpp"
#include "tool_runner.hpp"
#include "synthetic/synthetic_eiger.hpp"

using namespace bslz4;
using test::run_tool;
using test::temp_path;

namespace {

constexpr std::size_t kTopNi = 40, kTopNj = 50, kTopFrames = 70;  // two batches of the job

std::vector<std::vector<std::uint8_t>> write_top_scan(const std::string& path) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < kTopFrames; ++f)
        chunks.push_back(encode_chunk(synthetic_eiger_frame(kTopNi, kTopNj, PixelType::u16, f), 2));
    tool::write_scan(path, kTopNi, kTopNj, PixelType::u16, kTopFrames, {}, chunks);
    return chunks;
}

// The output's lists against Chunk2Sparse's with set_top_pixels(howmany, thresholds).
void require_lists_of(const std::string& out, const std::vector<std::vector<std::uint8_t>>& chunks, double cut,
                      std::size_t howmany, std::optional<std::vector<double>> thresholds) {
    const test::H5Reader f(out);
    const auto nnz = f.dataset<std::int32_t>("/entry/data/data/nnz", H5T_NATIVE_INT32);
    const auto row = f.dataset<std::uint32_t>("/entry/data/data/row", H5T_NATIVE_UINT32);
    const auto col = f.dataset<std::uint32_t>("/entry/data/data/col", H5T_NATIVE_UINT32);
    const auto value = f.dataset<std::uint32_t>("/entry/data/data/intensity", H5T_NATIVE_UINT32);
    REQUIRE(nnz.size() == kTopFrames);
    Chunk2Sparse c(std::vector<std::uint8_t>(kTopNi * kTopNj, 1), kTopNi, kTopNj, PixelType::u16);
    c.set_top_pixels(howmany, std::move(thresholds));
    std::size_t at = 0, cut_down = 0;
    for (std::size_t k = 0; k < kTopFrames; ++k) {
        const SparseFrame want = c(chunks[k], cut);
        REQUIRE(static_cast<std::size_t>(nnz[k]) == want.npixels);
        cut_down += want.last_nabove != want.npixels || want.last_cut != cut;
        for (std::size_t p = 0; p < want.npixels; ++p, ++at) {
            REQUIRE(row[at] == want.indices[p] / kTopNj);
            REQUIRE(col[at] == want.indices[p] % kTopNj);
            REQUIRE(value[at] == want.values_as<std::uint16_t>()[p]);
        }
    }
    REQUIRE(at == row.size());
    REQUIRE(cut_down > 0);  // the setting did cut lists down
}

}  // namespace

TEST_CASE("sparse --howmany with or without --thresholds writes the library's top-pixel lists", "[sparse-top]") {
    const std::string scan = temp_path("top_scan.h5"), out = temp_path("top_out.h5");
    const auto chunks = write_top_scan(scan);
    auto r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --cpu --quiet --howmany 15 --thresholds 4,8,50");
    REQUIRE(r.code == 0);
    require_lists_of(out, chunks, 2, 15, std::vector<double>{4, 8, 50});
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --cpu --quiet --howmany 15");
    REQUIRE(r.code == 0);
    require_lists_of(out, chunks, 2, 15, std::nullopt);
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --quiet --howmany 7 --thresholds ''");
    REQUIRE(r.code == 0);
    require_lists_of(out, chunks, 2, 7, std::vector<double>{});
    std::remove(scan.c_str());
    std::remove(out.c_str());
}

TEST_CASE("sparse --thresholds without --howmany, a bad list, or a howmany not a count is a usage error",
          "[sparse-top]") {
    const std::string scan = temp_path("top_missing.h5"), out = temp_path("top_missing_out.h5");
    const struct {
        const char* options;
        const char* says;  // "" : any message
    } refused[] = {
        {"--thresholds 1,2", "--thresholds goes with --howmany"},
        {"--howmany 5 --thresholds 5,1", "thresholds [5, 1]"},
        {"--howmany 5 --thresholds 1,x", "--thresholds '1,x'"},
        {"--howmany -3", ""},
    };
    for (const auto& c : refused) {
        const auto r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 " + c.options);
        INFO(c.options << ": " << r.err);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains(c.says));
    }
}
