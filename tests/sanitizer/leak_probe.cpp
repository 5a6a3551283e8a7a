// A program for the sanitize stage's own check (tests/sanitizer/meson.build): it asks HDF5 for
// the bitshuffle filter as our scan writer does, which makes HDF5 open every plugin in its plugin
// folder, and then, given `leak`, loses a block of kLeakBytes on purpose. Under the stage's
// settings the clean run must exit 0 and the leaking run must get LeakSanitizer's report: the
// plugin folder the stage sets up must keep a host's leaky plugins out of the report without
// keeping our own leaks out of it.
#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

// Odd enough that the wrapper can tell this leak's line in the report from any other.
constexpr std::size_t kLeakBytes = 4243;

// Kept where the optimiser cannot see that nothing reads it, so the allocation is really made;
// cleared afterwards so that no pointer to it is left for LeakSanitizer to find.
void* volatile g_sink = nullptr;

// On a thread of its own: LeakSanitizer scans the live threads' stacks and registers, where a
// stale copy of the pointer (left by the calls that used it) would make the block look reachable
// on the main thread; a joined thread's stack and registers are not scanned.
void lose_a_block() {
    std::thread([] {
        g_sink = std::malloc(kLeakBytes);
        std::memset(g_sink, 1, kLeakBytes);
        g_sink = nullptr;
    }).join();
}

bool env_is_one(const char* name) {
    const char* v = std::getenv(name);
    return v && std::strcmp(v, "1") == 0;
}

}  // namespace

int main(int argc, char** argv) {
    const bool leak = argc > 1 && std::strcmp(argv[1], "leak") == 0;
    if (argc > 1 && !leak && std::strcmp(argv[1], "clean") != 0) {
        std::fprintf(stderr, "usage: leak_probe [clean|leak]\n");
        return 2;
    }
    const htri_t found = H5Zfilter_avail(32008);
    if (found < 0) {
        std::fprintf(stderr, "leak_probe: H5Zfilter_avail failed\n");
        return 1;
    }
    const char* path = std::getenv("HDF5_PLUGIN_PATH");
    std::printf("leak_probe: HDF5_PLUGIN_PATH=%s; bitshuffle plugin %s\n", path ? path : "(unset: HDF5's default)",
                found > 0 ? "found" : "not found");
    std::fflush(stdout);  // LeakSanitizer ends the process without flushing stdio
    // The stage says when it put the plugin in the folder: then a folder HDF5 cannot use would be
    // a lost check (the plugin-found case), not a pass.
    if (env_is_one("BSLZ4_EXPECT_FILTER_PLUGIN") && found == 0) {
        std::fprintf(stderr, "leak_probe: BSLZ4_EXPECT_FILTER_PLUGIN=1 but HDF5 does not find filter 32008\n");
        return 1;
    }
    if (leak) lose_a_block();
    // No H5close: HDF5 closes at exit, unloading the plugins, as it does in the bslz4 command.
    return 0;
}
