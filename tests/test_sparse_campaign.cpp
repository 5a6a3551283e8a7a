// `bslz4 sparse` over many scans (-o DIR, --list, --shard K/N), as a job array runs it: the
// shards together write every output once, each equal to a single-file run; a failed scan is
// reported and the others go on; the list's syntax, colliding outputs and malformed shards.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "bslz4/bslz4.hpp"
#include "cli/command_line.hpp"
#include "h5_reader.hpp"
#include "hdf5/scan_writer.hpp"
#include "matrix_support.hpp"
#include "sparse/sparse_campaign.hpp"
#include "sparse/sparse_job.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"
#include "synthetic/synthetic_eiger.hpp"

using namespace bslz4;
using test::run_tool;
using test::temp_path;

namespace {

constexpr std::size_t kCampaignNi = 20, kCampaignNj = 30;

// Scan number `n` (its frames differ from every other scan's); frame `corrupt_frame` truncated.
void write_campaign_scan(const std::string& path, std::uint64_t n, std::size_t frames,
                         std::size_t corrupt_frame = SIZE_MAX) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::size_t f = 0; f < frames; ++f) {
        chunks.push_back(
            encode_chunk(synthetic_eiger_frame(kCampaignNi, kCampaignNj, PixelType::u16, n * 1000 + f), 2));
        if (f == corrupt_frame) chunks.back().resize(chunks.back().size() - 7);
    }
    tool::write_scan(path, kCampaignNi, kCampaignNj, PixelType::u16, frames, {}, chunks);
}

