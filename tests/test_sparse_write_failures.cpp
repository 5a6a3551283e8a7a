// `bslz4 sparse` when its output cannot be written: a file size limit (RLIMIT_FSIZE, EFBIG:
// any user can set one, so this runs everywhere) and a full file system (a small tmpfs, where
// the test may mount one: as root with CAP_SYS_ADMIN, as in CI; else that case says it did not
// run). Either way: one line naming the output and the system's reason, exit 1, no abort and no
// crash at exit, an existing output as it was, no temporary left behind; a campaign reports the
// scan FAILED and goes on with the next.
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "hdf5/matrix_file.hpp"
#include "hdf5/scan_writer.hpp"
#include "hdf5/sparse_output.hpp"
#include "matrix_support.hpp"
#include "sparse_job_fixture.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"
#include "synthetic/synthetic_eiger.hpp"

using namespace bslz4;
using test::run_tool;
using test::temp_path;

namespace {

constexpr std::size_t kNi = 120, kNj = 150, kFrames = 140;

void write_failure_scan(const std::string& path) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < kFrames; ++f) chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, PixelType::u16, f), 2));
    tool::write_scan(path, kNi, kNj, PixelType::u16, kFrames, {}, chunks);
}

// bslz4 with its arguments, the files it writes limited to `kib` KiB; SIGXFSZ ignored (inherited
// through exec), so a write past the limit fails with EFBIG instead of killing the process.
test::ToolResult run_limited(const std::string& args, int kib) {
    return run_tool("--help >/dev/null; trap '' XFSZ; ulimit -f " + std::to_string(kib) + "; " + test::env_or("BSLZ4_TOOL", "bslz4") +
                    " " + args);
}

std::vector<std::string> names_in(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
    return names;
}

// One line on stderr (the progress line aside) naming the output and the reason; exit 1.
void check_write_failure(const test::ToolResult& r, const std::string& out, const char* reason) {
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("bslz4: cannot write " + out) && Catch::Contains(reason));
    std::size_t lines = 0;
    for (std::size_t at = 0; (at = r.err.find("bslz4: ", at)) != std::string::npos; ++at) ++lines;
    CHECK(lines == 1);
}

// A tmpfs of `kib` KiB at `dir`, unmounted when this goes; mounted() false where it cannot be.
class SmallFileSystem {
public:
    SmallFileSystem(const std::string& dir, int kib) : dir_(dir) {
        std::filesystem::create_directories(dir);
        mounted_ = mount("tmpfs", dir.c_str(), "tmpfs", 0, ("size=" + std::to_string(kib) + "k").c_str()) == 0;
    }
    ~SmallFileSystem() {
        if (mounted_) umount(dir_.c_str());
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }
    SmallFileSystem(const SmallFileSystem&) = delete;
    SmallFileSystem& operator=(const SmallFileSystem&) = delete;
    bool mounted() const { return mounted_; }

private:
    std::string dir_;
    bool mounted_ = false;
};

}  // namespace

TEST_CASE("a write that fails part way (a file size limit) is one line naming the output and the reason, exit 1, no crash; "
          "an existing output stays as it was and no temporary is left",
          "[sparse-write-failures]") {
    const std::string scan = temp_path("limit_scan.h5"), dir = temp_path("limit_out");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    write_failure_scan(scan);
    const std::string out = dir + "/out.h5";
    // a new output: not written
    check_write_failure(run_limited("sparse " + scan + " -o " + out + " --cut 0 --no-mask --cpu --quiet", 64), out, "File too large");
    CHECK(names_in(dir).empty());
    // an existing output, replaced only if the run finishes: it does not, so it is left as it was
    REQUIRE(run_tool("sparse " + scan + " -o " + out + " --cut 0 --no-mask --cpu --quiet --frames 0:2").code == 0);
    const std::string before = test::slurp(out);
    const test::ToolResult r = run_limited("sparse " + scan + " -o " + out + " --cut 0 --no-mask --cpu --quiet --overwrite", 64);
    check_write_failure(r, out, "File too large");
    CHECK_THAT(r.err, Catch::Contains(out + " is left unchanged"));
    CHECK(test::slurp(out) == before);
    CHECK(names_in(dir) == std::vector<std::string>{"out.h5"});
    std::filesystem::remove_all(dir);
}

