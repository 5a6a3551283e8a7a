// What the VDS and LImA tests share: Bliss masters whose virtual dataset maps LImA files written
// with HDF5's C API over our encoder's chunks, the chunks read back by batches and by HDF5, and
// two outputs compared dataset by dataset.
#pragma once
#include <unistd.h>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <system_error>
#include <vector>
#include "sparse/batch_reader.hpp"
#include "bslz4/bslz4.hpp"
#include "synthetic/synthetic_eiger.hpp"
#include "error_codes.hpp"
#include "hdf5/chunk_index.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/scan_input.hpp"
#include "hdf5/scan_writer.hpp"
#include "sparse/sparse_job.hpp"
#include "sparse_job_fixture.hpp"
#include "tool_runner.hpp"

namespace bslz4::test::vds {

namespace h5 = bslz4::tool::h5;
using Chunk = std::vector<std::uint8_t>;

inline constexpr hsize_t kNi = 24, kNj = 36;
inline const std::string kLimaPath = "/entry_0000/ESRF-ID11/eiger/data";
inline const std::string kVdsPath = "/1.1/instrument/eiger/data";
inline const std::string kMeasurement = "/1.1/measurement/eiger";  // Bliss: a soft link to the VDS

// A folder of this run's own, made empty.
inline std::string fresh_folder(const std::string& name) {
    const std::string dir = test::temp_path(name);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    std::filesystem::create_directories(dir + "/lima");
    return dir;
}

inline std::vector<Chunk> frame_chunks(std::size_t n, std::uint64_t first, PixelType t = PixelType::u16) {
    std::vector<Chunk> chunks;
    for (std::size_t f = 0; f < n; ++f) chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, t, first + f), pixel_size(t)));
    return chunks;
}

inline h5::Handle create_or_open(const std::string& file, bool new_file) {
    return new_file ? h5::create_file(file) : h5::open_file(file, true);
}

inline h5::Handle intermediate_groups() {
    h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "lcpl");
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    return lcpl;
}

// `chunks` as an ordinary dataset (one bitshuffle chunk a frame) at `dataset` of `file`: written
// by the tools' scan writer and copied there with H5Ocopy, chunks and filter values as stored.
inline void write_frames(const std::string& file, const std::string& dataset, const std::vector<Chunk>& chunks, bool new_file,
                  PixelType t = PixelType::u16) {
    const std::string scratch = file + ".scratch.h5";
    tool::write_scan(scratch, kNi, kNj, t, chunks.size(), {}, chunks);
    {
        const h5::Handle from = h5::open_file(scratch);
        const h5::Handle to = create_or_open(file, new_file);
        REQUIRE(H5Ocopy(from.get(), "/entry/data/data", to.get(), dataset.c_str(), H5P_DEFAULT, intermediate_groups().get()) >= 0);
    }
    std::filesystem::remove(scratch);
}

// A selection of a (frames, kNi, kNj) dataspace: all of it, or a hyperslab (of frames or any),
// fixed or unlimited. (HDF5 takes no point selection in a VDS.)
struct Selection {
    hsize_t frames = 0;  // the dataspace's
    enum class Kind { all, hyperslab, unlimited } kind = Kind::all;
    hsize_t start[3] = {0, 0, 0}, stride[3] = {1, 1, 1}, count[3] = {1, 1, 1}, block[3] = {1, kNi, kNj};
};

inline Selection all_of(hsize_t frames) { return Selection{frames}; }

// frames first, first + stride, ... (count of them), each `block` frames long
inline Selection frames_of(hsize_t frames, hsize_t first, hsize_t count, hsize_t stride = 1, hsize_t block = 0) {
    Selection s{frames, Selection::Kind::hyperslab};
    s.start[0] = first;
    if (block == 0) {  // one block of `count` frames
        s.block[0] = count;
    } else {
        s.stride[0] = stride;
        s.count[0] = count;
        s.block[0] = block;
    }
    return s;
}

inline h5::Handle space_of(const Selection& s) {
    const hsize_t dims[3] = {s.frames, kNi, kNj};
    const hsize_t unlimited[3] = {H5S_UNLIMITED, kNi, kNj};
    h5::Handle space(H5Screate_simple(3, dims, s.kind == Selection::Kind::unlimited ? unlimited : nullptr), H5Sclose, "space");
    if (s.kind == Selection::Kind::hyperslab || s.kind == Selection::Kind::unlimited) {
        REQUIRE(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, s.start, s.stride, s.count, s.block) >= 0);
    }
    return space;
}

struct Mapping {
    std::string file, dataset;
    Selection vds, source;
};

