// What `bslz4 sparse` does to keep a user's files safe (issue 25): -o never names a file the job
// reads (an Eiger master's data files, a VDS's sources, by any path or link); an existing output
// is replaced only with --overwrite; a failed or stopped run leaves the output as it was and keeps
// what it wrote in OUTPUT.incomplete; temporaries of processes that are gone are removed, those of
// running ones and of other hosts kept; a damaged pixel_mask, an Eiger master's missing, damaged
// or miscounted data links, and a cut that is no number are errors, never a run that quietly
// drops pixels or frames; the summary says how much the mask masks; and the messages a user meets
// say what to do. Each refusal is checked to leave the user's files intact byte for byte.
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
#include "sparse_job.hpp"
#include "sparse_job_fixture.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"

using namespace bslz4;
namespace h5 = bslz4::tool::h5;
using test::run_tool;
using test::slurp;

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

constexpr std::size_t kNi = 30, kNj = 40;

// An empty folder of this run's own, for the files of one test.
std::string fresh_folder(const std::string& name) {
    const std::string dir = test::temp_path("safety_" + name);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    std::filesystem::create_directories(dir);
    return dir;
}

// A u16 scan of `frames` frames at /entry/data/data, frame `corrupt_frame` cut short (a bad
// frame), with a NeXus pixel_mask when `nexus_mask` is not empty (nonzero = do not use).
void write_safety_scan(const std::string& path, std::size_t frames = 70, std::size_t corrupt_frame = SIZE_MAX,
                       const std::vector<std::uint8_t>& nexus_mask = {}) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f) {
        chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, PixelType::u16, f), 2));
        if (f == corrupt_frame) chunks.back().resize(chunks.back().size() - 7);
    }
    tool::write_scan(path, kNi, kNj, PixelType::u16, frames, nexus_mask, chunks);
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    REQUIRE(f.good());
}

bool exists(const std::string& path) {
    struct stat st {};
    return lstat(path.c_str(), &st) == 0;
}


// An Eiger master: /entry/data/NAME an external link to /entry/data/data in FILE (by the name
// given: relative names are found beside the master, as Eiger writes them) for each (NAME, FILE);
// and /entry/instrument/detector/detectorSpecific/nimages and ntrigger (int64 scalars) where >= 0.
struct DataLink {
    std::string name, file;
};
void write_eiger_master(const std::string& master, const std::vector<DataLink>& links, std::int64_t nimages = -1,
                        std::int64_t ntrigger = -1) {
    const h5::Handle file = h5::create_file(master);
    const h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "lcpl");
    REQUIRE(H5Pset_create_intermediate_group(lcpl.get(), 1) >= 0);
    const h5::Handle data(H5Gcreate2(file.get(), "/entry/data", lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "data");
    for (const DataLink& l : links)
        REQUIRE(H5Lcreate_external(l.file.c_str(), "/entry/data/data", data.get(), l.name.c_str(), H5P_DEFAULT, H5P_DEFAULT) >= 0);
    for (const auto& [name, value] : {std::pair<const char*, std::int64_t>{"nimages", nimages}, {"ntrigger", ntrigger}}) {
        if (value < 0) continue;
        const std::string path = std::string("/entry/instrument/detector/detectorSpecific/") + name;
        const h5::Handle space(H5Screate(H5S_SCALAR), H5Sclose, "scalar");
        const h5::Handle d(H5Dcreate2(file.get(), path.c_str(), H5T_STD_I64LE, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                           H5Dclose, path);
        REQUIRE(H5Dwrite(d.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value) >= 0);
    }
}

// A Bliss-like master DIR/bliss.h5: a VDS at /1.1/instrument/eiger/data (Bliss's soft link to it
// at /1.1/measurement/eiger) over the frames of two LImA-like files, DIR/lima/eiger_0000.h5 and
// DIR/lima/eiger_0001.h5 (named relative to the master, as Bliss does), 40 frames each.
const std::string kLimaPath = "/entry_0000/ESRF-ID11/eiger/data", kVdsPath = "/1.1/instrument/eiger/data",
                  kMeasurement = "/1.1/measurement/eiger";
struct BlissScan {
    std::string master;
    std::vector<std::string> sources;
};
BlissScan write_bliss_scan(const std::string& dir) {
    constexpr hsize_t kPart = 40;
    BlissScan s{dir + "/bliss.h5", {}};
    std::filesystem::create_directories(dir + "/lima");
    const h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "lcpl");
    REQUIRE(H5Pset_create_intermediate_group(lcpl.get(), 1) >= 0);
    const h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dcpl");
    for (int k = 0; k < 2; ++k) {
        const std::string relative = "lima/eiger_000" + std::to_string(k) + ".h5", file = dir + "/" + relative;
        const std::string scratch = file + ".scratch.h5";
        write_safety_scan(scratch, kPart);
        {
            const h5::Handle from = h5::open_file(scratch);
            const h5::Handle to = h5::create_file(file);
            REQUIRE(H5Ocopy(from.get(), "/entry/data/data", to.get(), kLimaPath.c_str(), H5P_DEFAULT, lcpl.get()) >= 0);
        }
        std::filesystem::remove(scratch);
        s.sources.push_back(file);
        const hsize_t vds_dims[3] = {2 * kPart, kNi, kNj}, src_dims[3] = {kPart, kNi, kNj};
        const hsize_t start[3] = {k * kPart, 0, 0}, count[3] = {kPart, kNi, kNj};
        const h5::Handle vds_space(H5Screate_simple(3, vds_dims, nullptr), H5Sclose, "vds space");
        REQUIRE(H5Sselect_hyperslab(vds_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0);
        const h5::Handle src_space(H5Screate_simple(3, src_dims, nullptr), H5Sclose, "source space");
        REQUIRE(H5Pset_virtual(dcpl.get(), vds_space.get(), relative.c_str(), kLimaPath.c_str(), src_space.get()) >= 0);
    }
    const h5::Handle f = h5::create_file(s.master);
    const hsize_t dims[3] = {2 * kPart, kNi, kNj};
    const h5::Handle space(H5Screate_simple(3, dims, nullptr), H5Sclose, "space");
    const h5::Handle d(H5Dcreate2(f.get(), kVdsPath.c_str(), H5T_STD_U16LE, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
                       H5Dclose, "vds");
    REQUIRE(H5Lcreate_soft(kVdsPath.c_str(), f.get(), kMeasurement.c_str(), lcpl.get(), H5P_DEFAULT) >= 0);
    return s;
}

// A 2-D u8 dataset /m of kNi x kNj, for --mask and --use-mask.
void write_mask_file(const std::string& path, const std::vector<std::uint8_t>& m) {
    const h5::Handle f = h5::create_file(path);
    const hsize_t dims[2] = {kNi, kNj};
    const h5::Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose, "mask space");
    const h5::Handle d(H5Dcreate2(f.get(), "/m", H5T_STD_U8LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, "m");
    REQUIRE(H5Dwrite(d.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.data()) >= 0);
}

std::string this_host() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0 || !name[0]) return "localhost";
    return name;
}

