// What `bslz4 sparse` refuses rather than run on quietly (issue 25): a damaged pixel_mask, an Eiger
// master's missing, damaged or miscounted data links, a cut that is no number; what the summary
// says of the mask; and the messages a user meets (a folder missing, an EDF mask given a path, an
// input locked by its writer). Each refusal leaves the user's files intact.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "h5_reader.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/scan_writer.hpp"
#include "safety_fixture.hpp"
#include "sparse/sparse_job.hpp"
#include "sparse_job_fixture.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"

using namespace bslz4;
namespace h5 = bslz4::tool::h5;
using test::run_tool;
using test::slurp;
using namespace test::safety;

namespace {

// A scan with a NeXus pixel_mask whose object `damaged` (the mask, or a group on its path) has
// its object header overwritten with 0xff x 16 (its version and message count), after a run
// on it as written is seen to be masked.
void write_scan_with_damaged_mask(const std::string& scan, const std::string& damaged) {
    std::vector<std::uint8_t> nexus(kNi * kNj, 0);
    for (std::size_t i = 0; i < nexus.size(); i += 7) nexus[i] = 1;
    write_safety_scan(scan, 70, SIZE_MAX, nexus);
    const std::string out = scan + ".before.h5";
    const test::ToolResult ok = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu");
    INFO(ok.err);
    REQUIRE(ok.code == 0);
    CHECK_THAT(ok.out, Catch::Contains("172 pixels masked") && !Catch::Contains("unmasked"));
    std::filesystem::remove(out);
    const haddr_t header = object_header_address(scan, damaged);
    REQUIRE(header != HADDR_UNDEF);
    REQUIRE(header > 0);
    overwrite_bytes(scan, header, std::vector<std::uint8_t>(16, 0xff));
}

// The run on it is an error naming the file and `named`, with no output and not unmasked.
void check_damaged_mask_refused(const std::string& scan, const std::string& named) {
    const std::string out = scan + ".out.h5", damaged_bytes = slurp(scan);
    const test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu");
    INFO("exit " << r.code << "; stdout: " << r.out << "; stderr: " << r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("bslz4: " + scan + ": ") && Catch::Contains(named));
    CHECK_THAT(r.err, !Catch::Contains("HDF5-DIAG"));
    CHECK_THAT(r.out, !Catch::Contains("unmasked"));
    CHECK_FALSE(exists(out));
    CHECK_FALSE(exists(out + ".incomplete"));
    CHECK(test::temporaries_of(out).empty());
    CHECK(slurp(scan) == damaged_bytes);
    // the library's callers too
    const std::atomic<bool> never{false};
    CHECK_THROWS_WITH(tool::run_sparse_job(test::cpu_sparse_job(scan, out), never), Catch::Contains(scan) && Catch::Contains(named));
    CHECK_FALSE(exists(out));
}

}  // namespace

TEST_CASE("a damaged pixel_mask is an error naming the file and pixel_mask, not an unmasked run", "[safety][sparse-tool][mask]") {
    const std::string scan = fresh_folder("damaged_mask") + "/scan.h5";
    write_scan_with_damaged_mask(scan, "/entry/instrument/detector/pixel_mask");
    check_damaged_mask_refused(scan, "/entry/instrument/detector/pixel_mask");
}

// The group's links cannot be read, so whether pixel_mask exists cannot be told (h5::exists
// answered "absent" here before 701c060, and the scan ran unmasked).
TEST_CASE("a pixel_mask in a damaged group is an error naming the file and pixel_mask, not an unmasked run",
          "[safety][sparse-tool][mask]") {
    const std::string scan = fresh_folder("damaged_mask_group") + "/scan.h5";
    write_scan_with_damaged_mask(scan, "/entry/instrument/detector");
    check_damaged_mask_refused(scan, "pixel_mask");
    check_damaged_mask_refused(scan, "/entry/instrument/detector");
}

// ---- 6. an Eiger master's data links -----------------------------------------------------------

