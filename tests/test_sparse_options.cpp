// `bslz4 sparse` options of ImageD11's segmenter and the command-line conventions scripts expect:
// --pixels-in-spot (after --howmany, as the segmenter), --frames as a Python slice, --quiet and
// --json, --use-mask beside --mask, the summary of an unmasked scan, the CPU threads under an
// affinity mask, and numpy's type names.
#include <catch2/catch.hpp>

#include <filesystem>
#include <thread>

#include "bslz4/bslz4.hpp"
#include "cli/command_line.hpp"
#include "cpu_affinity.hpp"
#include "error_codes.hpp"
#include "cli/frame_selection.hpp"
#include "h5_reader.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/scan_writer.hpp"
#include "spot_reference.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"
#include "synthetic/synthetic_eiger.hpp"

using namespace bslz4;
using test::run_tool;
using test::temp_path;

namespace {

constexpr std::size_t kNi = 40, kNj = 50, kFrames = 70;  // two batches of the job

// u16 frames of mostly background with blobs of every size (synthetic Eiger frames).
std::vector<std::vector<std::uint8_t>> write_options_scan(const std::string& path, const std::vector<std::uint8_t>& nexus_mask = {}) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < kFrames; ++f)
        chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, PixelType::u16, f), 2));
    tool::write_scan(path, kNi, kNj, PixelType::u16, kFrames, nexus_mask, chunks);
    return chunks;
}

// The output's group: at the input dataset's path, or where older versions put it.
struct Output {
    std::vector<std::int64_t> nnz;
    std::vector<test::PixelList> frames;  // each frame's list, u16 values
};

Output read_output(const std::string& path) {
    const test::H5Reader f(path);
    std::string group = "/entry/data/data";
    try {
        f.dataset<std::int64_t>(group + "/nnz", H5T_NATIVE_INT64);
    } catch (const Error&) {
        group = "/entry_data_data";
    }
    Output o;
    o.nnz = f.dataset<std::int64_t>(group + "/nnz", H5T_NATIVE_INT64);
    const auto row = f.dataset<std::uint16_t>(group + "/row", H5T_NATIVE_UINT16);
    const auto col = f.dataset<std::uint16_t>(group + "/col", H5T_NATIVE_UINT16);
    const auto value = f.dataset<std::uint16_t>(group + "/intensity", H5T_NATIVE_UINT16);
    std::size_t at = 0;
    for (const std::int64_t n : o.nnz) {
        test::PixelList l;
        for (std::int64_t k = 0; k < n; ++k, ++at) {
            l.row.push_back(row.at(at));
            l.col.push_back(col.at(at));
            const std::uint16_t v = value.at(at);
            l.values.insert(l.values.end(), reinterpret_cast<const std::uint8_t*>(&v), reinterpret_cast<const std::uint8_t*>(&v) + 2);
        }
        o.frames.push_back(std::move(l));
    }
    REQUIRE(at == row.size());
    return o;
}

void require_same_lists(const test::PixelList& got, const test::PixelList& want) {
    REQUIRE(got.size() == want.size());
    CHECK(got.row == want.row);
    CHECK(got.col == want.col);
    CHECK(got.values == want.values);
}

// A mask dataset of kNi x kNj bytes at FILE:/m.
void write_mask_file(const std::string& path, const std::vector<std::uint8_t>& m) {
    const tool::h5::Handle file = tool::h5::create_file(path);
    const hsize_t dims[2] = {kNi, kNj};
    tool::h5::Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose, "space");
    tool::h5::Handle d(H5Dcreate2(file.get(), "m", H5T_NATIVE_UINT8, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, "m");
    REQUIRE(H5Dwrite(d.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.data()) >= 0);
}

// Runs the tool from a thread whose affinity is one CPU: the process starts with that mask.
test::ToolResult run_tool_on_one_cpu(const std::string& args) {
    test::ToolResult r;
    test::on_one_cpu([&] { r = run_tool(args); });
    return r;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return lines;
}

}  // namespace

