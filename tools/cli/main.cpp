// bslz4: the command-line front end of the library.
#include <cstdio>
#include <cstring>
#include <string>

#if BSLZ4_HAVE_HDF5
#include <hdf5.h>
#endif

#include "bslz4/error.hpp"
#include "cli/command_line.hpp"
#include "cli/commands.hpp"

namespace {

constexpr const char* kUsage =
    "usage: bslz4 COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  info CHUNK         header, block size and every block's compressed size\n"
    "  info --gpu         can this host run the GPU decoder: driver, kernels, each device\n"
    "  decode ...         a chunk to raw little-endian pixels\n"
    "  encode ...         raw pixels to a bitshuffle chunk (lz4 or zstd)\n"
    "  sparse IN.h5 ...   an HDF5 scan -> sparse pixels (+ powder) in an ImageD11 sparse file\n"
    "  peaks DATASET.h5   ImageD11's properties step: sparse pixels -> its 2D and 3D peaks table\n"
    "  bench [--cpu]      decode + sparsify throughput on a synthetic Eiger 4M stack\n"
    "  demo               a synthetic Eiger 4M scan through `sparse`, GPU checked against CPU\n"
    "\n"
    "'bslz4 COMMAND --help' describes each one.\n";

struct Command {
    const char* name;
    int (*run)(const bslz4::tool::Args&);
};

constexpr Command kCommands[] = {
    {"info", bslz4::tool::cmd_info},     {"decode", bslz4::tool::cmd_decode}, {"encode", bslz4::tool::cmd_encode},
    {"bench", bslz4::tool::cmd_bench},   {"demo", bslz4::tool::cmd_demo},     {"sparse", bslz4::tool::cmd_sparse},
    {"peaks", bslz4::tool::cmd_peaks},
};

}  // namespace

int main(int argc, char** argv) {
#if BSLZ4_HAVE_HDF5
    // HDF5 closes what is still open at exit; a file it could not write out (a full disk) stays
    // open after its failed close, and closing it again there crashes HDF5 1.10 (H5F__close_cb).
    // Every file is closed by its handle before main returns, so that pass has nothing to do.
    H5dont_atexit();
#endif
    if (argc < 2) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    for (const Command& c : kCommands) {
        if (name != c.name) continue;
        try {
            return c.run(bslz4::tool::Args(argv + 2, argv + argc));
        } catch (const bslz4::tool::UsageError& e) {
            std::fprintf(stderr, "bslz4 %s: %s\n(see 'bslz4 %s --help')\n", c.name, e.what(), c.name);
            return 2;
        } catch (const bslz4::Error& e) {
            std::fprintf(stderr, "bslz4: %s\n", e.what());
            return 1;
        } catch (const std::bad_alloc&) {
            std::fprintf(stderr, "bslz4: out of memory\n");
            return 1;
        }
    }
    std::fprintf(stderr, "bslz4: unknown command '%s'\n%s", name.c_str(), kUsage);
    return 2;
}
