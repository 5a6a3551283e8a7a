#include <cstdio>

#include "bslz4/decode.hpp"
#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/file_io.hpp"

namespace bslz4::tool {

namespace {
constexpr const char* kHelp =
    "usage: bslz4 decode (--dtype T | --elem-size N) [--codec lz4|zstd] [--cpu] IN -o OUT\n"
    "Decodes one bitshuffle chunk to raw little-endian pixels.\n"
    "  --dtype T       u8 u16 u32 u64 i8 i16 i32 i64 f32 f64, or numpy's names (uint16,\n"
    "                  float32...)\n"
    "  --elem-size N   element size in bytes (1 to 16) instead of a type\n"
    "  --codec C       lz4 (default) or zstd\n"
    "  --cpu           decode on the CPU (the only decoder in this build)\n";
}  // namespace

int cmd_decode(const Args& raw) {
    const Arguments args = parse_arguments(raw, {"--dtype", "--elem-size", "--codec", "-o"}, {"--cpu"});
    if (args.flags.count("help")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    if (args.positional.size() != 1) throw UsageError("give one input chunk");
    if (!args.has("-o")) throw UsageError("give the output file with -o OUT");
    const std::size_t es = element_size(args);
    Codec codec;
    try {
        codec = parse_codec(args.get("--codec", "lz4"));
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    const std::string& in = args.positional[0];
    const auto chunk = read_file(in);
    const auto pixels = about_file(in, [&] { return decode_chunk(chunk, es, codec); });
    write_file(args.get("-o"), pixels);
    return 0;
}

}  // namespace bslz4::tool