// A VDS of `frames` frames at `path` of `file` (made, or added to) with these mappings, and
// Bliss's soft link to it at kMeasurement when it is kVdsPath.
inline void write_vds(const std::string& file, const std::string& path, hsize_t frames, const std::vector<Mapping>& mappings,
               bool new_file = true, hid_t type = H5T_STD_U16LE, bool unlimited = false) {
    const h5::Handle f = create_or_open(file, new_file);
    const h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dcpl");
    for (const Mapping& m : mappings)
        REQUIRE(H5Pset_virtual(dcpl.get(), space_of(m.vds).get(), m.file.c_str(), m.dataset.c_str(), space_of(m.source).get()) >= 0);
    const hsize_t dims[3] = {frames, kNi, kNj}, max[3] = {H5S_UNLIMITED, kNi, kNj};
    const h5::Handle space(H5Screate_simple(3, dims, unlimited ? max : nullptr), H5Sclose, "vds space");
    const h5::Handle d(H5Dcreate2(f.get(), path.c_str(), type, space.get(), intermediate_groups().get(), dcpl.get(), H5P_DEFAULT),
                       H5Dclose, "vds");
    if (path == kVdsPath)
        REQUIRE(H5Lcreate_soft(kVdsPath.c_str(), f.get(), kMeasurement.c_str(), intermediate_groups().get(), H5P_DEFAULT) >= 0);
}

// Every frame of the index as the reader threads deliver it, in batches of 16 (so that batches
// straddle the sources).
inline std::vector<Chunk> read_by_batches(const tool::ChunkIndex& index) {
    tool::BufferRing ring(4, tool::largest_batch_bytes(index, 16), tool::ordinary_memory);
    tool::BatchReader reader(index, ring, 16, 3);
    std::vector<Chunk> frames(index.chunks.size());
    tool::ReadBatch b;
    while (reader.take(b)) {
        if (b.error) std::rethrow_exception(b.error);
        for (std::size_t k = 0; k < b.lengths.size(); ++k) {
            REQUIRE(b.filter_masks[k] == 0);
            frames[b.first - index.first_frame + k].assign(b.base + b.offsets[k], b.base + b.offsets[k] + b.lengths[k]);
        }
        reader.give_back(b);
    }
    return frames;
}

// Frames [a, b) of the scan's first dataset read as `bslz4 sparse` reads them (its chunk index,
// by position or, with per_chunk_limit 0, through HDF5), equal `want`; and one by one.
inline void check_frames(const tool::ScanInput& scan, std::size_t a, std::size_t b, const std::vector<Chunk>& want,
                  std::size_t per_chunk_limit) {
    const tool::ChunkIndex index = tool::read_chunk_index(scan.datasets[0].dataset.get(), a, b, scan.file_name + ":" + scan.datasets[0].path,
                                                          scan.largest_chunk, per_chunk_limit);
    const std::vector<Chunk> got = read_by_batches(index);
    REQUIRE(got.size() == b - a);
    for (std::size_t f = a; f < b; ++f) {
        INFO("frame " << f);
        REQUIRE(got[f - a] == want[f]);
        REQUIRE(tool::read_frame_chunk(scan, 0, f) == want[f]);
    }
}

// Where HDF5 has the bitshuffle filter, it reads the VDS itself: its frames must be our chunks'.
inline void check_against_hdf5(const std::string& file, const std::string& path, const std::vector<Chunk>& want) {
    if (H5Zfilter_avail(tool::kBitshuffleFilter) <= 0) return;
    const h5::Handle f = h5::open_file(file);
    const h5::Handle d = h5::open_dataset(f.get(), path, file);
    const auto pixels = h5::read_all<std::uint16_t>(d.get(), H5T_NATIVE_UINT16, file + ":" + path);
    REQUIRE(pixels.size() == want.size() * kNi * kNj);
    for (std::size_t k = 0; k < want.size(); ++k) {
        INFO("frame " << k << " as HDF5 reads the VDS");
        REQUIRE(std::memcmp(pixels.data() + k * kNi * kNj, decode_chunk(want[k], 2).data(), kNi * kNj * 2) == 0);
    }
}

// Every dataset of an HDF5 file: its type, shape and bytes as stored (a chunked dataset's chunks
// raw, with their offsets and filter masks, so that no filter is needed to compare them;
// variable-length values: their count only).
struct DatasetContents {
    std::string type;
    std::vector<hsize_t> shape;
    std::vector<std::uint8_t> bytes;
    bool operator==(const DatasetContents& o) const { return type == o.type && shape == o.shape && bytes == o.bytes; }
};

template <class T>
inline void append_bytes(std::vector<std::uint8_t>& to, const T& v) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
    to.insert(to.end(), p, p + sizeof v);
}