std::string fresh_folder(const std::string& name) {
    const std::string dir = temp_path(name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::set<std::string> names_in(const std::string& dir) {
    std::set<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) names.insert(e.path().filename().string());
    return names;
}

// What an ImageD11 sparse file holds for one dataset, as read back through HDF5.
struct SparseContent {
    std::vector<std::int32_t> nnz;
    std::vector<std::uint32_t> row, col, intensity;
    std::vector<std::int64_t> nframes, complete;
    bool operator==(const SparseContent& o) const {
        return nnz == o.nnz && row == o.row && col == o.col && intensity == o.intensity && nframes == o.nframes &&
               complete == o.complete;
    }
};

SparseContent content_of(const std::string& path) {
    const test::H5Reader f(path);
    const std::string g = "/entry/data/data";
    return {f.dataset<std::int32_t>(g + "/nnz", H5T_NATIVE_INT32),
            f.dataset<std::uint32_t>(g + "/row", H5T_NATIVE_UINT32),
            f.dataset<std::uint32_t>(g + "/col", H5T_NATIVE_UINT32),
            f.dataset<std::uint32_t>(g + "/intensity", H5T_NATIVE_UINT32),
            f.attribute(g, "nframes"),
            f.attribute(g, "complete")};
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// How many of `lines` report `input` (its summary line starts with its path).
std::size_t reports_of(const std::vector<std::string>& lines, const std::string& input) {
    std::size_t n = 0;
    for (const std::string& l : lines) n += l.rfind(input + " -> ", 0) == 0 || l.rfind(input + ": FAILED: ", 0) == 0;
    return n;
}

std::string captured(std::FILE* f) {
    std::rewind(f);
    std::string text;
    for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
    return text;
}

// A scan campaign on disk: good scans in two folders, a corrupt one and a missing one, listed
// with comments and blank lines.
struct Campaign {
    std::string list;
    std::vector<std::string> inputs, good, failing;
    std::map<std::string, SparseContent> reference;  // single-file run of each good input
};

Campaign write_campaign() {
    Campaign c;
    const std::string root = fresh_folder("campaign_scans");
    std::filesystem::create_directories(root + "/a");
    std::filesystem::create_directories(root + "/b");
    const std::string names[] = {"a/scan_0001.h5",   "a/scan_0002.h5", "b/scan_0003.h5", "b/scan_0004.h5",
                                 "b/scan_0005.hdf5", "a/scan_0006.h5", "b/scan_0007.h5"};
    std::string text = "# campaign of the test\n\n";
    for (std::size_t i = 0; i < std::size(names); ++i) {
        const std::string path = root + "/" + names[i];
        c.inputs.push_back(path);
        text += (i == 2 ? "   " + path + "  \n\n  # an indented comment\n" : path + "\n");
        if (i == 3) {
            write_campaign_scan(path, i, 20, 5);  // frame 5 truncated
            c.failing.push_back(path);
        } else if (i == 5) {
            c.failing.push_back(path);  // never written: missing
        } else {
            write_campaign_scan(path, i, 12 + i);
            c.good.push_back(path);
        }
    }
    c.list = root + "/scans.txt";
    write_text(c.list, text);
    for (const std::string& in : c.good) {
        const std::string ref = temp_path("campaign_reference.h5");
        const test::ToolResult r = run_tool("sparse --overwrite " + in + " -o " + ref + " --cut 4 --cpu --quiet");
        INFO(r.err);
        REQUIRE(r.code == 0);
        c.reference[in] = content_of(ref);
    }
    return c;
}

}  // namespace

TEST_CASE(
    "the shards of a list together write every output once, each equal to a single-file run; a failed scan "
    "is reported and the others go on",
    "[sparse-campaign]") {
    const Campaign c = write_campaign();
    for (const std::size_t n : {1, 3, 7, 10}) {
        INFO("shards: " << n);
        const std::string out = temp_path("campaign_out_" + std::to_string(n));
        std::filesystem::remove_all(out);  // created by the shards
        std::vector<std::string> summary;
        for (std::size_t k = 0; k < n; ++k) {
            const std::string shard = std::to_string(k) + "/" + std::to_string(n);
            const test::ToolResult r =
                run_tool("sparse --overwrite --list " + c.list + " -o " + out + "/ --cut 4 --cpu --shard " + shard);
            INFO("shard " << shard << "\n" << r.out << r.err);
            bool has_failing = false;
            for (std::size_t i = k; i < c.inputs.size(); i += n)
                has_failing |= std::count(c.failing.begin(), c.failing.end(), c.inputs[i]) > 0;
            CHECK(r.code == (has_failing ? 1 : 0));
            CHECK_THAT(r.out, Catch::Contains("total (" + (n > 1 ? "shard " + shard + ": " : std::string())));
            for (const std::string& f : c.failing)
                if (reports_of(lines_of(r.out), f)) CHECK_THAT(r.err, Catch::Contains("bslz4: " + f + ": "));
            if (r.out.find(c.failing[0] + ": FAILED") != std::string::npos)
                CHECK_THAT(r.err, Catch::Contains("frame 5"));
            for (const std::string& l : lines_of(r.out)) summary.push_back(l);
        }
        for (const std::string& in : c.inputs) CHECK(reports_of(summary, in) == 1);
        std::set<std::string> want;
        for (const std::string& in : c.good)
            want.insert(std::filesystem::path(tool::sparse_output_name(in, out)).filename());
        CHECK(names_in(out) == want);  // no output of a failed scan, no temporaries
        for (const std::string& in : c.good) CHECK(content_of(tool::sparse_output_name(in, out)) == c.reference.at(in));
    }
}

TEST_CASE("several inputs on the command line go to -o DIR as a list would; one input with -o DIR/ too",
          "[sparse-campaign]") {
    const Campaign c = write_campaign();
    const std::string out = temp_path("campaign_positional");
    std::filesystem::remove_all(out);
    const test::ToolResult r =
        run_tool("sparse --overwrite " + c.good[0] + " " + c.good[1] + " -o " + out + " --cut 4 --cpu");
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("total (2 inputs): 2 done, 0 failed, 0 not done"));
    CHECK(content_of(out + "/scan_0001_sparse.h5") == c.reference.at(c.good[0]));
    CHECK(content_of(out + "/scan_0002_sparse.h5") == c.reference.at(c.good[1]));

    const std::string one = temp_path("campaign_one");
    std::filesystem::remove_all(one);
    const test::ToolResult r1 = run_tool("sparse --overwrite " + c.good[2] + " -o " + one + "/ --cut 4 --cpu --quiet");
    INFO(r1.out << r1.err);
    REQUIRE(r1.code == 0);
    CHECK(content_of(one + "/scan_0003_sparse.h5") == c.reference.at(c.good[2]));
}

