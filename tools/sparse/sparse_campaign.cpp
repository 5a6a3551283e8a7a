#include "sparse/sparse_campaign.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "bslz4/error.hpp"
#include "cli/command_line.hpp"
#include "hdf5/matrix_file.hpp"
#include "sparse/output_file.hpp"

namespace bslz4::tool {

namespace {

std::string trimmed(const std::string& s) {
    const char* blanks = " \t\r\n\v\f";
    const std::size_t a = s.find_first_not_of(blanks);
    if (a == std::string::npos) return "";
    return s.substr(a, s.find_last_not_of(blanks) - a + 1);
}

std::string file_name_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// True when both name one existing file (through links or other paths too).
bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {
    }, sb{};
    return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace

std::string scan_problem(const std::string& input, const std::string& what) {
    if (what.rfind(input + ":", 0) == 0) return trimmed(what.substr(input.size() + 1));
    return what;
}

std::string frames_per_second(double frames, double seconds) {
    char text[64];
    std::snprintf(text, sizeof text, "%.0f frames/s", seconds > 0 ? frames / seconds : 0.0);
    return text;
}

std::vector<std::string> read_input_list(const std::string& list_file, const ListLimits& limits) {
    struct stat st {};
    if (stat(list_file.c_str(), &st) != 0) throw UsageError("--list " + list_file + ": cannot read it (" + std::strerror(errno) + ")");
    // a device (/dev/zero, a terminal) has no end to read to; a pipe does, and is bounded below
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        throw UsageError("--list " + list_file + ": not a file of paths (" +
                         (S_ISDIR(st.st_mode) ? "a folder" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a regular file") +
                         ")");
    std::unique_ptr<std::FILE, decltype(&std::fclose)> in(std::fopen(list_file.c_str(), "rb"), &std::fclose);
    if (!in) throw UsageError("--list " + list_file + ": cannot read it (" + std::strerror(errno) + ")");
    std::vector<std::string> paths;
    std::string line;
    std::size_t bytes = 0, number = 1;
    const auto take = [&] {
        line = trimmed(line);
        if (!line.empty() && line[0] != '#') {
            if (paths.size() == limits.inputs)
                throw UsageError("--list " + list_file + ": more than " + std::to_string(limits.inputs) +
                                 " inputs; split the list (--shard shares one list out over a job array)");
            paths.push_back(line);
        }
        line.clear();
        ++number;
    };
    for (int c; (c = std::fgetc(in.get())) != EOF;) {
        if (++bytes > limits.bytes)
            throw UsageError("--list " + list_file + ": longer than " + std::to_string(limits.bytes) +
                             " bytes; not a list of paths, or one to split");
        if (c == '\n') {
            take();
            continue;
        }
        if (c == '\0') throw UsageError("--list " + list_file + ": line " + std::to_string(number) + " holds a NUL byte; not a list of paths");
        line += static_cast<char>(c);
        if (line.size() > limits.line)
            throw UsageError("--list " + list_file + ": line " + std::to_string(number) + " is longer than " +
                             std::to_string(limits.line) + " bytes, the longest path a file system takes");
    }
    if (std::ferror(in.get())) throw UsageError("--list " + list_file + ": cannot read it (" + std::strerror(errno) + ")");
    take();
    if (paths.empty()) throw UsageError("--list " + list_file + " names no input file");
    return paths;
}

Shard parse_shard(const std::string& spec) {
    const std::string expected = "--shard '" + spec +
                                 "': expected K/N, whole numbers with 0 <= K < N "
                                 "(e.g. --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)";
    const std::size_t slash = spec.find('/');
    if (slash == std::string::npos) throw UsageError(expected);
    auto number = [&](const std::string& digits, const char* what) {
        if (digits.empty())
            throw UsageError(expected + ": " + what + " is missing (is the variable that gives it set?)");
        if (digits.find_first_not_of("0123456789") != std::string::npos) throw UsageError(expected);
        errno = 0;
        const unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
        if (errno == ERANGE || v > SIZE_MAX) throw UsageError(expected);
        return static_cast<std::size_t>(v);
    };
    Shard s;
    s.index = number(spec.substr(0, slash), "K");
    s.count = number(spec.substr(slash + 1), "N");
    if (s.count == 0) throw UsageError(expected + ": N is 0");
    if (s.index >= s.count)
        throw UsageError(expected + ": K is " + std::to_string(s.index) + ", past the last shard " +
                         std::to_string(s.count - 1) + " (a job array counts its tasks from 0: --array=0-" +
                         std::to_string(s.count - 1) + ")");
    return s;
}

OnError parse_on_error(const std::string& spec) {
    if (spec == "stop") return OnError::throw_first;
    if (spec == "skip") return OnError::report;
    throw UsageError("--on-error '" + spec + "': expected stop (a bad frame ends the scan) or skip (written with nnz 0, "
                     "listed in bad_frames)");
}

std::string sparse_output_name(const std::string& input, const std::string& dir) {
    std::string name = file_name_of(input);
    const std::size_t dot = name.rfind('.');
    if (dot != std::string::npos && dot > 0) name.resize(dot);
    return (dir.empty() || dir.back() == '/' ? dir : dir + "/") + name + "_sparse.h5";
}

CampaignPlan plan_campaign(const SparseJob& options, const std::vector<std::string>& inputs, const std::string& dir) {
    std::vector<std::string> outputs;
    for (const std::string& input : inputs) {
        if (file_name_of(input).empty()) throw UsageError("input '" + input + "' names a folder, not a file");
        outputs.push_back(sparse_output_name(input, dir));
    }
    // Inputs of one name in different folders (LImA's eiger_0000.h5 in every scan folder):
    // every output then keeps its input's folder name too, DIR/FOLDER_NAME_sparse.h5, as
    // ImageD11 names its sparse files; names that still collide are refused below.
    if (std::set<std::string>(outputs.begin(), outputs.end()).size() != outputs.size())
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const std::string folder = file_name_of(std::filesystem::path(inputs[i]).parent_path().string());
            if (!folder.empty() && folder != "." && folder != "..")
                outputs[i] = sparse_output_name(std::filesystem::path(inputs[i]).parent_path().string() + "/" + folder + "_" +
                                                    file_name_of(inputs[i]),
                                                dir);
        }
    CampaignPlan plan = plan_named_campaign(options, inputs, outputs);
    plan.dir = dir;
    return plan;
}

CampaignPlan plan_named_campaign(const SparseJob& options, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs) {
    CampaignPlan plan;
    std::map<std::string, std::size_t> writer;  // output -> the input that writes it
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::string& input = inputs[i];
        if (file_name_of(input).empty()) throw UsageError("input '" + input + "' names a folder, not a file");
        const std::string& output = outputs.at(i);
        const auto [it, fresh] = writer.emplace(output, plan.inputs.size());
        if (!fresh) {
            const std::string& first = plan.inputs[it->second];
            if (first == input) throw UsageError(input + " is given twice (it would write " + output + " twice)");
            throw UsageError(first + " and " + input + " would both write " + output +
                             ": outputs are named by the input's file name; run inputs with one file name "
                             "in different folders with different -o folders");
        }
        plan.inputs.push_back(input);
        plan.outputs.push_back(output);
    }
    SparseJob job = options;
    for (std::size_t i = 0; i < plan.inputs.size(); ++i) {
        job.input = plan.inputs[i];
        job.output = plan.outputs[i];
        refuse_output_over_inputs(job);
    }
    // An output that is another input of the list (a.h5 and a_sparse.h5 with -o their folder).
    std::map<std::pair<dev_t, ino_t>, std::size_t> input_files;
    for (std::size_t i = 0; i < plan.inputs.size(); ++i) {
        struct stat st {};
        if (stat(plan.inputs[i].c_str(), &st) == 0) input_files.emplace(std::make_pair(st.st_dev, st.st_ino), i);
    }
    for (std::size_t i = 0; i < plan.outputs.size(); ++i) {
        struct stat st {};
        if (stat(plan.outputs[i].c_str(), &st) != 0) continue;
        const auto it = input_files.find({st.st_dev, st.st_ino});
        if (it != input_files.end())
            throw UsageError(plan.outputs[i] + ", the output of " + plan.inputs[i] + ", is the input file " +
                             plan.inputs[it->second] + " of the list; give another -o folder (nothing is written)");
    }
    return plan;
}

void refuse_output_over_inputs(const SparseJob& job) {
    auto check = [&](const std::string& file, const char* what) {
        if (same_file(job.output, file))
            throw UsageError("-o " + job.output + " is the " + what + " (" + file + "); give another output file (" +
                             job.output + " is left unchanged)");
    };
    check(job.input, "input file");
    if (!job.mask_spec.empty()) check(job.mask_spec.substr(0, job.mask_spec.rfind(':')), "--mask file");
    if (!job.use_mask_spec.empty()) check(job.use_mask_spec.substr(0, job.use_mask_spec.rfind(':')), "--use-mask file");
    if (!job.matrix_spec.empty()) check(parse_matrix_spec(job.matrix_spec).file, "--matrix file");
}

SparseSummary run_sparse_file(const SparseJob& job, const std::atomic<bool>& stop) {
    struct stat before {};
    const bool existed = stat(job.output.c_str(), &before) == 0;
    try {
        return run_sparse_job(job, stop);
    } catch (const Error& e) {
        // The output is written under a temporary name and only renamed over -o at the end.
        throw Error(e.code(), std::string(e.what()) + " (" + job.output + (existed ? " is left unchanged)" : " is not written)"));
    }
}

std::string interrupted_note(const SparseSummary& s, const SparseJob& job) {
    struct stat st {};
    const std::string left = job.output + (stat(job.output.c_str(), &st) == 0 ? " is left as it was" : " is not written");
    if (s.incomplete_output.empty()) return "no frame was written; " + left;
    return s.incomplete_output + " holds the " + std::to_string(s.frames) + " frames done (readable; attribute complete = 0); " +
           left;
}

std::string scan_summary(const SparseSummary& s, const SparseJob& job) {
    char text[256];
    std::snprintf(text, sizeof text, "%zu frames, %zu pixels kept, %.2f GB decoded, %.2f s, ", s.frames, s.pixels,
                  s.decoded_bytes / 1e9, s.seconds);
    std::string line = text + frames_per_second(static_cast<double>(s.frames), s.seconds) + " on " + s.decoder;
    if (job.pixels_in_spot > 1)
        line += "; " + std::to_string(s.pixels_not_in_spots) + " pixels not in spots of " + std::to_string(job.pixels_in_spot) +
                " dropped";
    if (job.peaks) {
        char peaks_text[160];
        std::snprintf(peaks_text, sizeof peaks_text, "; %zu peaks (%s), %zu overlaps of consecutive frames, labelled in %.2f s", s.peaks,
                      peaks::algorithm_name(job.peaks->algorithm), s.peak_pairs, s.times.peaks);
        line += peaks_text;
    }
    if (s.frame_pixels) {
        char share[32];
        std::snprintf(share, sizeof share, " (%.2f %%)", 100.0 * static_cast<double>(s.masked_pixels) / static_cast<double>(s.frame_pixels));
        line += "; " + std::to_string(s.masked_pixels) + " pixels masked" + share;
    }
    if (s.unmasked) {
        // mask_source is "none (why)"
        const std::size_t open = s.mask_source.find('('), close = s.mask_source.rfind(')');
        line += "; unmasked";
        if (open != std::string::npos && close > open) line += " (" + s.mask_source.substr(open + 1, close - open - 1);
        for (std::size_t k = 0; k < s.mask_looked_for.size(); ++k)
            line += (k ? " or " : ": none at ") + s.mask_looked_for[k];
        if (open != std::string::npos && close > open) line += ")";
    }
    return line;
}

JsonLine scan_json(const SparseSummary& s, const SparseJob& job) {
    JsonLine j;
    j.add("kind", "scan").add("input", job.input).add("output", job.output).add("status", s.interrupted ? "interrupted" : "done");
    j.add("frames", s.frames).add("pixels", s.pixels).add("pixels_not_in_spots", s.pixels_not_in_spots).add("bad_frames", s.bad_frames);
    if (job.peaks) j.add("peaks", s.peaks).add("peak_pairs", s.peak_pairs).add("peak_seconds", s.times.peaks);
    j.add("decoded_bytes", s.decoded_bytes).add("seconds", s.seconds).add("frames_per_s", s.seconds > 0 ? s.frames / s.seconds : 0.0);
    j.add("decoder", s.decoder).add("mask", s.mask_source).add("unmasked", s.unmasked).add("masked_pixels", s.masked_pixels);
    j.add("masked_fraction", s.frame_pixels ? static_cast<double>(s.masked_pixels) / static_cast<double>(s.frame_pixels) : 0.0);
    return j;
}

JsonLine failed_scan_json(const SparseJob& job, const std::string& error) {
    JsonLine j;
    j.add("kind", "scan").add("input", job.input).add("output", job.output).add("status", "failed").add("error", error);
    return j;
}

std::string bad_frames_summary(const SparseSummary& s) {
    if (s.bad_frames == 0) return "";
    std::string text = std::to_string(s.bad_frames) + (s.bad_frames == 1 ? " bad frame" : " bad frames") +
                       " (nnz 0, in bad_frames): ";
    for (std::size_t k = 0; k < s.first_bad.size(); ++k) {
        const SparseSummary::BadFrame& b = s.first_bad[k];
        text += (k ? ", " : "") + b.dataset + " frame " + std::to_string(b.error.frame) + " (" +
                error_code_name(b.error.code) + ")";
    }
    if (s.bad_frames > s.first_bad.size()) text += " and " + std::to_string(s.bad_frames - s.first_bad.size()) + " more";
    return text;
}

void report_bad_frames(const SparseSummary& s, const std::string& output, std::FILE* err) {
    for (const SparseSummary::BadFrame& b : s.first_bad) std::fprintf(err, "bslz4: %s\n", b.error.message.c_str());
    if (s.bad_frames > s.first_bad.size())
        std::fprintf(err, "bslz4: ... and %zu more bad frame%s, listed in %s's bad_frames\n", s.bad_frames - s.first_bad.size(),
                     s.bad_frames - s.first_bad.size() == 1 ? "" : "s", output.c_str());
}

}  // namespace bslz4::tool
