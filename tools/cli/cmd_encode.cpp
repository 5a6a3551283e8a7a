#include <cstdio>

#include "bslz4/encode.hpp"
#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/file_io.hpp"

namespace bslz4::tool {

namespace {
constexpr const char* kHelp =
    "usage: bslz4 encode (--dtype T | --elem-size N) [--block-bytes B] [--codec lz4|zstd] IN -o OUT\n"
    "Compresses raw little-endian pixels into one bitshuffle chunk (HDF5 filter 32008 layout).\n"
    "  --dtype T        u8 u16 u32 u64 i8 i16 i32 i64 f32 f64, or numpy's names (uint16,\n"
    "                   float32...)\n"
    "  --elem-size N    element size in bytes (1 to 16) instead of a type\n"
    "  --block-bytes B  block size in bytes, a multiple of 8 x element size (default 8192)\n"
    "  --codec C        lz4 (default) or zstd\n"
    "  --level L        zstd compression level (default 3)\n";
}  // namespace

int cmd_encode(const Args& raw) {
    const Arguments args = parse_arguments(raw, {"--dtype", "--elem-size", "--codec", "--block-bytes", "--level", "-o"}, {});
    if (args.flags.count("help")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    if (args.positional.size() != 1) throw UsageError("give one input file");
    if (!args.has("-o")) throw UsageError("give the output file with -o OUT");
    EncodeOptions options;
    const std::size_t es = element_size(args);
    try {
        options.codec = parse_codec(args.get("--codec", "lz4"));
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    options.block_bytes = static_cast<std::size_t>(args.count("--block-bytes", 0));
    if (args.has("--block-bytes") && (options.block_bytes == 0 || options.block_bytes % (8 * es) != 0))
        throw UsageError("--block-bytes must be a positive multiple of 8 x " + std::to_string(es) + " bytes");
    options.zstd_level = static_cast<int>(args.number("--level", 3));
    const std::string& in = args.positional[0];
    const auto pixels = read_file(in);
    const auto chunk = about_file(in, [&] { return encode_chunk(pixels, es, options); });
    write_file(args.get("-o"), chunk);
    return 0;
}

}  // namespace bslz4::tool