TEST_CASE("sparse --pixels-in-spot K writes the lists without it cut down to the pixels in spots of K, after --howmany",
          "[sparse-options]") {
    const std::string scan = temp_path("options_spots_scan.h5"), all_out = temp_path("options_spots_all.h5"),
                      out = temp_path("options_spots_out.h5");
    write_options_scan(scan);
    for (const std::string top : {"", " --howmany 40 --thresholds 8,16"}) {
        INFO("options:" << top);
        test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + all_out + " --cut 2 --cpu --quiet" + top);
        INFO(r.err);
        REQUIRE(r.code == 0);
        const Output all = read_output(all_out);
        std::size_t all_pixels = 0;
        for (const auto& l : all.frames) all_pixels += l.size();
        for (const std::size_t k : {1, 2, 3, 6}) {
            INFO("--pixels-in-spot " << k);
            r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --cpu --json --pixels-in-spot " + std::to_string(k) + top);
            INFO(r.err);
            REQUIRE(r.code == 0);
            const Output got = read_output(out);
            REQUIRE(got.frames.size() == kFrames);
            std::size_t kept = 0, dropped = 0;
            for (std::size_t f = 0; f < kFrames; ++f) {
                INFO("frame " << f);
                const test::PixelList want = test::reference_spots<std::uint16_t>(all.frames[f], kNi, kNj, k);
                CHECK(got.nnz[f] == static_cast<std::int64_t>(want.size()));
                require_same_lists(got.frames[f], want);
                kept += want.size();
                dropped += all.frames[f].size() - want.size();
            }
            if (k >= 3) CHECK(dropped > 0);  // the rule did drop pixels
            CHECK_THAT(r.out, Catch::Contains("\"pixels\": " + std::to_string(kept) + ",") &&
                                  Catch::Contains("\"pixels_not_in_spots\": " + std::to_string(dropped) + ","));
            CHECK(kept + dropped == all_pixels);
        }
    }
    const test::ToolResult plain = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --cpu --pixels-in-spot 3");
    CHECK_THAT(plain.out, Catch::Contains(" pixels not in spots of 3 dropped"));
}

TEST_CASE("--pixels-in-spot takes a whole number", "[sparse-options]") {
    const std::string scan = temp_path("options_spots_usage.h5"), out = temp_path("options_spots_usage_out.h5");
    write_options_scan(scan);
    for (const char* bad : {"-1", "x", "2.5", "''"}) {
        INFO(bad);
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --pixels-in-spot " + bad);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("--pixels-in-spot"));
    }
    const test::ToolResult help = run_tool("sparse --overwrite --help");
    CHECK_THAT(help.out, Catch::Contains("--pixels-in-spot K") && Catch::Contains("8-connected"));
}

