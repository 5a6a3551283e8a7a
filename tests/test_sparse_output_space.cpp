// Unused space in `bslz4 sparse`'s output: the lists' partial last chunks, written unencoded at
// each flush, must leave nothing behind when they are written encoded at the end
// (tests/output_size_imaged11.py measures whole files against ImageD11's).
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hdf5/row_places.hpp"
#include "hdf5/sparse_output.hpp"
#include "sparse_job_fixture.hpp"
#include "tool_runner.hpp"

using namespace bslz4;

namespace {

constexpr std::size_t kSide = 400;  // 160,000 pixels: room for 20,000 at every 7th

// One frame of `pixels` pixels, the k-th of them at flat index k * 7 (ascending) with a value
// that varies, so that the lists do not encode to almost nothing.
tool::OutputRows one_frame(std::size_t pixels) {
    std::vector<std::uint32_t> indices(pixels);
    std::vector<std::uint16_t> values(pixels);
    for (std::size_t k = 0; k < pixels; ++k) {
        indices[k] = static_cast<std::uint32_t>(k * 7);
        values[k] = static_cast<std::uint16_t>((k * 2654435761u) >> 20);
    }
    tool::OutputRows rows;
    rows.add(SparseFrame{pixels, values.data(), indices.data(), PixelType::u16}, kSide);
    return rows;
}

// What SparseOutput writes for `batches` (each appended in turn) in one group of `frames`
// frames, as its file is once that group is closed (which flushes it), copied from under its
// temporary name: the copy's path, for the caller to read and remove.
std::string closed_copy(const std::string& out, const tool::OutputInfo& info, std::size_t frames,
                        const std::vector<tool::OutputRows>& batches) {
    const std::string closed = out + ".closed";
    {
        tool::SparseOutput output(out, info);
        output.begin_group("/entry/data/data", frames);
        for (const tool::OutputRows& rows : batches) output.append(rows);
        output.close_group(true);
        std::filesystem::copy_file(test::temporaries_of(out).at(0), closed, std::filesystem::copy_options::overwrite_existing);
    }
    std::remove(out.c_str());
    return closed;
}

struct Written {
    std::uintmax_t file = 0, datasets = 0;  // the file's bytes, and its datasets' stored bytes
};

// What SparseOutput writes for these batches, as its file is once their group is closed (which
// flushes it), under its temporary name; flushed after every batch, or never before.
Written written(const std::string& out, const std::vector<std::size_t>& batch_pixels, bool flush_every_batch) {
    tool::OutputInfo info;
    info.ni = info.nj = kSide;
    info.flush_seconds = flush_every_batch ? 0 : 1e9;
    std::vector<tool::OutputRows> batches;
    for (const std::size_t pixels : batch_pixels) batches.push_back(one_frame(pixels));
    const std::string closed = closed_copy(out, info, batch_pixels.size(), batches);
    Written w;
    w.file = std::filesystem::file_size(closed);
    {
        const tool::h5::Handle f = tool::h5::open_file(closed);
        for (const char* name : {"row", "col", "intensity", "nnz", "bad_frames"}) {
            const tool::h5::Handle d = tool::h5::open_dataset(f.get(), std::string("/entry/data/data/") + name, closed);
            w.datasets += H5Dget_storage_size(d.get());
        }
    }
    std::remove(closed.c_str());
    return w;
}

}  // namespace

TEST_CASE("the lists' last chunks, written unencoded at each flush and encoded at the end, leave no unused space: "
          "the file is as large as one never flushed before",
          "[sparse-tool][layout]") {
    const std::string out = test::temp_path("output_space.h5");
    // the first batch fills the lists' first chunk (16,384 elements) and starts the second,
    // which the others extend
    const std::vector<std::size_t> batches = {20000, 5000, 3000};
    const Written never = written(out, batches, false), every = written(out, batches, true);
    CHECK(every.file == never.file);
    // HDF5's metadata for one group beside that (20 kB here, HDF5 1.10), less than the 32 kB of
    // one unencoded chunk left behind
    CHECK(never.file <= never.datasets + 32768);
}

