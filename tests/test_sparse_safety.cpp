// What `bslz4 sparse` does to keep a user's files safe (issue 25): -o never names a file the job
// reads (an Eiger master's data files, a VDS's sources, by any path or link); an existing output
// is replaced only with --overwrite; a failed or stopped run leaves the output as it was and keeps
// what it wrote in OUTPUT.incomplete; temporaries of processes that are gone are removed, those of
// running ones and of other hosts kept. Each refusal is checked to leave the user's files intact
// byte for byte. Its refusals of damaged input are test_sparse_refusals.cpp's.
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

// This binary's runs (Meson starts it with and without the filter plugin at once) each write
// under a $TMPDIR of their own, made here before any test and removed at exit, so that neither
// sees the other's files (the stale temporaries below least of all).
struct OwnTmpdir {
    std::string dir;
    OwnTmpdir() {
        std::string pattern = test::env_or("TMPDIR", "/tmp") + "/bslz4-sparse-safety-XXXXXX";
        if (mkdtemp(pattern.data()) && setenv("TMPDIR", pattern.c_str(), 1) == 0) dir = pattern;
    }
    ~OwnTmpdir() {
        std::error_code ignored;
        if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
    }
};
const OwnTmpdir own_tmpdir;

}  // namespace


// ---- 1. -o naming a file the job reads -------------------------------------------------------

namespace {

// A master of two data files (data_000001 and data_000002), and links to the first: a symbolic
// one and a hard one, beside them.
struct EigerReads {
    std::string master, d1, d2, sym, hard;
    std::vector<std::pair<std::string, std::string>> outputs;  // (-o, the data file it is)
};
EigerReads eiger_reads(const std::string& name) {
    const std::string dir = fresh_folder(name);
    EigerReads e{dir + "/scan_master.h5", dir + "/scan_data_000001.h5", dir + "/scan_data_000002.h5", dir + "/symlink_to_data.h5",
                 dir + "/hardlink_to_data.h5", {}};
    write_safety_scan(e.d1);
    write_safety_scan(e.d2);
    write_eiger_master(e.master, {{"data_000001", "scan_data_000001.h5"}, {"data_000002", "scan_data_000002.h5"}});
    REQUIRE(symlink(e.d1.c_str(), e.sym.c_str()) == 0);
    REQUIRE(link(e.d1.c_str(), e.hard.c_str()) == 0);
    e.outputs = {{e.d1, e.d1}, {e.sym, e.d1}, {e.hard, e.d1}, {e.d2, e.d2}};
    return e;
}

// A Bliss master's two sources, the second also through a symbolic link.
struct VdsReads {
    BlissScan scan;
    std::vector<std::pair<std::string, std::string>> outputs;  // (-o, the source file it is)
};
VdsReads vds_reads(const std::string& name) {
    const std::string dir = fresh_folder(name);
    VdsReads v{write_bliss_scan(dir), {}};
    const std::string sym = dir + "/symlink_to_source.h5";
    REQUIRE(symlink(v.scan.sources[1].c_str(), sym.c_str()) == 0);
    v.outputs = {{v.scan.sources[0], v.scan.sources[0]}, {sym, v.scan.sources[1]}};
    return v;
}

// `run` (the command up to -o) with -o each output: refused as the file the job reads, exit 1,
// the message naming -o, what the file is to the job (`role`, "data file of ...") and its path.
void check_refused_as_read(const std::string& run, const std::vector<std::pair<std::string, std::string>>& outputs,
                           const std::function<std::string(std::size_t)>& role) {
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        const auto& [o, read] = outputs[k];
        const test::ToolResult r = run_tool(run + " -o " + o + " --cut 4 --cpu --quiet");
        INFO(run << " -o " << o << ": exit " << r.code << ": " << r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains("-o " + o + " is the " + role(k) + " " + read + ", which this job reads") &&
                              Catch::Contains(o + " is left unchanged"));
        CHECK(test::temporaries_of(o).empty());
        CHECK_FALSE(exists(o + ".incomplete"));
    }
}

