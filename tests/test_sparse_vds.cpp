// Bliss master files and LImA files as ImageD11 users have them (issue 13): a virtual dataset
// (VDS) over LImA files, written here with HDF5's C API (H5Pset_virtual) over sources holding our
// encoder's chunks, read chunk by chunk from its sources and checked against the same frames
// stored as one ordinary dataset; every mapping that is not one whole frame a chunk refused with
// a message naming it; a LImA file's dataset found without --dataset, and its missing mask said.
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
#include "vds_fixture.hpp"

using namespace bslz4;
namespace h5 = bslz4::tool::h5;
using Chunk = std::vector<std::uint8_t>;
using namespace test::vds;

TEST_CASE("a Bliss master's VDS over three LImA files gives each frame's chunk from its source file, in the VDS's order",
          "[sparse-vds]") {
    const BlissScan s = bliss_scan("vds_bliss");
    from_another_folder([&] {
        const tool::ScanInput scan = tool::open_scan(s.master, kMeasurement);
        REQUIRE(scan.frames == 120);
        CHECK(scan.ni == kNi);
        CHECK(scan.nj == kNj);
        CHECK(scan.type == PixelType::u16);
        CHECK(scan.codec == Codec::lz4);
        REQUIRE(scan.datasets.size() == 1);
        REQUIRE(scan.datasets[0].virtual_frames);
        CHECK(scan.datasets[0].virtual_frames->sources.size() == 3);
        CHECK(scan.datasets[0].virtual_frames->runs.size() == 3);
        CHECK(tool::frame_place(scan, 0, 45) ==
              s.master + ":" + kMeasurement + " frame 45 (" + s.dir + "/lima/eiger_0001.h5:" + kLimaPath + " frame 5)");
        for (const std::size_t limit : {std::size_t{8192}, std::size_t{0}}) {  // by position, and through HDF5
            INFO("per-chunk index limit " << limit);
            check_frames(scan, 0, 120, s.chunks, limit);
            check_frames(scan, 37, 95, s.chunks, limit);  // part of the first file to part of the last
        }
    });
    check_against_hdf5(s.master, kMeasurement, s.chunks);
}