namespace {

// Frames of 3 x 5 powder bins (a 2D powder: 3 azimuthal x 5 radial), row k's bins k * 100 + b.
constexpr std::size_t kRad = 5, kAzim = 3, kBins = kRad * kAzim;

// Batches of `sizes` frames of 3 pixels through SparseOutput (flushed after every batch, or
// never before), with or without the axes that add powder_intensity, their powders written as the
// decoders write them: each batch's on a thread of its own, all at once, the last batch first;
// returns the file's bytes, and checks what it holds.
std::uintmax_t written_powders(const std::string& out, const std::vector<std::size_t>& sizes, bool flush_every_batch,
                               bool axes, bool map) {
    tool::OutputInfo info;
    info.ni = info.nj = kSide;
    info.bins = kBins;
    info.flush_seconds = flush_every_batch ? 0 : 1e9;
    info.map_powders = map;
    if (axes) {
        info.axes.npt_rad = kRad;
        info.axes.npt_azim = kAzim;
        info.axes.radial = {1, 2, 3, 4, 5};
        info.axes.azimuthal = {-90, 0, 90};
        info.normalisation.assign(kBins, 2.0);
    }
    std::size_t frames = 0;
    for (const std::size_t n : sizes) frames += n;
    const std::string closed = out + ".closed";
    {
        tool::SparseOutput output(out, info);
        output.begin_group("/entry/data/data", frames);
        const tool::GroupPowders* powders = output.powders();
        REQUIRE(powders != nullptr);
        // mapped where asked and the file system keeps reservations (ext4, XFS, tmpfs)
        const int fd = open(test::temporaries_of(out).at(0).c_str(), O_RDONLY | O_CLOEXEC);
        REQUIRE(fd >= 0);
        CHECK(powders->mapped() == (map && tool::reservations_hold(fd)));
        close(fd);
        std::vector<std::thread> writers;
        std::size_t first = frames;
        for (auto n = sizes.rbegin(); n != sizes.rend(); ++n) {
            first -= *n;
            writers.emplace_back([powders, first, n = *n] {
                std::vector<double> sums(n * kBins);
                for (std::size_t i = 0; i < sums.size(); ++i) sums[i] = static_cast<double>((first + i / kBins) * 100 + i % kBins);
                powders->write(first, n, sums.data());
            });
        }
        for (std::thread& t : writers) t.join();
        const std::vector<std::uint32_t> indices = {3, 70, 700};
        const std::vector<std::uint16_t> values = {9, 8, 7};
        for (const std::size_t n : sizes) {
            tool::OutputRows rows;
            for (std::size_t f = 0; f < n; ++f) rows.add(SparseFrame{indices.size(), values.data(), indices.data(), PixelType::u16}, kSide);
            output.append(rows);
        }
        output.close_group(true);
        std::filesystem::copy_file(test::temporaries_of(out).at(0), closed, std::filesystem::copy_options::overwrite_existing);
    }
    std::remove(out.c_str());
    const std::uintmax_t bytes = std::filesystem::file_size(closed);
    {
        const tool::h5::Handle f = tool::h5::open_file(closed);
        for (const char* name : axes ? std::vector<const char*>{"powder", "powder_intensity"} : std::vector<const char*>{"powder"}) {
            INFO(name);
            const tool::h5::Handle d = tool::h5::open_dataset(f.get(), std::string("/entry/data/data/") + name, closed);
            const auto shape = tool::h5::dataset_shape(d.get());
            REQUIRE(shape == (axes ? std::vector<hsize_t>{frames, kAzim, kRad} : std::vector<hsize_t>{frames, kBins}));
            const auto values = tool::h5::read_all<double>(d.get(), H5T_NATIVE_DOUBLE, name);
            REQUIRE(values.size() == frames * kBins);
            const double scale = std::string(name) == "powder" ? 1.0 : 0.5;  // the intensity: sums / normalisation 2
            for (std::size_t i = 0; i < values.size(); ++i)
                if (values[i] != static_cast<double>((i / kBins) * 100 + i % kBins) * scale) FAIL("value " << i << " is " << values[i]);
        }
    }
    std::remove(closed.c_str());
    return bytes;
}

}  // namespace

TEST_CASE("powders are written where the group keeps them, by any thread in any order, mapped or by pwrite: every "
          "row as written, flushed or not, and the file no larger for the flushes than the lists' unencoded last chunks",
          "[sparse-tool][layout]") {
    const std::string out = test::temp_path("output_powders.h5");
    // chunks of 16 rows: a batch within one, a batch over a boundary, whole chunks, a short tail
    const std::vector<std::size_t> batches = {5, 14, 32, 40, 3};
    for (const bool map : {true, false})
        for (const bool axes : {false, true}) {
            INFO("axes " << axes << ", mapped " << map);
            const std::uintmax_t never = written_powders(out, batches, false, axes, map);
            const std::uintmax_t every = written_powders(out, batches, true, axes, map);
            const std::uintmax_t one = written_powders(out, {94}, false, axes, map);
            // the powders are made whole with the group: the batches change nothing there
            CHECK(one <= never + 1024);
            CHECK(never <= one + 1024);
            // A flush stores each list's partial last chunk unencoded (32 kB for row, col and u16
            // intensity); encoded at the close, it moves and its old place stays unused: at most those.
            CHECK(every <= never + 3 * 32768 + 1024);
        }
}