inline bool stored_bytes(hid_t dataset, hid_t type, std::size_t elements, std::vector<std::uint8_t>& out) {
    const h5::Handle dcpl(H5Dget_create_plist(dataset), H5Pclose, "dcpl");
    if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED) {
        out.resize(elements * H5Tget_size(type));
        return elements == 0 || H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0;
    }
    const h5::Handle space(H5Dget_space(dataset), H5Sclose, "space");
    const int rank = H5Sget_simple_extent_ndims(space.get());
    hsize_t chunks = 0;
    if (H5Dget_num_chunks(dataset, space.get(), &chunks) < 0) return false;
    for (hsize_t k = 0; k < chunks; ++k) {
        std::vector<hsize_t> offset(static_cast<std::size_t>(rank));
        unsigned mask = 0;
        haddr_t address = 0;
        hsize_t size = 0;
        if (H5Dget_chunk_info(dataset, space.get(), k, offset.data(), &mask, &address, &size) < 0) return false;
        std::vector<std::uint8_t> chunk(size);
        std::uint32_t filters = 0;
        if (size && H5Dread_chunk(dataset, H5P_DEFAULT, offset.data(), &filters, chunk.data()) < 0) return false;
        for (hsize_t o : offset) append_bytes(out, o);
        append_bytes(out, filters);
        append_bytes(out, size);
        out.insert(out.end(), chunk.begin(), chunk.end());
    }
    return true;
}

inline herr_t collect_dataset(hid_t root, const char* name, const H5L_info_t*, void* out) {
    const hid_t object = H5Oopen(root, name, H5P_DEFAULT);
    if (object < 0) return -1;
    bool read = true;
    if (H5Iget_type(object) == H5I_DATASET) {
        DatasetContents c;
        const h5::Handle type(H5Dget_type(object), H5Tclose, name);
        const H5T_class_t cls = H5Tget_class(type.get());
        c.type = std::to_string(static_cast<int>(cls)) + ":" + std::to_string(H5Tget_size(type.get()));
        c.shape = h5::dataset_shape(object);
        std::size_t n = 1;
        for (hsize_t d : c.shape) n *= d;
        const bool variable = H5Tdetect_class(type.get(), H5T_VLEN) > 0 || (cls == H5T_STRING && H5Tis_variable_str(type.get()) > 0) ||
                              (cls == H5T_COMPOUND && H5Tdetect_class(type.get(), H5T_STRING) > 0);
        if (!variable) read = stored_bytes(object, type.get(), n, c.bytes);
        (*static_cast<std::map<std::string, DatasetContents>*>(out))[name] = std::move(c);
    }
    H5Oclose(object);
    return read ? 0 : -1;
}

inline std::map<std::string, DatasetContents> datasets_of(const std::string& file) {
    const h5::Handle f = h5::open_file(file);
    std::map<std::string, DatasetContents> out;
    REQUIRE(H5Lvisit(f.get(), H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &out) >= 0);
    return out;
}

inline void check_same_outputs(const std::string& got, const std::string& want) {
    const auto a = datasets_of(got), b = datasets_of(want);
    REQUIRE(!b.empty());
    for (const auto& [name, contents] : b) {
        INFO(name);
        REQUIRE(a.count(name) == 1);
        CHECK(a.at(name) == contents);
    }
    CHECK(a.size() == b.size());
}

// Three LImA files of 40, 50 and 30 frames under DIR/lima, a Bliss master DIR/master.h5 naming
// them relative to its folder, and the same 120 frames as one dataset in DIR/plain.h5 (at the
// master's data path, so that the outputs' groups have the same names).
struct BlissScan {
    std::string dir, master, plain;
    std::vector<Chunk> chunks;
};

inline BlissScan bliss_scan(const std::string& name) {
    BlissScan s;
    s.dir = fresh_folder(name);
    s.master = s.dir + "/master.h5";
    s.plain = s.dir + "/plain.h5";
    const hsize_t sizes[3] = {40, 50, 30};
    std::vector<Mapping> mappings;
    hsize_t at = 0;
    for (int k = 0; k < 3; ++k) {
        const std::string relative = "lima/eiger_000" + std::to_string(k) + ".h5";
        const std::vector<Chunk> part = frame_chunks(sizes[k], at);
        write_frames(s.dir + "/" + relative, kLimaPath, part, true);
        s.chunks.insert(s.chunks.end(), part.begin(), part.end());
        mappings.push_back({relative, kLimaPath, frames_of(120, at, sizes[k]), all_of(sizes[k])});
        at += sizes[k];
    }
    write_vds(s.master, kVdsPath, 120, mappings);
    write_frames(s.plain, kMeasurement, s.chunks, true);
    return s;
}

// Runs fn with the working folder elsewhere, so that nothing found relative to it counts.
template <class F>
inline void from_another_folder(F&& fn) {
    const std::filesystem::path here = std::filesystem::current_path();
    std::filesystem::current_path("/");
    try {
        fn();
    } catch (...) {
        std::filesystem::current_path(here);
        throw;
    }
    std::filesystem::current_path(here);
}

}  // namespace bslz4::test::vds