TEST_CASE("--frames A:B reads as a Python slice, and an end past the scan is an error naming its length", "[sparse-options]") {
    const tool::FrameSelection all = tool::parse_frame_selection("");
    CHECK(tool::resolve_frames(all, 70).first == 0);
    CHECK(tool::resolve_frames(all, 70).end == 70);
    const auto range = [](const std::string& spec, std::size_t frames) {
        const tool::FrameRange r = tool::resolve_frames(tool::parse_frame_selection(spec), frames);
        return std::make_pair(r.first, r.end);
    };
    CHECK(range("10:25", 70) == std::make_pair<std::size_t, std::size_t>(10, 25));
    CHECK(range("-10:", 70) == std::make_pair<std::size_t, std::size_t>(60, 70));
    CHECK(range(":-60", 70) == std::make_pair<std::size_t, std::size_t>(0, 10));
    CHECK(range("-70:-69", 70) == std::make_pair<std::size_t, std::size_t>(0, 1));
    CHECK(range(":", 70) == std::make_pair<std::size_t, std::size_t>(0, 70));
    CHECK(range("0:70", 70) == std::make_pair<std::size_t, std::size_t>(0, 70));
    for (const char* past : {"0:71", "71:", "-71:", ":-71", "0:300"}) {
        INFO(past);
        CHECK(test::code_thrown_by([&] { range(past, 70); }) == ErrorCode::bad_argument);
        CHECK_THROWS_WITH(range(past, 70), Catch::Contains("the scan, which has 70 frames (0 to 69"));
    }
    for (const char* none : {"5:5", "9:2", "-1:-2", "70:"}) {
        INFO(none);
        CHECK_THROWS_WITH(range(none, 70), Catch::Contains("selects no frame"));
    }
    for (const char* bad : {"5", "x:3", "1:2:3", "--1:", "1.5:", "- 1:"}) {
        INFO(bad);
        CHECK(test::code_thrown_by([&] { tool::parse_frame_selection(bad); }) == ErrorCode::bad_argument);
    }

    const std::string scan = temp_path("options_frames_scan.h5"), out = temp_path("options_frames_out.h5"),
                      whole = temp_path("options_frames_whole.h5");
    write_options_scan(scan);
    test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + whole + " --cut 2 --cpu --quiet");
    REQUIRE(r.code == 0);
    const Output w = read_output(whole);
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --cpu --quiet --frames -10:");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const Output last = read_output(out);
    REQUIRE(last.frames.size() == 10);
    for (std::size_t f = 0; f < 10; ++f) require_same_lists(last.frames[f], w.frames[60 + f]);
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --cpu --quiet --frames 0:300");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("--frames 0:300") && Catch::Contains("70 frames"));
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --cpu --quiet --frames x:3");
    CHECK(r.code == 2);  // a usage error: nothing read
}

TEST_CASE("--quiet prints nothing on success, --json one line of JSON, for one scan and for several", "[sparse-options]") {
    const std::string a = temp_path("options_quiet_a.h5"), b = temp_path("options_quiet_b.h5"), out = temp_path("options_quiet_out.h5"),
                      dir = temp_path("options_quiet_dir");
    write_options_scan(a);
    write_options_scan(b);
    std::filesystem::remove_all(dir);
    test::ToolResult r = run_tool("sparse --overwrite " + a + " -o " + out + " --cut 2 --cpu --quiet");
    CHECK(r.code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
    r = run_tool("sparse --overwrite " + a + " " + b + " -o " + dir + "/ --cut 2 --cpu --quiet");
    CHECK(r.code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());

    r = run_tool("sparse --overwrite " + a + " -o " + out + " --cut 2 --cpu --quiet --json");
    REQUIRE(r.code == 0);
    REQUIRE(lines_of(r.out).size() == 1);
    CHECK_THAT(r.out, Catch::StartsWith("{\"kind\": \"scan\", \"input\": \"" + a + "\", \"output\": \"" + out +
                                        "\", \"status\": \"done\", \"frames\": 70, \"pixels\": "));
    CHECK_THAT(r.out, Catch::Contains("\"seconds\": ") && Catch::Contains("\"frames_per_s\": ") &&
                          Catch::Contains("\"decoder\": \"CPU (") && Catch::EndsWith("}\n"));

    r = run_tool("sparse --overwrite " + a + " " + b + " " + temp_path("options_no_such.h5") + " -o " + dir + "/ --cut 2 --cpu --json");
    CHECK(r.code == 1);
    const std::vector<std::string> lines = lines_of(r.out);
    REQUIRE(lines.size() == 4);
    CHECK_THAT(lines[0], Catch::Contains("\"input\": \"" + a + "\"") && Catch::Contains("\"status\": \"done\""));
    CHECK_THAT(lines[1], Catch::Contains("\"input\": \"" + b + "\"") && Catch::Contains("\"status\": \"done\""));
    CHECK_THAT(lines[2], Catch::Contains("\"status\": \"failed\", \"error\": \"") && Catch::Contains("cannot open"));
    CHECK_THAT(lines[3], Catch::StartsWith("{\"kind\": \"total\", \"shard\": \"0/1\", \"inputs\": 3, \"done\": 2, \"failed\": 1,") &&
                             Catch::Contains("\"frames\": 140,") && Catch::Contains("\"exit_code\": 1}"));

    // what is not a success still says so under --quiet: the failed scan, and the total
    r = run_tool("sparse --overwrite " + a + " " + temp_path("options_no_such.h5") + " -o " + dir + "/ --cut 2 --cpu --quiet");
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("options_no_such.h5: FAILED: ") && Catch::Contains("total (2 inputs): 1 done, 1 failed"));
    CHECK_THAT(r.out, !Catch::Contains(a + " -> "));
    // one scan failing under --json: its line, and the message on stderr
    r = run_tool("sparse --overwrite " + temp_path("options_no_such.h5") + " -o " + out + " --cut 2 --cpu --json");
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::StartsWith("{\"kind\": \"scan\"") && Catch::Contains("\"status\": \"failed\""));
    CHECK_THAT(r.err, Catch::Contains("cannot open"));
}