TEST_CASE("where the HDF5 loaded has H5Dchunk_iter every chunk is read by position, past the per-chunk limit too; limit 0 reads through HDF5",
          "[sparse-vds]") {
    unsigned major = 0, minor = 0, release = 0;
    H5get_libversion(&major, &minor, &release);
    // H5Dchunk_iter came with 1.10.10, 1.12.3 and 1.14.0, whatever headers this was built with.
    const bool has_iter = major > 1 || (major == 1 && (minor > 12 || (minor == 12 && release >= 3) || (minor == 10 && release >= 10)));
    INFO("HDF5 " << major << "." << minor << "." << release);
    REQUIRE(tool::chunk_index_in_one_pass() == has_iter);
    const std::string file = test::temp_path("chunk_iter_scan.h5");
    const std::vector<Chunk> chunks = frame_chunks(40, 0);
    tool::write_scan(file, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
    const tool::ScanInput scan = tool::open_scan(file, "");
    for (const std::size_t limit : {std::size_t{8192}, std::size_t{10}, std::size_t{0}}) {  // 0: through HDF5, always
        INFO("per-chunk index limit " << limit);
        const tool::ChunkIndex index = tool::read_chunk_index(scan.datasets[0].dataset.get(), 0, chunks.size(), file, scan.largest_chunk, limit);
        REQUIRE(index.sources.size() == 1);
        CHECK(index.sources[0].by_position == (limit != 0 && (has_iter || limit >= chunks.size())));
        check_frames(scan, 0, chunks.size(), chunks, limit);
        check_frames(scan, 7, 33, chunks, limit);
    }
}

TEST_CASE("bslz4 sparse on a Bliss master's VDS writes what it writes for the same frames in one dataset", "[sparse-vds]") {
    const BlissScan s = bliss_scan("vds_sparse");
    const std::string out_vds = s.dir + "/out_vds.h5", out_plain = s.dir + "/out_plain.h5";
    SECTION("in the job, run from another folder") {
        const std::atomic<bool> stop{false};
        for (const auto& [in, out] : {std::pair{s.master, out_vds}, std::pair{s.plain, out_plain}}) {
            tool::SparseJob job = test::cpu_sparse_job(in, out);
            job.dataset = kMeasurement;
            from_another_folder([&] { REQUIRE(tool::run_sparse_job(job, stop).frames == 120); });
        }
        check_same_outputs(out_vds, out_plain);
    }
    SECTION("from the command line, --frames across the files") {
        for (const auto& [in, out] : {std::pair{s.master, out_vds}, std::pair{s.plain, out_plain}}) {
            const test::ToolResult r = test::run_tool("sparse --overwrite " + in + " --dataset " + kMeasurement + " -o " + out +
                                                      " --cut 4 --cpu --quiet --frames 30:100");
            INFO(r.err);
            REQUIRE(r.code == 0);
        }
        check_same_outputs(out_vds, out_plain);
    }
}

TEST_CASE("sources in the VDS's own file, part of a source and interleaved mappings give the frames HDF5 maps", "[sparse-vds]") {
    const std::string dir = fresh_folder("vds_shapes");
    const std::string file = dir + "/scan.h5", other = dir + "/lima/other.h5";
    const std::vector<Chunk> a = frame_chunks(20, 0), b = frame_chunks(20, 100), c = frame_chunks(30, 200);
    write_frames(file, "/entry_0000/a/data", a, true);
    write_frames(file, "/entry_0000/b/data", b, false);
    write_frames(other, kLimaPath, c, true);
    // VDS frames 0, 2, ..., 38 from a, 1, 3, ..., 39 from b (one file "."), then frames 40 to 49
    // from frames 5 to 14 of `other`, and 50 to 53 from its frames 20, 22, 24, 26.
    write_vds(file, kVdsPath, 54,
              {{".", "/entry_0000/a/data", frames_of(54, 0, 20, 2, 1), all_of(20)},
               {".", "/entry_0000/b/data", frames_of(54, 1, 20, 2, 1), all_of(20)},
               {"lima/other.h5", kLimaPath, frames_of(54, 40, 10), frames_of(30, 5, 10)},
               {"lima/other.h5", kLimaPath, frames_of(54, 50, 4), frames_of(30, 20, 4, 2, 1)}},
              false);
    std::vector<Chunk> want;
    for (std::size_t k = 0; k < 20; ++k) want.insert(want.end(), {a[k], b[k]});
    for (std::size_t k = 5; k < 15; ++k) want.push_back(c[k]);
    for (std::size_t k = 20; k < 28; k += 2) want.push_back(c[k]);
    const tool::ScanInput scan = tool::open_scan(file, kMeasurement);
    REQUIRE(scan.frames == 54);
    CHECK(scan.datasets[0].virtual_frames->sources.size() == 3);
    for (const std::size_t limit : {std::size_t{8192}, std::size_t{0}}) {
        INFO("per-chunk index limit " << limit);
        check_frames(scan, 0, 54, want, limit);
        check_frames(scan, 3, 52, want, limit);
    }
    check_against_hdf5(file, kMeasurement, want);
}

TEST_CASE("a VDS mapping that is not one whole frame a chunk is refused, naming the file, dataset and mapping",
          "[sparse-vds][error-codes]") {
    const std::string dir = fresh_folder("vds_refused");
    const std::string master = dir + "/master.h5", src = dir + "/lima/src.h5";
    const std::string what = master + ":" + kMeasurement;
    write_frames(src, kLimaPath, frame_chunks(30, 0), true);
    // all of the source, as the first 30 frames of a VDS of `frames`
    const auto whole = [&](hsize_t frames) { return Mapping{"lima/src.h5", kLimaPath, frames_of(frames, 0, 30), all_of(30)}; };
    struct Case {
        const char* name;
        std::function<void()> make;
        ErrorCode code;
        std::vector<std::string> said;
    };
    const std::vector<Case> cases = {
        {"a source file that is not there",
         [&] { write_vds(master, kVdsPath, 30, {{"lima/gone.h5", kLimaPath, frames_of(30, 0, 30), all_of(30)}}); },
         ErrorCode::io,
         {what + " mapping 0 (lima/gone.h5:" + kLimaPath + ") (VDS frames 0 to 29): the source file lima/gone.h5 is not found",
          dir + "/lima/gone.h5", "fill value"}},
        {"a source dataset that is not there",
         [&] { write_vds(master, kVdsPath, 30, {{"lima/src.h5", "/entry_0000/nothing/data", frames_of(30, 0, 30), all_of(30)}}); },
         ErrorCode::io,
         {what + " mapping 0", "has no dataset /entry_0000/nothing/data", "fill value"}},
        {"frames in no mapping",
         [&] { write_vds(master, kVdsPath, 40, {whole(40)}); },
         ErrorCode::bad_argument,
         {what + ": frames 30 to 39 are in no mapping; HDF5 would read them as the fill value"}},
        {"a gap between mappings",
         [&] {
             write_vds(master, kVdsPath, 30,
                       {{"lima/src.h5", kLimaPath, frames_of(30, 0, 10), frames_of(30, 0, 10)},
                        {"lima/src.h5", kLimaPath, frames_of(30, 12, 18), frames_of(30, 12, 18)}});
         },
         ErrorCode::bad_argument,
         {what + ": frames 10 to 11 are in no mapping"}},
        {"half frames from two sources (rows of a frame, not whole frames)",
         [&] {
             Selection top = frames_of(30, 0, 30), bottom = frames_of(30, 0, 30);
             top.block[1] = kNi / 2;
             bottom.start[1] = kNi / 2;
             bottom.block[1] = kNi / 2;
             write_vds(master, kVdsPath, 30,
                       {{"lima/src.h5", kLimaPath, top, top}, {"lima/src.h5", kLimaPath, bottom, bottom}});
         },
         ErrorCode::bad_argument,
         {what + " mapping 0 (lima/src.h5:" + kLimaPath + "): its VDS selection", "takes rows 0 to 11 and columns 0 to 35",
          "not whole 24 x 36 frames", "only whole frames can be read from their chunks"}},
        {"a source shorter than the mapping made for it (a scan cut short)",
         [&] { write_vds(master, kVdsPath, 40, {{"lima/src.h5", kLimaPath, frames_of(40, 0, 40), all_of(40)}}); },
         ErrorCode::bad_argument,
         {what + " mapping 0 (lima/src.h5:" + kLimaPath + ") (VDS frames 0 to 39): 40 frames of the VDS from all of " + dir +
              "/lima/src.h5:" + kLimaPath + ", which has 30 (a scan cut short?)"}},
        {"frames past the source's end",
         [&] { write_vds(master, kVdsPath, 20, {{"lima/src.h5", kLimaPath, frames_of(20, 0, 20), frames_of(50, 20, 20)}}); },
         ErrorCode::bad_argument,
         {what + " mapping 0 (lima/src.h5:" + kLimaPath + ") (VDS frames 0 to 19): takes source frames 20 to 39, but " + dir +
              "/lima/src.h5:" + kLimaPath + " has 30 frames; HDF5 would read the frames past them as the fill value"}},
        {"a frame mapped twice",
         [&] {
             write_vds(master, kVdsPath, 30,
                       {whole(30), {"lima/src.h5", kLimaPath, frames_of(30, 10, 5), frames_of(30, 0, 5)}});
         },
         ErrorCode::bad_argument,
         {what + ": frame 10 is mapped twice"}},
        {"one source frame behind two frames of the VDS",
         [&] {
             write_vds(master, kVdsPath, 40,
                       {whole(40), {"lima/src.h5", kLimaPath, frames_of(40, 30, 10), frames_of(30, 5, 10)}});
         },
         ErrorCode::bad_argument,
         {"frame 5 of " + dir + "/lima/src.h5:" + kLimaPath + " is mapped to frames 5 and 30 of the VDS",
          "each source frame may be mapped once"}},
        {"an unlimited mapping",
         [&] {
             Selection grows = frames_of(30, 0, 1);
             grows.kind = Selection::Kind::unlimited;
             grows.block[0] = H5S_UNLIMITED;
             write_vds(master, kVdsPath, 30, {{"lima/src.h5", kLimaPath, grows, grows}}, true, H5T_STD_U16LE, true);
         },
         ErrorCode::bad_argument,
         {what + " mapping 0", "is unlimited", "only fixed mappings are read"}},
        {"a source of another pixel type",
         [&] {
             write_frames(dir + "/lima/i32.h5", kLimaPath, frame_chunks(30, 0, PixelType::i32), true, PixelType::i32);
             write_vds(master, kVdsPath, 30, {{"lima/i32.h5", kLimaPath, frames_of(30, 0, 30), all_of(30)}});
         },
         ErrorCode::bad_argument,
         {what + ": its source " + dir + "/lima/i32.h5:" + kLimaPath + " holds i32 pixels, the virtual dataset u16",
          "HDF5 would convert them"}},
        {"a source of two frames a chunk",
         [&] {
             const h5::Handle f = h5::create_file(dir + "/lima/pairs.h5");
             const hsize_t dims[3] = {30, kNi, kNj}, chunk[3] = {2, kNi, kNj};
             const h5::Handle space(H5Screate_simple(3, dims, nullptr), H5Sclose, "space");
             const h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dcpl");
             REQUIRE(H5Pset_chunk(dcpl.get(), 3, chunk) >= 0);
             const h5::Handle d(H5Dcreate2(f.get(), kLimaPath.c_str(), H5T_STD_U16LE, space.get(), intermediate_groups().get(),
                                           dcpl.get(), H5P_DEFAULT),
                                H5Dclose, "pairs");
             write_vds(master, kVdsPath, 30, {{"lima/pairs.h5", kLimaPath, frames_of(30, 0, 30), all_of(30)}});
         },
         ErrorCode::bad_argument,
         {what + ": its source " + dir + "/lima/pairs.h5:" + kLimaPath + ": chunks of 2 x 24 x 36",
          "one chunk must be one frame"}},
        {"a source that is itself a VDS",
         [&] {
             write_vds(dir + "/lima/inner.h5", kLimaPath, 30, {{"src.h5", kLimaPath, frames_of(30, 0, 30), all_of(30)}});
             write_vds(master, kVdsPath, 30, {{"lima/inner.h5", kLimaPath, frames_of(30, 0, 30), all_of(30)}});
         },
         ErrorCode::bad_argument,
         {what + " mapping 0", "is itself a virtual dataset; a VDS of VDSs is not followed"}},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        c.make();
        std::string message;
        const ErrorCode code = test::code_thrown_by([&] {
            try {
                tool::open_scan(master, kMeasurement);
            } catch (const Error& e) {
                message = e.what();
                throw;
            }
        });
        INFO(message);
        CHECK(code == c.code);
        for (const std::string& s : c.said) CHECK_THAT(message, Catch::Contains(s));
    }
    // from the command line: one line on stderr naming the input, exit status 1, no output
    write_vds(master, kVdsPath, 40, {whole(40)});
    const std::string out = dir + "/out.h5";
    const test::ToolResult r = test::run_tool("sparse --overwrite " + master + " --dataset " + kMeasurement + " -o " + out + " --cut 4 --cpu --quiet");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("bslz4: " + what + ": frames 30 to 39 are in no mapping"));
    CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a source file is found as HDF5 finds it: by its absolute name, beside the master, or under HDF5_VDS_PREFIX",
          "[sparse-vds]") {
    const std::string dir = fresh_folder("vds_found");
    const std::vector<Chunk> chunks = frame_chunks(12, 0);
    write_frames(dir + "/lima/src.h5", kLimaPath, chunks, true);
    std::vector<std::string> tried;
    SECTION("an absolute name") {
        write_vds(dir + "/master.h5", kVdsPath, 12, {{dir + "/lima/src.h5", kLimaPath, frames_of(12, 0, 12), all_of(12)}});
        check_frames(tool::open_scan(dir + "/master.h5", kMeasurement), 0, 12, chunks, 8192);
    }
    SECTION("an absolute name that moved: its last part beside the master") {
        std::filesystem::copy_file(dir + "/lima/src.h5", dir + "/src.h5");
        write_vds(dir + "/master.h5", kVdsPath, 12, {{"/nowhere/src.h5", kLimaPath, frames_of(12, 0, 12), all_of(12)}});
        check_frames(tool::open_scan(dir + "/master.h5", kMeasurement), 0, 12, chunks, 8192);
        CHECK(tool::resolve_source_file("/nowhere/src.h5", dir + "/master.h5", "", tried) == dir + "/src.h5");
        CHECK(tried == std::vector<std::string>{"/nowhere/src.h5", dir + "/src.h5"});
    }
    SECTION("under HDF5_VDS_PREFIX, before the master's folder") {
        std::filesystem::create_directories(dir + "/elsewhere");
        std::filesystem::copy_file(dir + "/lima/src.h5", dir + "/elsewhere/src.h5");
        REQUIRE(setenv("HDF5_VDS_PREFIX", (dir + "/missing:" + dir + "/elsewhere").c_str(), 1) == 0);
        CHECK(tool::resolve_source_file("src.h5", dir + "/master.h5", "", tried) == dir + "/elsewhere/src.h5");
        CHECK(tried == std::vector<std::string>{dir + "/missing/src.h5", dir + "/elsewhere/src.h5"});
        tried.clear();
        REQUIRE(setenv("HDF5_VDS_PREFIX", "${ORIGIN}/lima", 1) == 0);
        CHECK(tool::resolve_source_file("src.h5", dir + "/master.h5", "", tried) == dir + "/lima/src.h5");
        unsetenv("HDF5_VDS_PREFIX");
    }
    SECTION("not found: every place looked at is named") {
        CHECK(tool::resolve_source_file("lima/none.h5", dir + "/master.h5", "", tried).empty());
        CHECK(tried == std::vector<std::string>{dir + "/lima/none.h5", "lima/none.h5"});
    }
}