TEST_CASE("in a campaign, a scan whose output cannot be written is reported FAILED and the next scans are still tried",
          "[sparse-write-failures]") {
    const std::string a = temp_path("limit_a.h5"), b = temp_path("limit_b.h5"), dir = temp_path("limit_campaign");
    std::filesystem::remove_all(dir);
    write_failure_scan(a);
    write_failure_scan(b);
    const test::ToolResult r = run_limited("sparse " + a + " " + b + " -o " + dir + "/ --cut 0 --no-mask --cpu", 64);
    INFO(r.out << r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains(a + ": FAILED: cannot write " + dir + "/") && Catch::Contains(b + ": FAILED: cannot write") &&
                          Catch::Contains("0 done, 2 failed, 0 not done"));
    CHECK(names_in(dir).empty());
    std::filesystem::remove_all(dir);
}

TEST_CASE("a full file system (a small tmpfs) is one line naming the output and 'No space left on device', exit 1, no crash; "
          "the existing output stays as it was",
          "[sparse-write-failures]") {
    const std::string scan = temp_path("full_scan.h5");
    write_failure_scan(scan);
    const SmallFileSystem fs(temp_path("full_fs"), 96);
    if (!fs.mounted()) {
        WARN("not run: this process may not mount a tmpfs (the file size limit case covers write failures)");
        return;
    }
    const std::string out = temp_path("full_fs") + "/out.h5";
    REQUIRE(run_tool("sparse " + scan + " -o " + out + " --cut 0 --no-mask --cpu --quiet --frames 0:1").code == 0);
    const std::string before = test::slurp(out);
    const test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut 0 --no-mask --cpu --quiet --overwrite");
    check_write_failure(r, out, "No space left on device");
    CHECK(test::slurp(out) == before);
    CHECK(names_in(temp_path("full_fs")) == std::vector<std::string>{"out.h5"});
}

TEST_CASE("a matrix job whose powders do not fit (a file size limit, a full tmpfs) is one line naming the output and the "
          "reason when their space is reserved, exit 1, never a SIGBUS from writing them through a mapping",
          "[sparse-write-failures]") {
    const std::string scan = temp_path("powder_limit_scan.h5"), mat = temp_path("powder_limit_matrix.h5");
    write_failure_scan(scan);
    // 140 frames of 2,000 f64 bins: 2.2 MB of powders
    tool::write_matrix(mat, "csr", normalise_matrix(test::random_csr(2000, kNi * kNj, 1.0, 3).input()));
    const std::string job = " --cut 0 --no-mask --cpu --quiet --matrix " + mat + ":csr";
    const std::string dir = temp_path("powder_limit_out");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    check_write_failure(run_limited("sparse " + scan + " -o " + dir + "/out.h5" + job, 1024), dir + "/out.h5", "File too large");
    CHECK(names_in(dir).empty());
    std::filesystem::remove_all(dir);
    const SmallFileSystem fs(temp_path("powder_full_fs"), 1024);
    if (!fs.mounted()) {
        WARN("not run: this process may not mount a tmpfs (the file size limit case covers the reservation failing)");
        return;
    }
    const std::string out = temp_path("powder_full_fs") + "/out.h5";
    check_write_failure(run_tool("sparse " + scan + " -o " + out + job), out, "No space left on device");
    CHECK(names_in(temp_path("powder_full_fs")).empty());
}


TEST_CASE("powders to be written by pwrite (where a mapping is not trusted) still have their space reserved when the "
          "group starts: a disk too small is an error then, naming the output",
          "[sparse-write-failures]") {
    const SmallFileSystem fs(temp_path("powder_pwrite_fs"), 256);
    if (!fs.mounted()) {
        WARN("not run: this process may not mount a tmpfs");
        return;
    }
    tool::OutputInfo info;
    info.ni = kNi;
    info.nj = kNj;
    info.bins = 4000;  // 32 kB a frame: 64 frames are 2 MB, past the 256 kB file system
    info.map_powders = false;
    const std::string out = temp_path("powder_pwrite_fs") + "/out.h5";
    tool::SparseOutput output(out, info);
    CHECK_THROWS_WITH(output.begin_group("/entry/data/data", 64),
                      Catch::Contains("cannot write " + out + ":/entry/data/data/powder: cannot reserve") &&
                          Catch::Contains("No space left on device"));
}