TEST_CASE("a list is bounded before it is read: a device (/dev/zero) is refused, so are a line longer than a path, a NUL byte "
          "and a list past its size; a pipe is read to its end",
          "[sparse-campaign]") {
    CHECK_THROWS_WITH(tool::read_input_list("/dev/zero"), Catch::Contains("/dev/zero: not a file of paths (a device)"));
    CHECK_THROWS_WITH(tool::read_input_list("/tmp"), Catch::Contains("a folder"));
    const std::string list = temp_path("campaign_bounded_list.txt");
    write_text(list, "a.h5\n" + std::string(tool::ListLimits{}.line + 1, 'x') + "\nb.h5\n");
    CHECK_THROWS_WITH(tool::read_input_list(list), Catch::Contains("line 2 is longer than 4096 bytes"));
    write_text(list, std::string("a.h5\nb\0.h5\n", 11));
    CHECK_THROWS_WITH(tool::read_input_list(list), Catch::Contains("line 2 holds a NUL byte"));
    // the same limits, made small: past the size, past the count
    write_text(list, "a.h5\nb.h5\nc.h5\n");
    tool::ListLimits small;
    small.bytes = 10;
    CHECK_THROWS_WITH(tool::read_input_list(list, small), Catch::Contains("longer than 10 bytes"));
    small = tool::ListLimits{};
    small.inputs = 2;
    CHECK_THROWS_WITH(tool::read_input_list(list, small), Catch::Contains("more than 2 inputs"));
    CHECK(tool::read_input_list(list).size() == 3);
    std::remove(list.c_str());
    const std::string fifo = temp_path("campaign_list_fifo");
    std::remove(fifo.c_str());
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([&] { write_text(fifo, "one.h5\ntwo.h5\n"); });
    CHECK(tool::read_input_list(fifo) == std::vector<std::string>{"one.h5", "two.h5"});
    writer.join();
    std::remove(fifo.c_str());
    const test::ToolResult r = run_tool("sparse --list /dev/zero -o " + temp_path("campaign_zero") + "/ --cut 4");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("not a file of paths (a device)"));
}

TEST_CASE("a list skips blank lines and # comments, drops blanks around a path, and must name an input",
          "[sparse-campaign]") {
    const std::string list = temp_path("campaign_list.txt");
    write_text(list,
               "# scans of the test\n\n  first.h5  \r\nwith space.h5\n\t# indented comment\n \t\nx#y.h5\nlast.h5");
    CHECK(tool::read_input_list(list) == std::vector<std::string>{"first.h5", "with space.h5", "x#y.h5", "last.h5"});

    write_text(list, "# nothing but comments\n\n");
    CHECK_THROWS_WITH(tool::read_input_list(list), Catch::Contains("names no input file"));
    CHECK_THROWS_AS(tool::read_input_list(temp_path("campaign_no_such_list.txt")), tool::UsageError);

    const test::ToolResult r = run_tool("sparse --overwrite --list " + temp_path("campaign_no_such_list.txt") + " -o " +
                                        temp_path("campaign_never") + " --cut 4 --quiet");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("cannot read it"));
}

TEST_CASE("outputs are named DIR/NAME_sparse.h5 from the input's file name, its last extension dropped",
          "[sparse-campaign]") {
    CHECK(tool::sparse_output_name("/data/id11/scan_0001.h5", "out") == "out/scan_0001_sparse.h5");
    CHECK(tool::sparse_output_name("scan_0001.h5", "out/") == "out/scan_0001_sparse.h5");
    CHECK(tool::sparse_output_name("d.v2/sample.master.h5", "/x") == "/x/sample.master_sparse.h5");
    CHECK(tool::sparse_output_name("d.v2/scan", "o") == "o/scan_sparse.h5");
    CHECK(tool::sparse_output_name(".h5", "o") == "o/.h5_sparse.h5");
}