TEST_CASE("the CPU decoder's threads, used and reported, are the CPUs the process may run on", "[sparse-options]") {
    const std::string scan = temp_path("options_cpus_scan.h5"), out = temp_path("options_cpus_out.h5");
    write_options_scan(scan);
    if (std::thread::hardware_concurrency() < 2) WARN("one core here: this case cannot tell the mask from the cores");
    const test::ToolResult r = run_tool_on_one_cpu("sparse " + scan + " -o " + out + " --cut 2 --cpu --json");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\"decoder\": \"CPU (1 threads)\""));
}

TEST_CASE("--use-mask FILE:PATH uses the pixels where it is nonzero, --mask FILE:PATH those where it is zero", "[sparse-options]") {
    const std::string scan = temp_path("options_mask_scan.h5"), out = temp_path("options_mask_out.h5"),
                      mask_file = temp_path("options_mask.h5");
    const auto chunks = write_options_scan(scan);
    std::vector<std::uint8_t> m(kNi * kNj);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<std::uint8_t>((i * 7919) % 5 == 0 ? 0 : 1 + i % 200);
    write_mask_file(mask_file, m);
    for (const bool use : {true, false}) {
        INFO((use ? "--use-mask" : "--mask"));
        const test::ToolResult r =
            run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --cpu --quiet " + (use ? "--use-mask " : "--mask ") + mask_file + ":/m");
        INFO(r.err);
        REQUIRE(r.code == 0);
        std::vector<std::uint8_t> library_mask(m.size());  // nonzero = use
        for (std::size_t i = 0; i < m.size(); ++i) library_mask[i] = use ? m[i] != 0 : m[i] == 0;
        Chunk2Sparse c(library_mask, kNi, kNj, PixelType::u16);
        const Output got = read_output(out);
        for (std::size_t f = 0; f < kFrames; ++f) {
            const SparseFrame want = c(chunks[f], 2);
            REQUIRE(got.frames[f].size() == want.npixels);
            for (std::size_t p = 0; p < want.npixels; ++p)
                REQUIRE(got.frames[f].row[p] * kNj + got.frames[f].col[p] == want.indices[p]);
        }
    }
    test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --mask " + mask_file + ":/m --use-mask " + mask_file + ":/m");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("nonzero = do not use") && Catch::Contains("nonzero = use"));
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --use-mask " + mask_file);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--use-mask") && Catch::Contains("FILE:PATH"));
    const test::ToolResult help = run_tool("sparse --overwrite --help");
    CHECK_THAT(help.out, Catch::Contains("--mask FILE:PATH     NeXus's, as in a pixel_mask: nonzero = bad, do NOT use the pixel\n"
                                         "  --use-mask FILE:PATH the library's (Chunk2Sparse's mask): nonzero = USE the pixel\n"));
}

