// The small scans the sparse tool's tests write (60 x 90 frames, our encoder, direct chunk
// writes): one of 70 u16 frames with a random NeXus mask, one with filter 32008's values stored
// exactly as given, and an Eiger master file linking data files.
#pragma once
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "h5_reader.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/scan_writer.hpp"
#include "test_support.hpp"
#include "synthetic/synthetic_eiger.hpp"

namespace bslz4::test {

constexpr std::size_t kNi = 60, kNj = 90, kFrames = 70;

struct Scan {
    std::vector<std::vector<std::uint8_t>> chunks;
    std::vector<std::uint8_t> nexus, use;
};

inline Scan write_test_scan(const std::string& path, std::size_t corrupt_frame = SIZE_MAX) {
    Scan s;
    s.nexus = test::random_mask(kNi * kNj, 3);  // random bytes: nonzero = do not use
    for (auto& m : s.nexus) m = m == 0 ? 1 : 0;
    for (auto m : s.nexus) s.use.push_back(m == 0);
    for (std::uint32_t f = 0; f < kFrames; ++f) {
        s.chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, PixelType::u16, f), 2));
        if (f == corrupt_frame) s.chunks.back().resize(s.chunks.back().size() - 7);
    }
    tool::write_scan(path, kNi, kNj, PixelType::u16, kFrames, s.nexus, s.chunks);
    return s;
}

// An Eiger master file at `master` whose /entry/data/data_00000k (k = 1, 2, ...) are external links
// to /entry/data/data in `data_files`, by relative name as Eiger writes them (found beside it).
inline void write_master_file(const std::string& master, const std::vector<std::string>& data_files) {
    const tool::h5::Handle file = tool::h5::create_file(master);
    tool::h5::Handle entry(H5Gcreate2(file.get(), "entry", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "entry");
    tool::h5::Handle data(H5Gcreate2(entry.get(), "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "data");
    for (std::size_t k = 0; k < data_files.size(); ++k) {
        char link[32];
        std::snprintf(link, sizeof link, "data_%06zu", k + 1);
        REQUIRE(H5Lcreate_external(data_files[k].c_str(), "/entry/data/data", data.get(), link, H5P_DEFAULT, H5P_DEFAULT) >= 0);
    }
}

// The bitshuffle filter's HDF5 number.
inline constexpr H5Z_filter_t kBitshuffle = 32008;

// While it lives, filter 32008's values are stored exactly as given, with or without the
// bitshuffle plugin: a stand-in class without bitshuffle's set_local (which puts its own three
// values in front of the caller's). The files made meanwhile are written chunk by chunk, raw.
class VerbatimFilterValues {
public:
    VerbatimFilterValues() { REQUIRE(H5Zregister(&kStandIn) >= 0); }
    ~VerbatimFilterValues() { H5Zunregister(kBitshuffle); }  // a real plugin is found again on next use
    VerbatimFilterValues(const VerbatimFilterValues&) = delete;
    VerbatimFilterValues& operator=(const VerbatimFilterValues&) = delete;

private:
    static std::size_t never_filters(unsigned, std::size_t, const unsigned[], std::size_t, std::size_t*, void**) { return 0; }
    static constexpr H5Z_class2_t kStandIn{H5Z_CLASS_T_VERS, kBitshuffle, 1, 1, "bslz4 test stand-in", nullptr, nullptr,
                                           &never_filters};
};

// /entry/data/data (one chunk a frame) of file_type with filter 32008 storing exactly `values`.
// Chunks are written in `order` (frame numbers; empty: 0, 1, ...), frame f with filter mask masks[f] (empty: 0).
inline void write_scan_with_values(const std::string& path, hid_t file_type, const std::vector<unsigned>& values,
                            const std::vector<std::vector<std::uint8_t>>& chunks, std::vector<hsize_t> order = {},
                            const std::vector<std::uint32_t>& masks = {}) {
    if (order.empty())
        for (hsize_t f = 0; f < chunks.size(); ++f) order.push_back(f);
    const VerbatimFilterValues verbatim;
    {
        const tool::h5::Handle file = tool::h5::create_file(path);
        const hsize_t dims[3] = {chunks.size(), kNi, kNj}, chunk[3] = {1, kNi, kNj};
        const tool::h5::Handle space(H5Screate_simple(3, dims, nullptr), H5Sclose, "space");
        const tool::h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "plist");
        REQUIRE(H5Pset_chunk(plist.get(), 3, chunk) >= 0);
        REQUIRE(H5Pset_filter(plist.get(), kBitshuffle, H5Z_FLAG_OPTIONAL, values.size(), values.data()) >= 0);
        const tool::h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "lcpl");
        H5Pset_create_intermediate_group(lcpl.get(), 1);
        const tool::h5::Handle d(H5Dcreate2(file.get(), "/entry/data/data", file_type, space.get(), lcpl.get(), plist.get(), H5P_DEFAULT),
                                 H5Dclose, "data");
        for (const hsize_t f : order) {
            const hsize_t offset[3] = {f, 0, 0};
            REQUIRE(H5Dwrite_chunk(d.get(), H5P_DEFAULT, masks.empty() ? 0 : masks[f], offset, chunks[f].size(), chunks[f].data()) >= 0);
        }
    }
    H5Z_filter_t id = 0;
    REQUIRE(test::H5Reader(path).filter_values("/entry/data/data", id) == values);
}

// Frames of the test scan encoded as chunks, the type and codec given.
inline std::vector<std::vector<std::uint8_t>> test_chunks(std::size_t frames, PixelType type = PixelType::u16,
                                                   Codec codec = Codec::lz4) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f)
        chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, type, f), pixel_size(type), {codec, 0, 3}));
    return chunks;
}

}  // namespace bslz4::test