TEST_CASE("inputs of one name in different folders keep their folder's name; inputs that would still write one output "
          "are refused before anything runs, naming both",
          "[sparse-campaign]") {
    const std::string root = fresh_folder("campaign_collide");
    std::filesystem::create_directories(root + "/a");
    std::filesystem::create_directories(root + "/b");
    write_campaign_scan(root + "/a/scan.h5", 1, 4);
    write_campaign_scan(root + "/b/scan.h5", 2, 4);
    const std::string out = root + "/out";

    // LImA's scan0001/eiger_0000.h5, scan0002/eiger_0000.h5...: every output keeps its folder
    test::ToolResult r =
        run_tool("sparse --overwrite " + root + "/a/scan.h5 " + root + "/b/scan.h5 -o " + out + " --cut 4 --quiet");
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(std::filesystem::exists(out + "/a_scan_sparse.h5"));
    CHECK(std::filesystem::exists(out + "/b_scan_sparse.h5"));
    CHECK_FALSE(std::filesystem::exists(out + "/scan_sparse.h5"));
    std::filesystem::remove_all(out);

    // one name with two extensions, in one list, and every shard refuses it (not just the one with both)
    write_campaign_scan(root + "/a/scan.hdf5", 3, 4);
    write_text(root + "/list.txt", root + "/a/scan.h5\n" + root + "/a/scan.hdf5\n");
    for (const char* shard : {"0/2", "1/2"}) {
        r = run_tool("sparse --overwrite --list " + root + "/list.txt -o " + out + " --cut 4 --quiet --shard " + shard);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("would both write"));
    }
    r = run_tool("sparse --overwrite " + root + "/a/scan.h5 " + root + "/a/scan.h5 -o " + out + " --cut 4 --quiet");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(root + "/a/scan.h5 is given twice"));
    CHECK_FALSE(std::filesystem::exists(out));

    // an output that is another input of the list
    write_campaign_scan(root + "/a/scan_sparse.h5", 4, 4);
    r = run_tool("sparse --overwrite " + root + "/a/scan.h5 " + root + "/a/scan_sparse.h5 -o " + root + "/a --cut 4 --quiet");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("is the input file"));
}

TEST_CASE("a malformed --shard, or a command that mixes the forms, is a usage error and runs nothing",
          "[sparse-campaign]") {
    CHECK(tool::parse_shard("0/1").index == 0);
    CHECK(tool::parse_shard("3/4").index == 3);
    CHECK(tool::parse_shard("007/10").index == 7);  // decimal, leading zeros as a shell may pad them
    CHECK(tool::parse_shard("007/10").count == 10);
    for (const char* bad : {"", "1", "/4", "1/", "4/4", "9/4", "1/0", "-1/4", "+1/4", "a/4", "1/4/2", " 1/4", "1.0/4",
                            "0x1/4", "99999999999999999999999/1"}) {
        INFO("--shard '" << bad << "'");
        CHECK_THROWS_AS(tool::parse_shard(bad), tool::UsageError);
    }
    CHECK_THROWS_WITH(tool::parse_shard("/4"), Catch::Contains("K is missing"));
    CHECK_THROWS_WITH(tool::parse_shard("4/4"), Catch::Contains("--array=0-3"));

    const std::string root = fresh_folder("campaign_usage");
    write_campaign_scan(root + "/scan.h5", 1, 4);
    write_text(root + "/list.txt", root + "/scan.h5\n");
    write_text(root + "/afile", "");
    const std::string out = root + "/out";
    const std::string bad_commands[] = {
        "--list " + root + "/list.txt -o " + out + " --cut 4 --shard 2/2",
        "--list " + root + "/list.txt -o " + out + " --cut 4 --shard /2",
        "--list " + root + "/list.txt -o " + out + " --cut 4 --shard x",
        "--list " + root + "/list.txt " + root + "/scan.h5 -o " + out + " --cut 4",
        "--list " + root + "/list.txt -o " + root + "/afile --cut 4",
        "--list " + root + "/list.txt --cut 4",
        "--list " + root + "/list.txt -o " + out,
    };
    for (const std::string& args : bad_commands) {
        const test::ToolResult r = run_tool("sparse --overwrite " + args + " --quiet");
        INFO(args << "\n" << r.err);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("see 'bslz4 sparse --help'"));
    }
    CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a stop before a scan starts leaves it and the rest not done, named, and no output", "[sparse-campaign]") {
    const Campaign c = write_campaign();
    const std::string out = temp_path("campaign_stopped");
    std::filesystem::remove_all(out);
    tool::SparseJob options;
    options.overwrite = true;
    options.cut = 4;
    options.where = tool::SparseJob::Where::cpu;
    options.quiet = true;
    const tool::CampaignPlan plan = tool::plan_campaign(options, c.good, out);
    const std::atomic<bool> stop{true};  // as if Ctrl-C came before the first scan
    std::FILE* so = std::tmpfile();
    std::FILE* se = std::tmpfile();
    REQUIRE((so && se));
    const tool::CampaignReport rep = tool::run_campaign(options, plan, tool::Shard{}, stop, so, se);
    const std::string text_out = captured(so), text_err = captured(se);
    std::fclose(so);
    std::fclose(se);
    CHECK(rep.exit_code() == 130);
    CHECK(rep.not_done == c.good.size());
    for (const std::string& in : c.good)
        CHECK_THAT(text_err, Catch::Contains("bslz4: not done: " + in + " (not started)"));
    CHECK_THAT(text_out, Catch::Contains("0 done, 0 failed, " + std::to_string(c.good.size()) + " not done"));
    CHECK(names_in(out).empty());
}

