// bslz4 demo: decodes the shared reference cases (when present) and a synthetic Eiger frame,
// checks them, and says what it did.
#include <cstdio>
#include <cstring>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/decode.hpp"
#include "bslz4/encode.hpp"
#include "bslz4/error.hpp"
#include "bslz4/synthetic_eiger.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "file_io.hpp"
#include "reference_cases.hpp"
#include "sha256.hpp"

namespace bslz4::tool {

namespace {
constexpr const char* kHelp =
    "usage: bslz4 demo [--testdata DIR] [--cut C]\n"
    "Decodes every reference chunk in DIR (default: $BSLZ4_TESTDATA or ../shared/testdata beside\n"
    "the sources) and checks each against its recorded sha256, then makes a synthetic Eiger 4M\n"
    "u16 frame, encodes it, decodes it and lists the pixels above the cut (default 10).\n";

int reference_cases(const std::string& dir) {
    const auto cases = read_reference_cases(dir);
    std::size_t ok = 0, bytes = 0;
    for (const ReferenceCase& c : cases) {
        const auto chunk = read_file(c.chunk_path);
        const auto pixels = about_file(c.chunk_path, [&] { return decode_chunk(chunk, c.elem_size, c.codec); });
        if (sha256_hex(pixels) != c.sha256) {
            std::fprintf(stderr, "bslz4: %s: decoded pixels do not match the recorded sha256\n", c.chunk_path.c_str());
            return 1;
        }
        ++ok;
        bytes += pixels.size();
    }
    std::printf("reference cases: %zu of %zu chunks in %s decode to their recorded sha256 (%.2f MB)\n", ok,
                cases.size(), dir.c_str(), bytes / 1e6);
    return 0;
}
}  // namespace

int cmd_demo(const Args& raw) {
    const Arguments args = parse_arguments(raw, {"--testdata", "--cut"}, {});
    if (args.flags.count("help")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    const std::string dir = args.get("--testdata", default_testdata_dir());
    const double cut = args.number("--cut", 10.0);
    if (std::FILE* f = std::fopen((dir + "/cases.tsv").c_str(), "r")) {
        std::fclose(f);
        if (int rc = reference_cases(dir)) return rc;
    } else {
        std::printf("reference cases: none at %s (skipped)\n", dir.c_str());
    }

    const std::size_t ni = kEiger4mRows, nj = kEiger4mCols;
    const auto frame = synthetic_eiger_frame(ni, nj, PixelType::u16, 0);
    const auto chunk = encode_chunk(frame, 2);
    const auto back = decode_chunk(chunk, 2);
    if (back != frame) throw Error("synthetic Eiger frame: decoded pixels differ from the encoded ones");
    const auto mask = synthetic_eiger_mask(ni, nj);
    Chunk2Sparse sparse(mask, ni, nj, PixelType::u16);
    const CooFrame coo = sparse.coo(chunk, cut);
    std::printf("synthetic Eiger 4M u16 frame: %zu x %zu, %zu bytes -> %zu bytes compressed (ratio %.1f), decoded "
                "back exactly\n",
                ni, nj, frame.size(), chunk.size(), static_cast<double>(frame.size()) / chunk.size());
    std::printf("pixels above %g outside the module gaps: %zu", cut, coo.npixels);
    if (coo.npixels) {
        const auto* v = coo.values_as<std::uint16_t>();
        std::printf(" (first at row %u col %u = %u)", coo.row[0], coo.col[0], v[0]);
    }
    std::printf("\n");
    return 0;
}

}  // namespace bslz4::tool
