// The fatbin the library loads its kernels from is the file nvcc built (or the prebuilt one it
// was given), byte for byte and aligned as cuModuleLoadData reads it: the assembler pulls the
// file into the library (fatbin/embed_binary.py), and a wrong path, a stale copy or a cut would
// otherwise show only on a GPU host, as a module that fails to load or lacks a kernel.
//   embedded_fatbin PATH_OF_THE_FATBIN
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

// The library's own (runtime/cuda/kernel_image.hpp), taken here without cuda.h.
extern const unsigned char bslz4_kernels_fatbin[];
extern const std::size_t bslz4_kernels_fatbin_size;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: embedded_fatbin PATH_OF_THE_FATBIN\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    const std::vector<unsigned char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.is_open() || in.bad() || file.empty()) {
        std::fprintf(stderr, "embedded_fatbin: cannot read %s\n", argv[1]);
        return 1;
    }
    if (bslz4_kernels_fatbin_size != file.size()) {
        std::fprintf(stderr, "embedded_fatbin: the library embeds %zu bytes, %s has %zu\n", bslz4_kernels_fatbin_size, argv[1],
                     file.size());
        return 1;
    }
    for (std::size_t i = 0; i < file.size(); ++i)
        if (bslz4_kernels_fatbin[i] != file[i]) {
            std::fprintf(stderr, "embedded_fatbin: byte %zu differs from %s\n", i, argv[1]);
            return 1;
        }
    if (reinterpret_cast<std::uintptr_t>(bslz4_kernels_fatbin) % 16 != 0) {
        std::fprintf(stderr, "embedded_fatbin: the embedded image is not 16-byte aligned\n");
        return 1;
    }
    std::printf("embedded_fatbin: %zu bytes, the same as %s, 16-byte aligned\n", file.size(), argv[1]);
    return 0;
}
