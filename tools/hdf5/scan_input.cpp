#include "scan_input.hpp"

#include <algorithm>
#include <cstdio>

namespace bslz4::tool {

// A dataset this reader does not take (its shape, chunks, pixel type or filter) is a bad_argument:
// the user named it, or gave a file holding it where the scan is expected. A link that does not
// resolve is io: the file points to data that cannot be read.

namespace {

PixelType pixel_type_of_dataset(hid_t dataset, const std::string& what) {
    h5::Handle t(H5Dget_type(dataset), H5Tclose, what + ": no datatype");
    const H5T_class_t cls = H5Tget_class(t.get());
    const std::size_t size = H5Tget_size(t.get());
    PixelType type = PixelType::u8;
    if (cls == H5T_FLOAT && (size == 4 || size == 8)) {
        type = size == 4 ? PixelType::f32 : PixelType::f64;
    } else if (cls == H5T_INTEGER && (size == 1 || size == 2 || size == 4 || size == 8)) {
        const bool is_signed = H5Tget_sign(t.get()) == H5T_SGN_2;
        const PixelType by_size[2][4] = {{PixelType::u8, PixelType::u16, PixelType::u32, PixelType::u64},
                                         {PixelType::i8, PixelType::i16, PixelType::i32, PixelType::i64}};
        type = by_size[is_signed][size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3];
    } else {
        throw Error(ErrorCode::bad_argument, what + ": pixel type (HDF5 class " + std::to_string(static_cast<int>(cls)) + ", " +
                                                 std::to_string(size) +
                                                 " bytes) is not one of u8 u16 u32 u64 i8 i16 i32 i64 f32 f64");
    }
    // The decoders (the GPU's kernels too) read little-endian pixels; swapping is not offered.
    const H5T_order_t order = H5Tget_order(t.get());
    if (size > 1 && order != H5T_ORDER_LE)
        throw Error(ErrorCode::bad_argument,
                    what + ": " +
                    (order == H5T_ORDER_BE ? std::string("big-endian ") + pixel_type_name(type) + " pixels (most significant byte first)"
                                           : pixel_type_name(type) + std::string(" pixels in byte order ") + std::to_string(order)) +
                    "; only little-endian scans are read");
    return type;
}

}  // namespace

Codec bitshuffle_codec(hid_t dataset, std::size_t elem_size, const std::string& what) {
    h5::Handle plist(H5Dget_create_plist(dataset), H5Pclose, what + ": no creation properties");
    const int n = H5Pget_nfilters(plist.get());
    if (n <= 0) throw Error(ErrorCode::bad_argument, what + ": not compressed (no HDF5 filter); bitshuffle (32008) expected");
    unsigned flags = 0;
    constexpr std::size_t kShown = 16;
    std::size_t nvalues = kShown;
    unsigned v[kShown] = {};
    char name[128] = {};
    unsigned config = 0;
    const H5Z_filter_t id = H5Pget_filter2(plist.get(), 0, &flags, &nvalues, v, sizeof name, name, &config);
    if (n != 1 || id != static_cast<H5Z_filter_t>(kBitshuffleFilter))
        throw Error(ErrorCode::bad_argument, what + ": HDF5 filter " + std::to_string(id) +
                                                 (name[0] ? std::string(" (") + name + ")" : "") +
                                                 (n > 1 ? " among " + std::to_string(n) + " filters" : "") +
                                                 "; only bitshuffle (32008) alone is read");
    // bitshuffle's set_local records: version major, minor, element size, block size in elements
    // (0: its default), compression (2 lz4, 3 zstd), and with zstd the level it compressed at.
    std::string listed;
    for (std::size_t k = 0; k < std::min(nvalues, kShown); ++k) listed += " " + std::to_string(v[k]);
    if (nvalues > kShown) listed += " ...";
    const auto refuse = [&](const std::string& why) {
        throw Error(ErrorCode::bad_argument, what + ": the bitshuffle filter's values" + listed +
                                                 " are not bitshuffle's (version 0.x, element size, " +
                                                 "block size, 2 lz4 or 3 zstd[, zstd level]): " + why);
    };
    if (nvalues < 5 || nvalues > 6) {
        // a writer that gave the plugin's set_local all five values: it put its own three in front
        const bool doubled = nvalues >= 8 && v[3] == v[0] && v[5] == v[2];
        refuse(std::to_string(nvalues) + " values, not 5 (or 6 with zstd's level)" +
               (doubled ? "; bitshuffle's leading values appear twice, as when a writer hands the filter plugin the values "
                          "it makes itself"
                        : ""));
    }
    if (v[0] != 0) refuse("version " + std::to_string(v[0]) + "." + std::to_string(v[1]) + "; bitshuffle is 0.x");
    if (v[2] != elem_size)
        refuse("element size " + std::to_string(v[2]) + ", but the dataset's pixels have " + std::to_string(elem_size) + " bytes");
    if (v[3] % 8 != 0) refuse("block size " + std::to_string(v[3]) + " elements, not a multiple of 8");
    constexpr unsigned kLz4 = 2, kZstd = 3;
    if (v[4] != kLz4 && v[4] != kZstd)
        refuse("compression " + std::to_string(v[4]) + ", neither lz4 (2) nor zstd (3); bitshuffle without them is not read");
    return v[4] == kLz4 ? Codec::lz4 : Codec::zstd;
}

std::uint64_t largest_chunk_bytes(std::uint64_t pixels, std::size_t elem_size, Codec codec) {
    const std::uint64_t block = 8 * elem_size;
    // LZ4_COMPRESSBOUND and ZSTD_COMPRESSBOUND of one block
    const std::uint64_t worst = codec == Codec::lz4 ? block + block / 255 + 16
                                                    : block + (block >> 8) + (block < (128u << 10) ? ((128u << 10) - block) >> 11 : 0);
    constexpr std::uint64_t kHeader = 12, kBlockLength = 4;
    return kHeader + pixels / 8 * (kBlockLength + worst) + pixels % 8 * elem_size;
}

namespace {

void add_dataset(ScanInput& scan, const std::string& path) {
    const std::string what = scan.file_name + ":" + path;
    ScanDataset d{path, h5::open_dataset(scan.file.get(), path, scan.file_name), 0};
    const auto shape = h5::dataset_shape(d.dataset.get());
    if (shape.size() != 3)
        throw Error(ErrorCode::bad_argument,
                    what + ": " + std::to_string(shape.size()) + "-d data; (frames, rows, columns) expected");
    const auto chunk = h5::chunk_shape(d.dataset.get());
    if (chunk.size() != 3 || chunk[0] != 1 || chunk[1] != shape[1] || chunk[2] != shape[2])
        throw Error(ErrorCode::bad_argument,
                    what + ": chunks of " +
                    (chunk.empty() ? std::string("none (contiguous)")
                                   : std::to_string(chunk[0]) + " x " + std::to_string(chunk[1]) + " x " + std::to_string(chunk[2])) +
                    "; one chunk must be one frame (1 x " + std::to_string(shape[1]) + " x " + std::to_string(shape[2]) + ")");
    const PixelType type = pixel_type_of_dataset(d.dataset.get(), what);
    // HDF5 keeps a chunk under 4 GiB; a file saying otherwise would size every buffer after it
    constexpr std::uint64_t kLargestChunk = std::uint64_t{1} << 32;
    if (shape[1] == 0 || shape[2] == 0 || shape[1] >= kLargestChunk || shape[2] >= kLargestChunk ||
        shape[1] * shape[2] >= kLargestChunk / pixel_size(type))
        throw Error(ErrorCode::bad_argument, what + ": frames of " + std::to_string(shape[1]) + " x " + std::to_string(shape[2]) +
                                                 " " + pixel_type_name(type) +
                                                 " pixels; an HDF5 chunk holds from 1 pixel to under 4 GiB");
    const Codec codec = bitshuffle_codec(d.dataset.get(), pixel_size(type), what);
    if (scan.datasets.empty()) {
        scan.ni = shape[1];
        scan.nj = shape[2];
        scan.type = type;
        scan.codec = codec;
        scan.largest_chunk = largest_chunk_bytes(scan.ni * scan.nj, pixel_size(type), codec);
    } else if (shape[1] != scan.ni || shape[2] != scan.nj || type != scan.type || codec != scan.codec) {
        throw Error(ErrorCode::bad_argument,
                    what + ": frames differ from " + scan.datasets.front().path + " (shape, type or codec)");
    }
    d.frames = shape[0];
    scan.frames += shape[0];
    scan.datasets.push_back(std::move(d));
}

}  // namespace

ScanInput open_scan(const std::string& file_name, const std::string& dataset, NexusMask nexus) {
    ScanInput scan;
    scan.file_name = file_name;
    scan.file = h5::open_file(file_name);
    if (!dataset.empty()) {
        add_dataset(scan, dataset);
    } else if (h5::exists(scan.file.get(), "/entry/data/data")) {
        add_dataset(scan, "/entry/data/data");
    } else {
        for (int k = 1; k < 1000000; ++k) {
            char name[64];
            std::snprintf(name, sizeof name, "/entry/data/data_%06d", k);
            if (!h5::exists(scan.file.get(), name)) {
                const std::string dangling = h5::dangling_link(scan.file.get(), name);
                if (!dangling.empty()) throw Error(ErrorCode::io, file_name + ": " + dangling);
                break;
            }
            add_dataset(scan, name);
        }
        if (scan.datasets.empty())
            throw Error(ErrorCode::bad_argument,
                        file_name + ": no /entry/data/data and no /entry/data/data_000001...: give --dataset PATH");
    }
    if (nexus == NexusMask::skip) return scan;
    // a pixel_mask that is there but cannot be read is an error, never an unmasked run
    const std::string dangling = h5::dangling_link(scan.file.get(), kNexusPixelMask);
    if (!dangling.empty()) throw Error(ErrorCode::io, file_name + ": the NeXus pixel_mask cannot be read: " + dangling);
    if (h5::exists(scan.file.get(), kNexusPixelMask)) {
        h5::Handle m = h5::open_dataset(scan.file.get(), kNexusPixelMask, file_name);
        const auto shape = h5::dataset_shape(m.get());
        if (shape.size() != 2 || shape[0] != scan.ni || shape[1] != scan.nj)
            throw Error(ErrorCode::bad_argument, file_name + ":" + kNexusPixelMask + ": its shape is not the frames' " +
                                                     std::to_string(scan.ni) + " x " + std::to_string(scan.nj));
        scan.nexus_mask = h5::read_nonzero(m.get(), scan.ni * scan.nj, file_name + ":" + kNexusPixelMask);
        scan.nexus_mask_path = kNexusPixelMask;
    }
    return scan;
}

std::vector<std::uint8_t> read_frame_chunk(const ScanInput& scan, std::size_t d, std::size_t f) {
    return h5::read_chunk(scan.datasets[d].dataset.get(), {f, 0, 0},
                          scan.file_name + ":" + scan.datasets[d].path + " frame " + std::to_string(f), scan.largest_chunk);
}

}  // namespace bslz4::tool