TEST_CASE("a LImA file's frames are found without --dataset, and a scan with no pixel_mask says it runs unmasked",
          "[sparse-vds][lima]") {
    const std::string dir = fresh_folder("lima_files");
    const std::string lima = dir + "/eiger_0000.h5";
    const std::vector<Chunk> chunks = frame_chunks(10, 0);
    write_frames(lima, kLimaPath, chunks, true);
    {  // LImA's other groups, and a soft link to the frames, are not frames of their own
        const h5::Handle f = h5::open_file(lima, true);
        REQUIRE(H5Lcreate_soft(kLimaPath.c_str(), f.get(), "/entry_0000/measurement/image/data", intermediate_groups().get(),
                               H5P_DEFAULT) >= 0);
    }
    {
        const tool::ScanInput scan = tool::open_scan(lima, "");
        REQUIRE(scan.datasets.size() == 1);
        CHECK(scan.datasets[0].path == kLimaPath);
        CHECK(scan.frames == 10);
        CHECK(scan.nexus_mask.empty());
        CHECK(scan.mask_source == "none (the file has no pixel_mask)");
        CHECK(scan.mask_looked_for == std::vector<std::string>{tool::kNexusPixelMask, "/entry_0000/ESRF-ID11/eiger/pixel_mask"});
    }
    CHECK(tool::open_scan(lima, "", tool::NexusMask::skip).mask_source.empty());

    // a pixel_mask in the detector's group (an NXdetector's) masks the scan
    std::vector<std::uint8_t> mask(kNi * kNj, 0);
    mask[7] = 1;
    {
        const h5::Handle f = h5::open_file(lima, true);
        const hsize_t dims[2] = {kNi, kNj};
        const h5::Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose, "space");
        const h5::Handle d(H5Dcreate2(f.get(), "/entry_0000/ESRF-ID11/eiger/pixel_mask", H5T_STD_U8LE, space.get(), H5P_DEFAULT,
                                      H5P_DEFAULT, H5P_DEFAULT),
                           H5Dclose, "mask");
        REQUIRE(H5Dwrite(d.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, mask.data()) >= 0);
    }
    {
        const tool::ScanInput scan = tool::open_scan(lima, "");
        CHECK(scan.nexus_mask == mask);
        CHECK(scan.mask_source == lima + ":/entry_0000/ESRF-ID11/eiger/pixel_mask");
    }

    // an Eiger file's NeXus mask, as before
    const std::string eiger = dir + "/eiger_master.h5";
    tool::write_scan(eiger, kNi, kNj, PixelType::u16, chunks.size(), mask, chunks);
    CHECK(tool::open_scan(eiger, "").mask_source == eiger + ":" + tool::kNexusPixelMask);

    // two detectors: which one is the user's to say
    write_frames(lima, "/entry_0000/ESRF-ID11/frelon/data", chunks, false);
    std::string message;
    CHECK(test::code_thrown_by([&] {
              try {
                  tool::open_scan(lima, "");
              } catch (const Error& e) {
                  message = e.what();
                  throw;
              }
          }) == ErrorCode::bad_argument);
    CHECK_THAT(message, Catch::Contains("2 LImA datasets of frames (/entry_0000/ESRF-ID11/eiger/data, "
                                       "/entry_0000/ESRF-ID11/frelon/data): give --dataset PATH"));
    // and a file with none of the usual places says where to look in a Bliss master
    const BlissScan bliss = bliss_scan("lima_bliss");
    CHECK_THROWS_WITH(tool::open_scan(bliss.master, ""), Catch::Contains("--dataset /1.1/measurement/eiger"));
}
