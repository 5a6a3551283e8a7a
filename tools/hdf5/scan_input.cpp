#include "scan_input.hpp"

#include <algorithm>
#include <cstdio>

namespace bslz4::tool {

namespace {

PixelType pixel_type_of_dataset(hid_t dataset, const std::string& what) {
    h5::Handle t(H5Dget_type(dataset), H5Tclose, what + ": no datatype");
    const H5T_class_t cls = H5Tget_class(t.get());
    const std::size_t size = H5Tget_size(t.get());
    if (cls == H5T_FLOAT) {
        if (size == 4) return PixelType::f32;
        if (size == 8) return PixelType::f64;
    } else if (cls == H5T_INTEGER) {
        const bool is_signed = H5Tget_sign(t.get()) == H5T_SGN_2;
        switch (size) {
            case 1: return is_signed ? PixelType::i8 : PixelType::u8;
            case 2: return is_signed ? PixelType::i16 : PixelType::u16;
            case 4: return is_signed ? PixelType::i32 : PixelType::u32;
            case 8: return is_signed ? PixelType::i64 : PixelType::u64;
        }
    }
    throw Error(what + ": pixel type (HDF5 class " + std::to_string(static_cast<int>(cls)) + ", " + std::to_string(size) +
                " bytes) is not one of u8 u16 u32 u64 i8 i16 i32 i64 f32 f64");
}

// Checks the one filter is bitshuffle and returns its codec.
Codec codec_of_dataset(hid_t dataset, const std::string& what) {
    h5::Handle plist(H5Dget_create_plist(dataset), H5Pclose, what + ": no creation properties");
    const int n = H5Pget_nfilters(plist.get());
    if (n <= 0) throw Error(what + ": not compressed (no HDF5 filter); bitshuffle (32008) expected");
    unsigned flags = 0;
    std::size_t nvalues = 8;
    unsigned values[8] = {};
    char name[128] = {};
    unsigned config = 0;
    const H5Z_filter_t id = H5Pget_filter2(plist.get(), 0, &flags, &nvalues, values, sizeof name, name, &config);
    if (n != 1 || id != static_cast<H5Z_filter_t>(kBitshuffleFilter))
        throw Error(what + ": HDF5 filter " + std::to_string(id) + (name[0] ? std::string(" (") + name + ")" : "") +
                    (n > 1 ? " among " + std::to_string(n) + " filters" : "") + "; only bitshuffle (32008) alone is read");
    // bitshuffle's values: version major, minor, element size, block size, compression.
    constexpr unsigned kLz4 = 2, kZstd = 3;
    if (nvalues < 5 || (values[4] != kLz4 && values[4] != kZstd))
        throw Error(what + ": bitshuffle without lz4 or zstd compression is not read");
    return values[4] == kLz4 ? Codec::lz4 : Codec::zstd;
}

void add_dataset(ScanInput& scan, const std::string& path) {
    const std::string what = scan.file_name + ":" + path;
    ScanDataset d{path, h5::open_dataset(scan.file.get(), path, scan.file_name), 0};
    const auto shape = h5::dataset_shape(d.dataset.get());
    if (shape.size() != 3) throw Error(what + ": " + std::to_string(shape.size()) + "-d data; (frames, rows, columns) expected");
    const auto chunk = h5::chunk_shape(d.dataset.get());
    if (chunk.size() != 3 || chunk[0] != 1 || chunk[1] != shape[1] || chunk[2] != shape[2])
        throw Error(what + ": chunks of " +
                    (chunk.empty() ? std::string("none (contiguous)")
                                   : std::to_string(chunk[0]) + " x " + std::to_string(chunk[1]) + " x " + std::to_string(chunk[2])) +
                    "; one chunk must be one frame (1 x " + std::to_string(shape[1]) + " x " + std::to_string(shape[2]) + ")");
    const PixelType type = pixel_type_of_dataset(d.dataset.get(), what);
    const Codec codec = codec_of_dataset(d.dataset.get(), what);
    if (scan.datasets.empty()) {
        scan.ni = shape[1];
        scan.nj = shape[2];
        scan.type = type;
        scan.codec = codec;
    } else if (shape[1] != scan.ni || shape[2] != scan.nj || type != scan.type || codec != scan.codec) {
        throw Error(what + ": frames differ from " + scan.datasets.front().path + " (shape, type or codec)");
    }
    d.frames = shape[0];
    scan.frames += shape[0];
    scan.datasets.push_back(std::move(d));
}

}  // namespace

ScanInput open_scan(const std::string& file_name, const std::string& dataset) {
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
                if (k == 1 && H5Lexists(scan.file.get(), "/entry", H5P_DEFAULT) > 0 &&
                    H5Lexists(scan.file.get(), "/entry/data", H5P_DEFAULT) > 0 &&
                    H5Lexists(scan.file.get(), "/entry/data/data_000001", H5P_DEFAULT) > 0)
                    throw Error(file_name + ": /entry/data/data_000001 is a link whose target file cannot be opened");
                break;
            }
            add_dataset(scan, name);
        }
        if (scan.datasets.empty())
            throw Error(file_name + ": no /entry/data/data and no /entry/data/data_000001...: give --dataset PATH");
    }
    if (h5::exists(scan.file.get(), kNexusPixelMask)) {
        h5::Handle m = h5::open_dataset(scan.file.get(), kNexusPixelMask, file_name);
        const auto shape = h5::dataset_shape(m.get());
        if (shape.size() != 2 || shape[0] != scan.ni || shape[1] != scan.nj)
            throw Error(file_name + ":" + kNexusPixelMask + ": its shape is not the frames' " + std::to_string(scan.ni) + " x " +
                        std::to_string(scan.nj));
        const auto values = h5::read_all<std::uint32_t>(m.get(), H5T_NATIVE_UINT32, file_name + ":" + kNexusPixelMask);
        scan.nexus_mask.assign(values.begin(), values.end());
        std::transform(values.begin(), values.end(), scan.nexus_mask.begin(), [](std::uint32_t v) { return v ? 1 : 0; });
        scan.nexus_mask_path = kNexusPixelMask;
    }
    return scan;
}

std::vector<std::uint8_t> read_frame_chunk(const ScanInput& scan, std::size_t d, std::size_t f) {
    return h5::read_chunk(scan.datasets[d].dataset.get(), {f, 0, 0},
                          scan.file_name + ":" + scan.datasets[d].path + " frame " + std::to_string(f));
}

}  // namespace bslz4::tool