TEST_CASE("a scan run without a mask says so in its summary: no pixel_mask in the file, or --no-mask", "[sparse-options]") {
    const std::string bare = temp_path("options_unmasked.h5"), masked = temp_path("options_masked.h5"),
                      out = temp_path("options_unmasked_out.h5");
    write_options_scan(bare);
    write_options_scan(masked, std::vector<std::uint8_t>(kNi * kNj, 0));
    test::ToolResult r = run_tool("sparse --overwrite " + bare + " -o " + out + " --cut 2 --cpu");
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("; unmasked (the file has no pixel_mask: none at /entry/instrument/detector/pixel_mask or /entry/data/pixel_mask)"));
    r = run_tool("sparse --overwrite " + bare + " -o " + out + " --cut 2 --cpu --json");
    CHECK_THAT(r.out, Catch::Contains("\"mask\": \"none (the file has no pixel_mask)\", \"unmasked\": true, \"masked_pixels\": 0, \"masked_fraction\": 0}"));
    r = run_tool("sparse --overwrite " + masked + " -o " + out + " --cut 2 --cpu --no-mask");
    CHECK_THAT(r.out, Catch::Contains("; unmasked (--no-mask)"));
    r = run_tool("sparse --overwrite " + masked + " -o " + out + " --cut 2 --cpu");
    CHECK_THAT(r.out, !Catch::Contains("; unmasked"));
    const std::string dir = temp_path("options_unmasked_dir");
    std::filesystem::remove_all(dir);
    r = run_tool("sparse --overwrite " + bare + " " + masked + " -o " + dir + "/ --cut 2 --cpu");
    REQUIRE(r.code == 0);
    const std::vector<std::string> lines = lines_of(r.out);
    REQUIRE(lines.size() == 3);
    CHECK_THAT(lines[0], Catch::Contains("; unmasked (the file has no pixel_mask: none at "));
    CHECK_THAT(lines[1], !Catch::Contains("; unmasked"));
}

TEST_CASE("--per-file is taken (one group per data file of a master)", "[sparse-options]") {
    const std::string scan = temp_path("options_per_file.h5"), out = temp_path("options_per_file_out.h5");
    write_options_scan(scan);
    const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 2 --cpu --quiet --per-file");
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK_THAT(run_tool("sparse --overwrite --help").out, Catch::Contains("--per-file"));
}

TEST_CASE("decode and encode take numpy's type names as well as ours", "[sparse-options]") {
    const std::string raw = temp_path("options_types.raw"), a = temp_path("options_types_a"), b = temp_path("options_types_b");
    std::vector<std::uint8_t> pixels = test::random_pixels<float>(1000, 3);
    {
        std::FILE* f = std::fopen(raw.c_str(), "wb");
        REQUIRE(f);
        std::fwrite(pixels.data(), 1, pixels.size(), f);
        std::fclose(f);
    }
    REQUIRE(run_tool("encode --dtype float32 " + raw + " -o " + a).code == 0);
    REQUIRE(run_tool("encode --dtype f32 " + raw + " -o " + b).code == 0);
    CHECK(test::slurp(a) == test::slurp(b));
    REQUIRE(run_tool("decode --dtype uint32 " + a + " -o " + b).code == 0);  // 4 bytes either way
    CHECK(test::slurp(b) == test::slurp(raw));
    REQUIRE(run_tool("decode --dtype f32 " + a + " -o " + b).code == 0);
    CHECK(test::slurp(b) == test::slurp(raw));
    const test::ToolResult r = run_tool("decode --dtype float16 " + a + " -o " + b);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("'float16'") && Catch::Contains("u16 or uint16") && Catch::Contains("f64 or float64"));
    CHECK(tool::parse_type_argument("int8", "--type") == PixelType::i8);
    CHECK(tool::parse_type_argument("float64", "--type") == PixelType::f64);
    CHECK(tool::parse_type_argument("u64", "--type") == PixelType::u64);
}
