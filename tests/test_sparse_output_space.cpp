// Unused space in `bslz4 sparse`'s output: the lists' partial last chunks, written unencoded at
// each flush, must leave nothing behind when they are written encoded at the end
// (tests/output_size_imaged11.py measures whole files against ImageD11's).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

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
    rows.add(SparseFrame{pixels, values.data(), indices.data(), PixelType::u16}, kSide, nullptr, 0);
    return rows;
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
    const std::string closed = out + ".closed";
    {
        tool::SparseOutput output(out, info);
        output.begin_group("/entry/data/data", batch_pixels.size());
        for (const std::size_t pixels : batch_pixels) output.append(one_frame(pixels));
        output.close_group(true);
        std::filesystem::copy_file(test::temporaries_of(out).at(0), closed, std::filesystem::copy_options::overwrite_existing);
    }
    std::remove(out.c_str());
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