// The id of a process that was started here and is gone (and reaped).
pid_t pid_of_a_process_gone() {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) _exit(0);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    return child;
}

// A child process holding an exclusive flock() on `path` (as HDF5 1.10's writer takes it) until
// released: stopped by its id, the one it was started with.
class LockHolder {
public:
    explicit LockHolder(const std::string& path) {
        int ready[2];
        REQUIRE(pipe(ready) == 0);
        pid_ = fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            close(ready[0]);
            const int fd = open(path.c_str(), O_RDWR);
            const char ok = fd >= 0 && flock(fd, LOCK_EX) == 0 ? 'y' : 'n';
            if (write(ready[1], &ok, 1) != 1) _exit(1);
            for (int i = 0; i < 600; ++i) sleep(1);  // until killed (ten minutes at most)
            _exit(0);
        }
        close(ready[1]);
        char ok = 0;
        const ssize_t n = read(ready[0], &ok, 1);
        close(ready[0]);
        locked_ = n == 1 && ok == 'y';
    }
    ~LockHolder() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            int status = 0;
            waitpid(pid_, &status, 0);
        }
    }
    LockHolder(const LockHolder&) = delete;
    LockHolder& operator=(const LockHolder&) = delete;
    bool locked() const { return locked_; }

private:
    pid_t pid_ = -1;
    bool locked_ = false;
};

// The file address of the object header of `object` in `file`.
haddr_t object_header_address(const std::string& file, const std::string& object) {
    const h5::Handle f = h5::open_file(file);
#if H5_VERSION_GE(1, 12, 0)
    H5O_info1_t info{};
#else
    H5O_info_t info{};
#endif
    REQUIRE(H5Oget_info_by_name1(f.get(), object.c_str(), &info, H5P_DEFAULT) >= 0);
    return info.addr;
}

void overwrite_bytes(const std::string& file, std::uint64_t at, const std::vector<std::uint8_t>& bytes) {
    const int fd = open(file.c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    const ssize_t n = pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(at));
    close(fd);
    REQUIRE(n == static_cast<ssize_t>(bytes.size()));
}

std::int64_t attribute_of(const std::string& file, const std::string& group, const std::string& name) {
    const test::H5Reader f(file);
    return f.attribute(group, name).at(0);
}

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
    CHECK_THAT(r.err, Catch::Contains("not an HDF5 file") && !Catch::Contains("EDF"));
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