TEST_CASE("a stop during a campaign ends the scan in hand at its batch, marked incomplete, and names those not done",
          "[sparse-campaign]") {
    const std::string root = fresh_folder("campaign_interrupt");
    constexpr std::size_t kLongFrames = 64 * 200;  // long enough to be caught while it runs
    const std::string first = root + "/first.h5", long_scan = root + "/long.h5", last = root + "/last.h5";
    write_campaign_scan(first, 1, 8);
    write_campaign_scan(long_scan, 2, kLongFrames);
    write_campaign_scan(last, 3, 8);
    const std::string out = root + "/out";
    tool::SparseJob options;
    options.overwrite = true;
    options.cut = 4;
    options.where = tool::SparseJob::Where::cpu;
    options.quiet = true;
    const tool::CampaignPlan plan = tool::plan_campaign(options, {first, long_scan, last}, out);
    std::atomic<bool> stop{false};
    // Ctrl-C while the long scan is being written (its temporary output is there)
    std::thread watcher([&] {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        const std::string part = std::filesystem::path(plan.outputs[1]).filename().string() + ".part";
        auto writing = [&] {
            for (const std::string& name : names_in(out))
                if (name.rfind(part, 0) == 0) return true;
            return false;
        };
        while (!(std::filesystem::exists(out) && writing()) && std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        stop = true;
    });
    std::FILE* so = std::tmpfile();
    std::FILE* se = std::tmpfile();
    REQUIRE((so && se));
    const tool::CampaignReport rep = tool::run_campaign(options, plan, tool::Shard{}, stop, so, se);
    watcher.join();
    const std::string text_out = captured(so), text_err = captured(se);
    std::fclose(so);
    std::fclose(se);
    INFO(text_out << text_err);
    CHECK(rep.exit_code() == 130);
    CHECK(rep.done == 1);
    CHECK(rep.not_done == 2);
    CHECK(content_of(plan.outputs[0]).complete == std::vector<std::int64_t>{1});
    CHECK_THAT(text_err, Catch::Contains("bslz4: not done: " + last + " (not started)"));
    CHECK_THAT(text_err, Catch::Contains("bslz4: not done: " + long_scan + " (interrupted)"));
    CHECK_THAT(text_err, Catch::Contains("bslz4: interrupted: " + plan.outputs[1] + ".incomplete holds the ") &&
                             Catch::Contains(plan.outputs[1] + " is not written"));
    CHECK_THAT(text_out, Catch::Contains(long_scan + " -> " + plan.outputs[1] + ": INTERRUPTED after"));
    CHECK_FALSE(std::filesystem::exists(plan.outputs[1]));
    const SparseContent partial = content_of(plan.outputs[1] + ".incomplete");
    CHECK(partial.complete == std::vector<std::int64_t>{0});
    CHECK(partial.nframes.at(0) < static_cast<std::int64_t>(kLongFrames));
    CHECK_FALSE(std::filesystem::exists(plan.outputs[2]));
}

namespace {

std::string bytes_of_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("--resume runs only the scans not finished; a file at an output's name that is not that scan's finished output "
          "fails that input and is left as it is",
          "[sparse-campaign]") {
    const std::string root = fresh_folder("campaign_resume");
    std::vector<std::string> in;
    for (int k = 1; k <= 4; ++k) {
        in.push_back(root + "/s" + std::to_string(k) + ".h5");
        write_campaign_scan(in.back(), 40 + k, 10 + k);
    }
    const std::string out = root + "/out/";
    const auto output = [&](int k) { return tool::sparse_output_name(in[k], out); };
    // s1 and s2 done, as an interrupted campaign leaves them
    REQUIRE(run_tool("sparse " + in[0] + " " + in[1] + " -o " + out + " --cut 4 --cpu --quiet").code == 0);
    const std::string finished = bytes_of_file(output(0));
    // s2's output replaced by one cut elsewhere, s3's name taken by a file that is not HDF5
    REQUIRE(run_tool("sparse --overwrite " + in[1] + " -o " + output(1) + " --cut 2 --cpu --quiet").code == 0);
    const std::string other_cut = bytes_of_file(output(1));
    write_text(output(2), "not an output\n");
    const std::string reference = temp_path("campaign_resume_reference.h5");
    REQUIRE(run_tool("sparse --overwrite " + in[3] + " -o " + reference + " --cut 4 --cpu --quiet").code == 0);

    const test::ToolResult r =
        run_tool("sparse --resume " + in[0] + " " + in[1] + " " + in[2] + " " + in[3] + " -o " + out + " --cut 4 --cpu");
    INFO(r.out << r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains(in[0] + " -> " + output(0) + ": done before (complete), not run again"));
    CHECK(bytes_of_file(output(0)) == finished);
    CHECK_THAT(r.err, Catch::Contains(output(1) + " exists but is not this scan's finished output (group /entry/data/data "
                                                  "was cut at 2") &&
                          Catch::Contains("left as it is; give --overwrite to replace it"));
    CHECK(bytes_of_file(output(1)) == other_cut);
    CHECK_THAT(r.err, Catch::Contains(output(2) + " exists but cannot be read as an output"));
    CHECK(bytes_of_file(output(2)) == "not an output\n");
    CHECK(content_of(output(3)) == content_of(reference));
    CHECK_THAT(r.out, Catch::Contains("1 done (1 before), 2 failed, 0 not done"));

    // once the two are dealt with, a second resume finishes with nothing left to run
    std::filesystem::remove(output(1));
    std::filesystem::remove(output(2));
    const test::ToolResult again = run_tool("sparse --resume --json " + in[0] + " " + in[1] + " " + in[2] + " " + in[3] +
                                            " -o " + out + " --cut 4 --cpu");
    INFO(again.out << again.err);
    CHECK(again.code == 0);
    CHECK_THAT(again.out, Catch::Contains("\"done\": 2") && Catch::Contains("\"done_before\": 2"));
    CHECK(bytes_of_file(output(0)) == finished);

    CHECK(run_tool("sparse --resume " + in[0] + " -o " + root + "/one.h5 --cut 4 --cpu").code == 2);
    CHECK(run_tool("sparse --resume --overwrite " + in[0] + " " + in[1] + " -o " + out + " --cut 4 --cpu").code == 2);
}

TEST_CASE("a campaign with --matrix reads the matrix once: each scan's lists and powders equal its single-file run's, "
          "and a scan of another shape fails naming the pixel counts while the others go on",
          "[sparse-campaign][matrix]") {
    const std::string dir = fresh_folder("campaign_matrix");
    const std::string a = dir + "/scan_a.h5", b = dir + "/scan_b.h5", odd = dir + "/scan_odd.h5", mat = dir + "/matrix.h5";
    write_campaign_scan(a, 1, 6);
    write_campaign_scan(b, 2, 6);
    {
        std::vector<std::vector<std::uint8_t>> chunks;
        for (std::size_t f = 0; f < 3; ++f)
            chunks.push_back(encode_chunk(synthetic_eiger_frame(kCampaignNi + 1, kCampaignNj, PixelType::u16, 9000 + f), 2));
        tool::write_scan(odd, kCampaignNi + 1, kCampaignNj, PixelType::u16, 3, {}, chunks);
    }
    tool::write_matrix(mat, "csr", normalise_matrix(test::random_csr(7, kCampaignNi * kCampaignNj, 1.5, 11).input()));
    const std::string out = dir + "/out";
    const test::ToolResult r =
        run_tool("sparse --overwrite " + a + " " + odd + " " + b + " -o " + out + " --cut 4 --cpu --matrix " + mat + ":csr");
    INFO(r.out << r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("2 done, 1 failed"));
    CHECK_THAT(r.err, Catch::Contains(odd) && Catch::Contains(std::to_string((kCampaignNi + 1) * kCampaignNj)));
    for (const std::string& in : {a, b}) {
        const std::string alone = dir + "/alone.h5";
        const test::ToolResult one =
            run_tool("sparse --overwrite " + in + " -o " + alone + " --cut 4 --cpu --quiet --matrix " + mat + ":csr");
        REQUIRE(one.code == 0);
        const std::string in_campaign = tool::sparse_output_name(in, out);
        CHECK(content_of(in_campaign) == content_of(alone));
        const auto powder = [](const std::string& f) {
            return test::H5Reader(f).dataset<double>("/entry/data/data/powder", H5T_NATIVE_DOUBLE);
        };
        CHECK(powder(in_campaign).size() == 6 * 7);
        CHECK(powder(in_campaign) == powder(alone));
    }
}
