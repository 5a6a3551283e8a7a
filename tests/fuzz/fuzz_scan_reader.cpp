// Fuzzes the HDF5 scan reader (open_scan, read_frame_chunk) and the decoding behind it on small
// scan files whose chunk index and chunks are damaged: a bslz4::Error is a fine answer; a crash,
// undefined behaviour, or an allocation beyond libFuzzer's malloc limit (a chunk size taken from
// a lying index) is not.
//
// What it can find: how our reader handles what a damaged or hostile chunk index says (each
// chunk's stored size, address, filter mask and offsets, in the dataset's B-tree node) and
// what the chunk bytes hold, all the way through Chunk2Sparse.
// What it cannot find: anything in parsing the rest of the file. The superblock, object headers,
// group heaps and B-trees, the datatype, the filter pipeline message and the mask are kept
// intact, because libhdf5 is not instrumented here and is known not to be robust on hostile
// metadata: mutating those would find HDF5's crashes, not ours. (Those messages are checked by
// the tests that write odd files on purpose.)
//
// The files: at start-up the target writes a few small scans (3 frames of 7 x 9 pixels, chunks
// of 16-element blocks, the earliest file format, so the chunk index is a version 1 B-tree
// without checksums) in a temporary folder, with the bitshuffle plugin hidden so that the
// filter values stored are the ones given.
// Input: byte 0 picks the scan (mod 4: u16 lz4 with a pixel_mask, u32 zstd with a pixel_mask,
// i8 lz4, f32 zstd); the rest overwrites, in order, the B-tree node's keys and child addresses,
// then each frame's chunk bytes (a shorter input leaves the rest as written).
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "fuzz_report.hpp"
#include "hdf5/scan_input.hpp"
#include "seed_corpus.hpp"