TEST_CASE("an Eiger master whose data links have a gap is an error naming the missing link", "[safety][sparse-tool][eiger]") {
    const std::string dir = fresh_folder("eiger_gap");
    const std::string d1 = dir + "/gap_data_000001.h5", d3 = dir + "/gap_data_000003.h5", master = dir + "/gap_master.h5",
                      out = dir + "/out.h5";
    write_safety_scan(d1);
    write_safety_scan(d3);
    write_eiger_master(master, {{"data_000001", "gap_data_000001.h5"}, {"data_000003", "gap_data_000003.h5"}});
    test::ToolResult r = run_tool("sparse " + master + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains(master) && Catch::Contains("data_000002") && Catch::Contains("data_000003"));
    CHECK_FALSE(exists(out));
    CHECK_FALSE(exists(out + ".incomplete"));

    // no data_000001 at all is a gap too
    write_eiger_master(master, {{"data_000002", "gap_data_000001.h5"}});
    r = run_tool("sparse " + master + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("data_000001"));
    CHECK_FALSE(exists(out));
}

TEST_CASE("an Eiger master with a data link of a damaged name is an error, not a scan that stops there",
          "[safety][sparse-tool][eiger]") {
    const std::string dir = fresh_folder("eiger_damaged_name");
    const std::string d1 = dir + "/named_data_000001.h5", d2 = dir + "/named_data_000002.h5", master = dir + "/named_master.h5",
                      out = dir + "/out.h5";
    write_safety_scan(d1);
    write_safety_scan(d2);
    for (const std::string& damaged : {std::string("data_0000x2"), std::string("data_00000\x01\x02"), std::string("data_00000\xe9"),
                                       std::string("data_2")}) {
        INFO("link " << damaged);
        write_eiger_master(master, {{"data_000001", "named_data_000001.h5"}, {damaged, "named_data_000002.h5"}});
        const test::ToolResult r = run_tool("sparse " + master + " -o " + out + " --cut 4 --cpu --quiet");
        INFO(r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains(master) && Catch::Contains("damaged"));
        const bool printable = std::all_of(damaged.begin(), damaged.end(), [](char c) { return c > ' ' && c < 127; });
        CHECK_THAT(r.err, Catch::Contains(printable ? "'" + damaged + "'" : std::string("(unprintable)")));
        CHECK_FALSE(exists(out));
    }
}

TEST_CASE("an Eiger master whose data files hold other than nimages x ntrigger frames is an error naming both counts; equal "
          "counts run",
          "[safety][sparse-tool][eiger]") {
    const std::string dir = fresh_folder("eiger_counts");
    const std::string d1 = dir + "/counted_data_000001.h5", d2 = dir + "/counted_data_000002.h5",
                      master = dir + "/counted_master.h5", out = dir + "/out.h5";
    write_safety_scan(d1);
    write_safety_scan(d2);
    const std::vector<DataLink> links = {{"data_000001", "counted_data_000001.h5"}, {"data_000002", "counted_data_000002.h5"}};

    write_eiger_master(master, links, 100, 1);
    test::ToolResult r = run_tool("sparse " + master + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains(master) && Catch::Contains("140 frames") && Catch::Contains("records 100") &&
                          Catch::Contains("nimages"));
    CHECK_FALSE(exists(out));

    write_eiger_master(master, links, 70, 2);
    r = run_tool("sparse " + master + " -o " + out + " --cut 4 --cpu");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("140 frames"));
    CHECK(attribute_of(out, "/entry/data/data", "nframes") == 140);
}

// ---- 7. one data file --------------------------------------------------------------------------