std::string eiger_role(std::size_t k) { return k == 3 ? "data file of /entry/data/data_000002" : "data file of /entry/data/data_000001"; }
std::string vds_role(std::size_t) { return "source file of the virtual dataset " + kMeasurement; }

}  // namespace

TEST_CASE("an output naming a data file of the Eiger master (by its path, a symbolic link or a hard link) is refused before "
          "anything is written, naming both files",
          "[safety][sparse-tool]") {
    const EigerReads e = eiger_reads("eiger_reads");
    const std::string bytes1 = slurp(e.d1), bytes2 = slurp(e.d2), master_bytes = slurp(e.master);
    REQUIRE(!bytes1.empty());
    check_refused_as_read("sparse --overwrite " + e.master, e.outputs, eiger_role);
    // without --overwrite it is refused too (as an existing output: see the case below)
    for (const auto& [o, data_file] : e.outputs) {
        const test::ToolResult r = run_tool("sparse " + e.master + " -o " + o + " --cut 4 --cpu --quiet");
        INFO("-o " << o << ": " << r.err);
        CHECK(r.code != 0);
        CHECK_THAT(r.err, Catch::Contains("left unchanged"));
        CHECK(test::temporaries_of(o).empty());
    }
    CHECK(slurp(e.d1) == bytes1);
    CHECK(slurp(e.d2) == bytes2);
    CHECK(slurp(e.master) == master_bytes);
    struct stat st {};
    REQUIRE(lstat(e.sym.c_str(), &st) == 0);
    CHECK(S_ISLNK(st.st_mode));  // the link is still the link
}

// Does not hold (exit 2, "the output file exists; give --overwrite to replace it"): the existing
// output is refused before the scan is opened, so the user is told to add --overwrite, and only
// then learns that -o is a data file. : remove the tag once it holds.
TEST_CASE("without --overwrite, an output naming a data file of the Eiger master is refused as the data file it is "
          "(exit 1, naming both files), not as an existing output",
          "[safety][sparse-tool]") {
    const EigerReads e = eiger_reads("eiger_reads_no_overwrite");
    const std::string bytes1 = slurp(e.d1), bytes2 = slurp(e.d2);
    check_refused_as_read("sparse " + e.master, e.outputs, eiger_role);
    CHECK(slurp(e.d1) == bytes1);
    CHECK(slurp(e.d2) == bytes2);
}

TEST_CASE("an output naming a source file of a virtual dataset (directly or through a symbolic link) is refused before "
          "anything is written, naming both files",
          "[safety][sparse-tool][vds]") {
    const VdsReads v = vds_reads("vds_reads");
    const BlissScan& s = v.scan;
    const std::string bytes0 = slurp(s.sources[0]), bytes1 = slurp(s.sources[1]), master_bytes = slurp(s.master);
    {  // the scan is readable as it is: the refusal below is not some other failure
        const std::string out = std::filesystem::path(s.master).parent_path().string() + "/out.h5";
        const test::ToolResult ok = run_tool("sparse " + s.master + " --dataset " + kMeasurement + " -o " + out + " --cut 4 --cpu");
        INFO(ok.err);
        REQUIRE(ok.code == 0);
        CHECK_THAT(ok.out, Catch::Contains("80 frames"));
    }
    check_refused_as_read("sparse --overwrite " + s.master + " --dataset " + kMeasurement, v.outputs, vds_role);
    for (const auto& [o, source] : v.outputs) {
        const test::ToolResult r = run_tool("sparse " + s.master + " --dataset " + kMeasurement + " -o " + o + " --cut 4 --cpu --quiet");
        INFO("-o " << o << ": " << r.err);
        CHECK(r.code != 0);
        CHECK_THAT(r.err, Catch::Contains("left unchanged"));
    }
    CHECK(slurp(s.sources[0]) == bytes0);
    CHECK(slurp(s.sources[1]) == bytes1);
    CHECK(slurp(s.master) == master_bytes);
}