namespace {

using namespace bslz4;
using bslz4::fuzz::fail;

constexpr hsize_t kFrames = 3, kNi = 7, kNj = 9;
constexpr unsigned kBlockElems = 16;
constexpr unsigned kBitshuffle = 32008, kBitshuffleLz4 = 2, kBitshuffleZstd = 3;

struct ScanTemplate {
    std::vector<std::uint8_t> file;
    std::vector<std::pair<std::size_t, std::size_t>> regions;  // (offset, bytes) the input overwrites
};

std::vector<ScanTemplate> templates;
std::string scan_path;

hid_t file_type(PixelType t) {
    switch (t) {
        case PixelType::u16: return H5T_STD_U16LE;
        case PixelType::u32: return H5T_STD_U32LE;
        case PixelType::i8: return H5T_STD_I8LE;
        case PixelType::f32: return H5T_IEEE_F32LE;
        default: break;
    }
    fail("no template for this pixel type");
}

void check(bool ok, const char* what) {
    if (!ok) fail(std::string("writing the template scan: ") + what);
}

std::uint64_t load_le(const std::uint8_t* p, int bytes) {
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

ScanTemplate make_template(PixelType type, Codec codec, bool with_mask) {
    const std::size_t es = pixel_size(type);
    const hid_t file = H5Fcreate(scan_path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    check(file >= 0, "H5Fcreate");
    const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    const hsize_t dims[3] = {kFrames, kNi, kNj}, chunk[3] = {1, kNi, kNj};
    const hid_t space = H5Screate_simple(3, dims, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 3, chunk);
    H5Pset_obj_track_times(dcpl, 0);
    const unsigned values[5] = {0, 3, static_cast<unsigned>(es), kBlockElems,
                                codec == Codec::zstd ? kBitshuffleZstd : kBitshuffleLz4};
    check(H5Pset_filter(dcpl, kBitshuffle, H5Z_FLAG_OPTIONAL, 5, values) >= 0, "H5Pset_filter");
    const hid_t d = H5Dcreate2(file, "/entry/data/data", file_type(type), space, lcpl, dcpl, H5P_DEFAULT);
    check(d >= 0, "H5Dcreate2");
    for (hsize_t f = 0; f < kFrames; ++f) {
        const auto raw = fuzz::synthetic_pixels(kNi * kNj, es, static_cast<std::uint32_t>(f + 7));
        const auto c = encode_chunk(raw, es, {codec, kBlockElems * es, 3});
        const hsize_t offset[3] = {f, 0, 0};
        check(H5Dwrite_chunk(d, H5P_DEFAULT, 0, offset, c.size(), c.data()) >= 0, "H5Dwrite_chunk");
    }
    if (with_mask) {
        const hsize_t mdims[2] = {kNi, kNj};
        const hid_t mspace = H5Screate_simple(2, mdims, nullptr);
        const hid_t mcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_obj_track_times(mcpl, 0);
        const hid_t m = H5Dcreate2(file, "/entry/instrument/detector/pixel_mask", H5T_STD_U32LE, mspace, lcpl, mcpl,
                                   H5P_DEFAULT);
        check(m >= 0, "pixel_mask");
        std::vector<std::uint32_t> mask(kNi * kNj, 0);
        for (std::size_t i = 0; i < mask.size(); i += 5) mask[i] = 1;
        check(H5Dwrite(m, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, mask.data()) >= 0, "mask H5Dwrite");
        H5Dclose(m);
        H5Pclose(mcpl);
        H5Sclose(mspace);
    }
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Pclose(lcpl);
    check(H5Fclose(file) >= 0, "H5Fclose");

    ScanTemplate t;
    t.file = fuzz::read_file_bytes(scan_path);
    // Where the chunks are, from HDF5 itself.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> chunks;  // (address, size)
    const hid_t rf = H5Fopen(scan_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t rd = H5Dopen2(rf, "/entry/data/data", H5P_DEFAULT);
    const hid_t rs = H5Dget_space(rd);
    for (hsize_t k = 0; k < kFrames; ++k) {
        hsize_t offset[3];
        unsigned mask = 0;
        haddr_t addr = 0;
        hsize_t bytes = 0;
        check(H5Dget_chunk_info(rd, rs, k, offset, &mask, &addr, &bytes) >= 0, "H5Dget_chunk_info");
        check(offset[0] == k && addr + bytes <= t.file.size(), "chunk order or place");
        chunks.emplace_back(addr, bytes);
    }
    H5Sclose(rs);
    H5Dclose(rd);
    H5Fclose(rf);
    // The chunk index: the one version 1 B-tree node of type 1 (raw data chunks). Its keys are
    // (u32 chunk size, u32 filter mask, 4 x u64 offsets), 40 bytes, between child addresses.
    constexpr std::size_t kNodeHeader = 24, kKey = 40, kChild = 8;
    std::size_t node = 0;
    for (std::size_t p = 0; p + 8 <= t.file.size(); ++p)
        if (std::memcmp(&t.file[p], "TREE", 4) == 0 && t.file[p + 4] == 1) {
            check(node == 0, "one chunk B-tree node");
            node = p;
        }
    check(node != 0 && load_le(&t.file[node + 6], 2) == kFrames, "the chunk B-tree node");
    const std::size_t index_bytes = (kFrames + 1) * kKey + kFrames * kChild;
    check(node + kNodeHeader + index_bytes <= t.file.size(), "the B-tree node's size");
    for (std::size_t k = 0; k < kFrames; ++k) {
        const std::uint8_t* key = &t.file[node + kNodeHeader + k * (kKey + kChild)];
        check(load_le(key, 4) == chunks[k].second && load_le(key + kKey, 8) == chunks[k].first,
              "the B-tree keys name the chunks");
    }
    t.regions.emplace_back(node + kNodeHeader, index_bytes);
    for (const auto& c : chunks) t.regions.emplace_back(c.first, c.second);
    return t;
}

void remove_scan_file() { std::remove(scan_path.c_str()); }

void make_templates() {
    const char* tmp = std::getenv("TMPDIR");
    const std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (tmp && *tmp ? tmp : "/tmp");
    scan_path = dir + "/bslz4-fuzz-scan-" + std::to_string(getpid()) + ".h5";
    std::atexit(remove_scan_file);
    // Hidden plugin: the filter values are stored as given (see issue 10's first defect).
    const std::string empty = dir + "/bslz4-fuzz-no-plugins";
    mkdir(empty.c_str(), 0700);
    setenv("HDF5_PLUGIN_PATH", empty.c_str(), 1);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    templates.push_back(make_template(PixelType::u16, Codec::lz4, true));
    templates.push_back(make_template(PixelType::u32, Codec::zstd, true));
    templates.push_back(make_template(PixelType::i8, Codec::lz4, false));
    templates.push_back(make_template(PixelType::f32, Codec::zstd, false));
}

std::vector<std::vector<std::uint8_t>> make_seeds() {
    std::vector<std::vector<std::uint8_t>> seeds;
    for (std::size_t k = 0; k < templates.size(); ++k) {
        std::vector<std::uint8_t> s{static_cast<std::uint8_t>(k)};
        for (const auto& r : templates[k].regions)
            s.insert(s.end(), templates[k].file.begin() + r.first, templates[k].file.begin() + r.first + r.second);
        seeds.push_back(std::move(s));
    }
    return seeds;
}

void read_scan() {
    try {
        const tool::ScanInput scan = tool::open_scan(scan_path, "");
        std::vector<std::uint8_t> use(scan.ni * scan.nj, 1);
        for (std::size_t i = 0; i < scan.nexus_mask.size() && i < use.size(); ++i) use[i] = scan.nexus_mask[i] ? 0 : 1;
        Chunk2Sparse sparse(use, scan.ni, scan.nj, scan.type, {scan.codec, 1});
        for (std::size_t d = 0; d < scan.datasets.size(); ++d)
            for (std::size_t f = 0; f < scan.datasets[d].frames; ++f) {
                try {
                    const auto chunk = tool::read_frame_chunk(scan, d, f);
                    sparse(chunk, 1.0);
                } catch (const Error&) {
                }
            }
    } catch (const Error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    make_templates();
    fuzz::write_seeds_if_asked(make_seeds);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const ScanTemplate& t = templates[data[0] % templates.size()];
    std::vector<std::uint8_t> file = t.file;
    std::size_t at = 1;
    for (const auto& r : t.regions)
        for (std::size_t k = 0; k < r.second && at < size; ++k) file[r.first + k] = data[at++];
    {
        std::ofstream out(scan_path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
        if (!out) fail("cannot write " + scan_path);
    }
    read_scan();
    return 0;
}