TEST_CASE("an Eiger master with one data file writes its group at /entry/data/data", "[safety][sparse-tool][eiger]") {
    const std::string dir = fresh_folder("eiger_one");
    const std::string d1 = dir + "/one_data_000001.h5", master = dir + "/one_master.h5", out = dir + "/out.h5";
    write_safety_scan(d1);
    write_eiger_master(master, {{"data_000001", "one_data_000001.h5"}});
    const test::ToolResult r = run_tool("sparse " + master + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const test::H5Reader f(out);
    CHECK(f.exists("/entry/data/data"));
    CHECK_FALSE(f.exists("/entry/data/data_000001"));
    CHECK(f.attribute("/entry/data/data", "nframes") == std::vector<std::int64_t>{70});
    CHECK(f.attribute("/entry/data/data", "complete") == std::vector<std::int64_t>{1});
    CHECK(f.text_attribute("/entry/data/data", "sources") == std::vector<std::string>{"/entry/data/data_000001"});
}

// ---- 8. the cut --------------------------------------------------------------------------------

TEST_CASE("--cut nan, inf or -inf is a usage error naming the cut, and nothing is written", "[safety][sparse-tool]") {
    const std::string dir = fresh_folder("cut");
    const std::string scan = dir + "/scan.h5", out = dir + "/out.h5";
    write_safety_scan(scan);
    for (const std::string cut : {"nan", "inf", "-inf", "NaN", "infinity"}) {
        const test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut " + cut + " --cpu --quiet");
        INFO("--cut " << cut << ": " << r.err);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("--cut " + cut) && Catch::Contains("finite"));
        CHECK_FALSE(exists(out));
    }
    // the library's callers
    tool::SparseJob job = test::cpu_sparse_job(scan, out);
    job.cut = std::numeric_limits<double>::quiet_NaN();
    const std::atomic<bool> never{false};
    CHECK_THROWS_WITH(tool::run_sparse_job(job, never), Catch::Contains("finite"));
    CHECK_FALSE(exists(out));
}

// ---- 9. the mask's share -----------------------------------------------------------------------

TEST_CASE("the summary and --json say how many pixels the mask masks and their share; a mask over half the frame is warned "
          "of, naming the other convention's option",
          "[safety][sparse-tool][mask]") {
    const std::string dir = fresh_folder("masked_share");
    const std::string scan = dir + "/scan.h5", out = dir + "/out.h5", mask_file = dir + "/mask.h5";
    std::vector<std::uint8_t> nexus(kNi * kNj, 0);
    for (std::size_t i = 0; i < nexus.size(); i += 8) nexus[i] = 1;  // 150 of 1200: 12.50 %
    write_safety_scan(scan, 70, SIZE_MAX, nexus);

    test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("; 150 pixels masked (12.50 %)"));
    CHECK_THAT(r.err, !Catch::Contains("warning"));
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --json");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\"masked_pixels\": 150") && Catch::Contains("\"masked_fraction\": 0.125"));

    // 900 of 1200 zero: as --use-mask it masks 900 (75 %), as --mask 300 (25 %)
    std::vector<std::uint8_t> mostly_zero(kNi * kNj, 0);
    for (std::size_t i = 0; i < mostly_zero.size(); i += 4) mostly_zero[i] = 3;
    write_mask_file(mask_file, mostly_zero);
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --use-mask " + mask_file + ":/m");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("; 900 pixels masked (75.00 %)"));
    CHECK_THAT(r.err, Catch::Contains("warning") && Catch::Contains("900") && Catch::Contains("--mask " + mask_file + ":/m"));
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --mask " + mask_file + ":/m");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("; 300 pixels masked (25.00 %)"));
    CHECK_THAT(r.err, !Catch::Contains("warning"));

    // 900 of 1200 nonzero: as --mask it masks 900
    std::vector<std::uint8_t> mostly_set(kNi * kNj, 1);
    for (std::size_t i = 0; i < mostly_set.size(); i += 4) mostly_set[i] = 0;
    write_mask_file(mask_file, mostly_set);
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --mask " + mask_file + ":/m --json");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\"masked_pixels\": 900") && Catch::Contains("\"masked_fraction\": 0.75"));
    CHECK_THAT(r.err, Catch::Contains("warning") && Catch::Contains("--use-mask " + mask_file + ":/m"));
}