// Does not hold, as for the Eiger master's data files above. : remove once it holds.
TEST_CASE("without --overwrite, an output naming a source file of a virtual dataset is refused as the source file it is "
          "(exit 1, naming both files), not as an existing output",
          "[safety][sparse-tool][vds]") {
    const VdsReads v = vds_reads("vds_reads_no_overwrite");
    const std::string bytes0 = slurp(v.scan.sources[0]), bytes1 = slurp(v.scan.sources[1]);
    check_refused_as_read("sparse " + v.scan.master + " --dataset " + kMeasurement, v.outputs, vds_role);
    CHECK(slurp(v.scan.sources[0]) == bytes0);
    CHECK(slurp(v.scan.sources[1]) == bytes1);
}

// ---- 2. existing outputs -----------------------------------------------------------------------

TEST_CASE("an existing output is refused without --overwrite (exit 2, naming the option, the file unchanged) and replaced "
          "with it",
          "[safety][sparse-tool]") {
    const std::string dir = fresh_folder("existing");
    const std::string scan = dir + "/scan.h5", out = dir + "/out.h5";
    write_safety_scan(scan);
    write_text(out, "an older file, not to be lost");
    const std::string before = slurp(out);

    const test::ToolResult refused = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(refused.err);
    CHECK(refused.code == 2);
    CHECK_THAT(refused.err, Catch::Contains(out) && Catch::Contains("--overwrite") && Catch::Contains("left unchanged"));
    CHECK(slurp(out) == before);
    CHECK(test::temporaries_of(out).empty());
    CHECK_FALSE(exists(out + ".incomplete"));

    const test::ToolResult replaced = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(replaced.err);
    REQUIRE(replaced.code == 0);
    CHECK(attribute_of(out, "/entry/data/data", "nframes") == 70);
    CHECK(attribute_of(out, "/entry/data/data", "complete") == 1);
    CHECK(test::temporaries_of(out).empty());

    // an output that HDF5 wrote is no different: still refused without the option
    const std::string written = slurp(out);
    const test::ToolResult again = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    CHECK(again.code == 2);
    CHECK_THAT(again.err, Catch::Contains("--overwrite"));
    CHECK(slurp(out) == written);
}

TEST_CASE("in a campaign an existing output of the campaign is refused without --overwrite before any scan runs",
          "[safety][sparse-tool][sparse-campaign]") {
    const std::string dir = fresh_folder("campaign_existing");
    const std::string a = dir + "/a.h5", b = dir + "/b.h5", outs = dir + "/outs";
    write_safety_scan(a);
    write_safety_scan(b);
    std::filesystem::create_directories(outs);
    const std::string out_a = outs + "/a_sparse.h5", out_b = outs + "/b_sparse.h5";
    write_text(out_b, "b's output from an earlier campaign");
    const std::string before = slurp(out_b);

    const test::ToolResult refused = run_tool("sparse " + a + " " + b + " -o " + outs + "/ --cut 4 --cpu --quiet");
    INFO(refused.err);
    CHECK(refused.code == 2);
    CHECK_THAT(refused.err, Catch::Contains(out_b) && Catch::Contains("--overwrite"));
    CHECK(slurp(out_b) == before);
    CHECK_FALSE(exists(out_a));  // nothing ran: not even the scan whose output was free
    CHECK(test::temporaries_of(out_b).empty());

    const test::ToolResult replaced = run_tool("sparse --overwrite " + a + " " + b + " -o " + outs + "/ --cut 4 --cpu --quiet");
    INFO(replaced.err);
    REQUIRE(replaced.code == 0);
    CHECK(attribute_of(out_a, "/entry/data/data", "nframes") == 70);
    CHECK(attribute_of(out_b, "/entry/data/data", "nframes") == 70);
}

// ---- 3. failed and stopped runs ----------------------------------------------------------------

