#include "scan_writer.hpp"

#include "hdf5_file.hpp"
#include "scan_input.hpp"

namespace bslz4::tool {

namespace {

hid_t file_type(PixelType t) {
    switch (t) {
        case PixelType::u8: return H5T_STD_U8LE;
        case PixelType::u16: return H5T_STD_U16LE;
        case PixelType::u32: return H5T_STD_U32LE;
        case PixelType::u64: return H5T_STD_U64LE;
        case PixelType::i8: return H5T_STD_I8LE;
        case PixelType::i16: return H5T_STD_I16LE;
        case PixelType::i32: return H5T_STD_I32LE;
        case PixelType::i64: return H5T_STD_I64LE;
        case PixelType::f32: return H5T_IEEE_F32LE;
        case PixelType::f64: return H5T_IEEE_F64LE;
    }
    return H5T_STD_U8LE;
}

h5::Handle group(hid_t loc, const char* name) {
    return h5::Handle(H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                      std::string("cannot create group ") + name);
}

template <class T>
void write_1d(hid_t loc, const char* name, hid_t file_t, hid_t mem_t, const std::vector<T>& v) {
    const hsize_t n = v.size();
    h5::Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, name);
    h5::Handle d(H5Dcreate2(loc, name, file_t, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
                 std::string("cannot create ") + name);
    if (n && H5Dwrite(d.get(), mem_t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
        throw h5::failure(std::string("cannot write ") + name);
}

// Bitshuffle's values as its own set_local records them (see bitshuffle_codec). When HDF5 finds
// the plugin, its set_local puts (version major, minor, element size) in front of what it is
// given, so it gets only the block size, the compression and zstd's level; without it the values
// are written whole, with the version the plugins record: 0.3 (Debian's bitshuffle) for lz4, 0.4
// (the first with zstd, as hdf5plugin records it) for zstd.
void set_bitshuffle(hid_t plist, std::size_t elem_size, const ScanCompression& compression, const std::string& path) {
    const bool zstd = compression.codec == Codec::zstd;
    const unsigned block = 0, codec = zstd ? 3 : 2, level = static_cast<unsigned>(compression.zstd_level);
    const unsigned whole[6] = {0, zstd ? 4u : 3u, static_cast<unsigned>(elem_size), block, codec, level};
    const bool plugin = H5Zfilter_avail(kBitshuffleFilter) > 0;
    const unsigned* values = plugin ? whole + 3 : whole;
    const std::size_t count = (plugin ? 2 : 5) + (zstd ? 1 : 0);
    if (H5Pset_filter(plist, kBitshuffleFilter, H5Z_FLAG_OPTIONAL, count, values) < 0)
        throw h5::failure(path + ": cannot set the bitshuffle filter on the scan");
}

}  // namespace

void write_scan(const std::string& path, std::size_t ni, std::size_t nj, PixelType type, std::size_t frames,
                const std::vector<std::uint8_t>& nexus_mask, const std::vector<std::vector<std::uint8_t>>& chunks) {
    write_scan(path, ni, nj, type, frames, nexus_mask, chunks, ScanCompression{});
}

void write_scan(const std::string& path, std::size_t ni, std::size_t nj, PixelType type, std::size_t frames,
                const std::vector<std::uint8_t>& nexus_mask, const std::vector<std::vector<std::uint8_t>>& chunks,
                const ScanCompression& compression) {
    if (frames && chunks.empty())
        throw Error(ErrorCode::bad_argument, path + ": a scan of " + std::to_string(frames) + " frames needs chunks");
    const h5::Handle file = h5::create_file(path);
    const h5::Handle entry = group(file.get(), "entry");
    const h5::Handle data = group(entry.get(), "data");
    const hsize_t dims[3] = {frames, ni, nj}, chunk[3] = {1, ni, nj};
    h5::Handle space(H5Screate_simple(3, dims, nullptr), H5Sclose, "scan dataspace");
    h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "scan properties");
    H5Pset_chunk(plist.get(), 3, chunk);
    set_bitshuffle(plist.get(), pixel_size(type), compression, path);
    h5::Handle d(H5Dcreate2(data.get(), "data", file_type(type), space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT),
                 H5Dclose, path + ": cannot create /entry/data/data");
    // what a reader will find: a plugin's set_local may have changed what was given
    if (bitshuffle_codec(d.get(), pixel_size(type), path + ":/entry/data/data (as written)") != compression.codec)
        throw Error(ErrorCode::io,
                    path + ":/entry/data/data: the bitshuffle filter's values, as written, name another codec than the chunks'");
    for (std::size_t f = 0; f < frames; ++f) {
        const hsize_t offset[3] = {f, 0, 0};
        const auto& c = chunks[f % chunks.size()];
        if (H5Dwrite_chunk(d.get(), H5P_DEFAULT, 0, offset, c.size(), c.data()) < 0)
            throw h5::failure(path + ": direct chunk write of frame " + std::to_string(f) + " failed");
    }
    if (!nexus_mask.empty()) {
        const h5::Handle inst = group(entry.get(), "instrument");
        const h5::Handle det = group(inst.get(), "detector");
        const hsize_t mdims[2] = {ni, nj};
        h5::Handle mspace(H5Screate_simple(2, mdims, nullptr), H5Sclose, "mask dataspace");
        h5::Handle m(H5Dcreate2(det.get(), "pixel_mask", H5T_STD_U8LE, mspace.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                     H5Dclose, path + ": cannot create the pixel_mask");
        if (H5Dwrite(m.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, nexus_mask.data()) < 0)
            throw h5::failure(path + ": cannot write the pixel_mask");
    }
}

void write_matrix(const std::string& path, const std::string& name, const IntegrationMatrix& m) {
    const h5::Handle file = h5::create_file(path);
    const h5::Handle g = group(file.get(), name.c_str());
    write_1d(g.get(), "data", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, m.weight);
    write_1d(g.get(), "indices", H5T_STD_I32LE, H5T_NATIVE_UINT32, m.pixel);
    write_1d(g.get(), "indptr", H5T_STD_I32LE, H5T_NATIVE_UINT32, m.row_start);
    const hsize_t two = 2;
    const std::int64_t shape[2] = {static_cast<std::int64_t>(m.bins), static_cast<std::int64_t>(m.pixels)};
    h5::Handle space(H5Screate_simple(1, &two, nullptr), H5Sclose, "shape");
    h5::Handle a(H5Acreate2(g.get(), "shape", H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                 path + ": cannot write the matrix shape");
    H5Awrite(a.get(), H5T_NATIVE_INT64, shape);
}

}  // namespace bslz4::tool