// ---- 10. messages ------------------------------------------------------------------------------

TEST_CASE("an output in a folder that does not exist is refused naming the folder", "[safety][sparse-tool][messages]") {
    const std::string dir = fresh_folder("no_folder");
    const std::string scan = dir + "/scan.h5", missing = dir + "/nodir";
    write_safety_scan(scan);
    const test::ToolResult r = run_tool("sparse " + scan + " -o " + missing + "/out.h5 --cut 4 --cpu --quiet");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("the folder " + missing + " does not exist") && Catch::Contains("create it"));
    CHECK_FALSE(exists(missing));
}

TEST_CASE("an EDF file given as --mask FILE:PATH is named as EDF, saying to give the file alone, as which it is read",
          "[safety][sparse-tool][messages]") {
    const std::string dir = fresh_folder("edf");
    const std::string scan = dir + "/scan.h5", out = dir + "/out.h5", edf = dir + "/mask.edf";
    write_safety_scan(scan);
    const std::string header = "{\nHeaderID = EH:000001:000000:000000 ;\nImage = 1 ;\nByteOrder = LowByteFirst ;\n"
                               "DataType = UnsignedByte ;\nDim_1 = " + std::to_string(kNj) + " ;\nDim_2 = " + std::to_string(kNi) +
                               " ;\nSize = " + std::to_string(kNi * kNj) + " ;\n}\n";
    write_text(edf, header + std::string(kNi * kNj, '\0'));
    const std::string edf_bytes = slurp(edf);
    for (const char* option : {"--mask", "--use-mask"}) {
        const test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu --quiet " + option + " " + edf + ":/data");
        INFO(option << ": " << r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains(edf) && Catch::Contains("EDF") && Catch::Contains("--mask FILE.edf"));
        CHECK_FALSE(exists(out));
    }
    // the file alone: an all-zero mask uses every pixel (--mask: nonzero = masked)
    const test::ToolResult alone = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu --json --mask " + edf);
    INFO(alone.err);
    CHECK(alone.code == 0);
    CHECK_THAT(alone.out, Catch::Contains("\"masked_pixels\": 0,"));
    CHECK(exists(out));
    CHECK(slurp(edf) == edf_bytes);
    // a file that is neither says only that it is not HDF5
    const std::string text = dir + "/mask.txt";
    write_text(text, "not a mask\n");
    const test::ToolResult r = run_tool("sparse " + scan + " -o " + dir + "/out2.h5 --cut 4 --cpu --quiet --mask " + text + ":/data");
    CHECK(r.code == 1);
    // The folder's random name may hold "EDF" (CI: bslz4-sparse-tool-EDFm9W): the message less it.
    std::string said = r.err;
    for (std::size_t at; (at = said.find(dir)) != std::string::npos;) said.erase(at, dir.size());
    INFO(r.err);
    CHECK_THAT(said, Catch::Contains("not an HDF5 file") && !Catch::Contains("EDF"));
}

TEST_CASE("an input locked by its writer is an error naming HDF5_USE_FILE_LOCKING", "[safety][sparse-tool][messages]") {
    const std::string dir = fresh_folder("locked");
    const std::string scan = dir + "/scan.h5", out = dir + "/out.h5";
    write_safety_scan(scan);
    const std::string before = slurp(scan);
    const test::ScopedEnv locking("HDF5_USE_FILE_LOCKING", nullptr);  // HDF5's default: it takes locks
    {
        const LockHolder writer(scan);
        REQUIRE(writer.locked());
        const test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu --quiet");
        INFO(r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains(scan) && Catch::Contains("HDF5_USE_FILE_LOCKING=FALSE") && Catch::Contains("wait"));
        CHECK_FALSE(exists(out));
    }
    CHECK(slurp(scan) == before);
    // released, it runs
    const test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    CHECK(r.code == 0);
}