TEST_CASE("a failed run leaves an existing output unchanged and keeps the frames written before the fault in "
          "OUTPUT.incomplete (readable, complete = 0), naming it",
          "[safety][sparse-tool]") {
    const std::string dir = fresh_folder("failed_run");
    const std::string good = dir + "/good.h5", bad = dir + "/bad.h5", out = dir + "/out.h5";
    write_safety_scan(good, 140);
    write_safety_scan(bad, 140, 70);  // the first batch (64 frames) is written before the fault
    test::ToolResult r = run_tool("sparse " + good + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const std::string before = slurp(out);

    r = run_tool("sparse --overwrite " + bad + " -o " + out + " --cut 4 --cpu --quiet");  // --on-error stop, the default
    INFO(r.err);
    CHECK(r.code == 1);
    const std::string incomplete = out + ".incomplete";
    CHECK_THAT(r.err, Catch::Contains("frame 70") && Catch::Contains(incomplete) && Catch::Contains(out + " is left unchanged"));
    CHECK(slurp(out) == before);
    CHECK(attribute_of(out, "/entry/data/data", "nframes") == 140);
    CHECK(attribute_of(out, "/entry/data/data", "complete") == 1);
    REQUIRE(exists(incomplete));
    {
        const test::H5Reader f(incomplete);
        CHECK(f.attribute("/entry/data/data", "complete") == std::vector<std::int64_t>{0});
        CHECK(f.attribute("/entry/data/data", "nframes") == std::vector<std::int64_t>{64});
        CHECK(f.dataset<std::uint32_t>("/entry/data/data/nnz", H5T_NATIVE_UINT32).size() == 64);
    }
    CHECK(test::temporaries_of(out).empty());
}

TEST_CASE("a run stopped through the library leaves an existing complete output unchanged and keeps its first batch in "
          "OUTPUT.incomplete",
          "[safety][sparse-tool]") {
    const std::string dir = fresh_folder("stopped_run");
    const std::string scan = dir + "/scan.h5", out = dir + "/out.h5";
    write_safety_scan(scan, 140);
    const test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const std::string before = slurp(out);

    test::check_stopped_after_first_batch(test::cpu_sparse_job(scan, out));
    CHECK(slurp(out) == before);
    CHECK(attribute_of(out, "/entry/data/data", "complete") == 1);
    CHECK(attribute_of(out, "/entry/data/data", "nframes") == 140);
    CHECK(test::temporaries_of(out).empty());
}

// ---- 4. stale temporaries ----------------------------------------------------------------------

TEST_CASE("a temporary of this host's process that is gone is removed by the next run to the output, which says so; those of "
          "running processes and of other hosts are kept",
          "[safety][sparse-tool]") {
    const std::string dir = fresh_folder("stale");
    const std::string scan = dir + "/scan.h5", out = dir + "/out.h5";
    write_safety_scan(scan);
    const std::string host = this_host();
    const pid_t gone = pid_of_a_process_gone();
    const std::string stale = out + ".part-" + host + "-" + std::to_string(gone);
    const std::string stale_numbered = out + ".part-" + host + "-" + std::to_string(gone) + "-1";
    const std::string mine = out + ".part-" + host + "-" + std::to_string(getpid());
    const std::string parents = out + ".part-" + host + "-" + std::to_string(getppid());
    const std::string other_host = out + ".part-not-" + host + ".example-" + std::to_string(gone);
    const std::string other_file = dir + "/other.h5.part-" + host + "-" + std::to_string(gone);  // another output's
    for (const std::string& f : {stale, stale_numbered, mine, parents, other_host, other_file}) write_text(f, "partial");

    const test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.err, Catch::Contains("removed " + stale) && Catch::Contains("process " + std::to_string(gone)));
    CHECK_THAT(r.err, Catch::Contains("removed " + stale_numbered));
    CHECK_FALSE(exists(stale));
    CHECK_FALSE(exists(stale_numbered));
    for (const std::string& kept : {mine, parents, other_host, other_file}) {
        INFO(kept);
        CHECK(exists(kept));
        CHECK(slurp(kept) == "partial");
        CHECK_THAT(r.err, !Catch::Contains(kept));
    }
    CHECK(attribute_of(out, "/entry/data/data", "complete") == 1);
}

// ---- 5. a damaged pixel_mask -------------------------------------------------------------------
