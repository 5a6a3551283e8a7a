#include <cinttypes>
#include <cstdio>

#include "bslz4/chunk_header.hpp"
#include "bslz4/cpu_count.hpp"
#include "bslz4/cpu_path.hpp"
#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/file_io.hpp"
#include "cli/gpu_report.hpp"

namespace bslz4::tool {

namespace {
constexpr const char* kHelp =
    "usage: bslz4 info [--dtype T | --elem-size N] CHUNK\n"
    "       bslz4 info --gpu [--sm N]\n"
    "       bslz4 info --cpu\n"
    "Prints a bitshuffle chunk's decoded size, block size, number of blocks and each block's\n"
    "compressed size. The element size (default 1) decides how the block layout is read.\n"
    "\n"
    "--gpu: can this host run the GPU decoder? The first line is the verdict (gpu: ok: ... or\n"
    "gpu: none usable: WHY), with the driver's CUDA version and the kernels' toolkit and\n"
    "architectures; then the driver, the kernels and each device (name, sm, memory, and whether\n"
    "it runs the kernels' SASS, or their PTX by JIT, checked by decoding a test frame against the\n"
    "CPU). Exit 0 when at least one device works, 1 when none does.\n"
    "--sm N (with --gpu): would a GPU of compute capability N (70 = V100, 90 = H100) run these\n"
    "kernels? No GPU needed; exit 0 yes, 1 no.\n"
    "--cpu: the CPU decoder's instruction-set path (portable, avx2 or avx512: chosen by CPUID,\n"
    "or forced with BSLZ4_CPU_PATH), the paths this CPU runs, and the CPUs this process may use.\n";

std::uint32_t be32(const std::vector<std::uint8_t>& b, std::uint64_t at) {
    return (std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) | (std::uint32_t{b[at + 2]} << 8) | b[at + 3];
}
}  // namespace

int cmd_info(const Args& raw) {
    const Arguments args = parse_arguments(raw, {"--dtype", "--elem-size", "--sm"}, {"--gpu", "--cpu"});
    if (args.flags.count("help")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    if (args.has("--gpu")) {
        if (!args.positional.empty() || args.has("--dtype") || args.has("--elem-size"))
            throw UsageError("--gpu takes no chunk, --dtype or --elem-size");
        return gpu_report(args);
    }
    if (args.has("--sm")) throw UsageError("--sm goes with --gpu");
    if (args.has("--cpu")) {
        if (!args.positional.empty() || args.has("--dtype") || args.has("--elem-size"))
            throw UsageError("--cpu takes no chunk, --dtype or --elem-size");
        std::printf("cpu path        %s\n", describe_cpu_paths().c_str());
        std::printf("usable cpus     %u\n", usable_cpu_count());
        return 0;
    }
    if (args.positional.size() != 1) throw UsageError("give one chunk file");
    const std::string& path = args.positional[0];
    const std::size_t es = args.has("--dtype") || args.has("--elem-size") ? element_size(args) : 1;
    const auto chunk = read_file(path);
    const BlockLayout layout = about_file(path, [&] { return block_starts(chunk, es); });
    std::printf("file            %s\n", path.c_str());
    std::printf("chunk bytes     %zu\n", chunk.size());
    std::printf("decoded bytes   %" PRIu64 "\n", layout.header.decoded_bytes);
    std::printf("element size    %zu\n", es);
    std::printf("block bytes     %zu (header field %" PRIu32 ")\n", layout.header.block_elems * es,
                layout.header.block_bytes_field);
    std::printf("blocks          %zu\n", layout.n_blocks());
    std::printf("raw tail        %zu elements\n", layout.tail_elems);
    for (std::size_t b = 0; b < layout.n_blocks(); ++b)
        std::printf("block %zu  offset %" PRIu64 "  compressed %" PRIu32 "  decoded %zu\n", b, layout.starts[b],
                    be32(chunk, layout.starts[b]), layout.block_elems(b) * es);
    return 0;
}

}  // namespace bslz4::tool
