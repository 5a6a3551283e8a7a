// run_campaign: one shard's inputs, one scan after another, a line each and a total. A scan that
// fails is reported and the others go on; a stop (Ctrl-C) ends the scan running at a batch end
// and names every scan not done.
#include <sys/stat.h>

#include <chrono>
#include <exception>
#include <filesystem>
#include <memory>
#include <new>

#include "bslz4/error.hpp"
#include "cli/command_line.hpp"
#include "hdf5/finished_output.hpp"
#include "hdf5/matrix_file.hpp"
#include "sparse/output_file.hpp"
#include "sparse/sparse_campaign.hpp"

namespace bslz4::tool {

namespace {

class CampaignRun {
public:
    CampaignRun(const SparseJob& options, const CampaignPlan& plan, Shard shard, const std::atomic<bool>& stop,
                std::FILE* out, std::FILE* err)
        : options_(options), plan_(plan), shard_(shard), stop_(stop), out_(out), err_(err) {
        for (std::size_t i = 0; i < plan.inputs.size(); ++i)
            if (shard.takes(i)) mine_.push_back(i);
    }

    CampaignReport run() {
        refuse_existing_outputs();
        make_folders();
        const SparseJob shared = shared_job();
        const auto start = std::chrono::steady_clock::now();
        std::size_t next = 0;  // into mine_
        for (; next < mine_.size() && !stop_; ++next) {
            SparseJob job = shared;
            job.input = plan_.inputs[mine_[next]];
            job.output = plan_.outputs[mine_[next]];
            if (!run_scan(job)) {
                ++next;
                break;
            }
        }
        for (; next < mine_.size(); ++next) not_started(mine_[next]);
        report_.interrupted = report_.not_done > 0;  // a stop after the last file's last batch loses nothing
        print_total(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return report_;
    }

private:
    // This shard's outputs only: other shards of the job array may have written theirs already.
    void refuse_existing_outputs() const {
        if (options_.overwrite || options_.resume) return;
        std::vector<std::string> existing;
        for (const std::size_t i : mine_) {
            struct stat st {};
            if (lstat(plan_.outputs[i].c_str(), &st) != 0) continue;
            SparseJob job = options_;
            job.input = plan_.inputs[i];
            job.output = plan_.outputs[i];
            // what the output is matters more than that it exists
            if (const std::string refusal = output_over_files_read(job); !refusal.empty()) throw UsageError(refusal);
            existing.push_back(plan_.outputs[i]);
        }
        if (!existing.empty())
            throw UsageError(exists_without_overwrite(existing[0]) +
                             (existing.size() > 1 ? " (and " + std::to_string(existing.size() - 1) + " more outputs of this " +
                                                        (shard_.count > 1 ? "shard" : "campaign") + " exist)"
                                                  : std::string()));
    }

    // The outputs' folders (-o DIR, or each named output's: ImageD11's sparsefiles/); other
    // shards may be making them too.
    void make_folders() const {
        std::vector<std::string> folders;
        if (!plan_.dir.empty() && !mine_.empty()) folders.push_back(plan_.dir);
        if (plan_.dir.empty())
            for (std::size_t i : mine_) {
                const std::string folder = std::filesystem::path(plan_.outputs[i]).parent_path().string();
                if (!folder.empty()) folders.push_back(folder);
            }
        for (const std::string& folder : folders) {
            std::error_code ec;
            std::filesystem::create_directories(folder, ec);
            if (!std::filesystem::is_directory(folder))
                throw Error(ErrorCode::io, (plan_.dir.empty() ? folder : "-o " + folder) + ": cannot create the folder" +
                                               (ec ? ": " + ec.message() : std::string()));
        }
    }

    // One matrix for every scan: read here once (an Eiger 4M matrix file is 72 MB) rather than
    // by each job. One that cannot be read is left to each job, whose input then fails with the
    // error, as without a campaign.
    SparseJob shared_job() const {
        SparseJob shared = options_;
        if (!shared.matrix_spec.empty() && !shared.matrix_read && mine_.size() > 1) {
            try {
                shared.matrix_read = std::make_shared<const MatrixFile>(read_matrix_file(shared.matrix_spec));
            } catch (const Error&) {
            }
        }
        return shared;
    }

    // With --resume, what becomes of a scan whose output exists: left out as done before (it is
    // this scan's finished output), or failed with `problem` (the output is left as it is).
    struct ResumeCheck {
        bool done_before = false;
        std::string problem;
    };
    ResumeCheck resume_check(const SparseJob& job) const {
        struct stat st {};
        try {
            if (lstat(job.output.c_str(), &st) != 0) return {};
            if (const std::string refusal = output_over_files_read(job); !refusal.empty()) throw UsageError(refusal);
            const std::string why = unfinished_because(job.output, job.input, job.cut);
            if (why.empty()) return {true, ""};
            return {false, job.output + " exists but is not this scan's finished output (" + why +
                               "): left as it is; give --overwrite to replace it"};
        } catch (const UsageError&) {
            throw;
        } catch (const std::exception& e) {
            return {false, job.output + " exists but cannot be read as an output (" + std::string(e.what()) + "): left as it is"};
        }
    }

    // One scan, reported; false when it was interrupted (the campaign stops there).
    bool run_scan(const SparseJob& job) {
        const ResumeCheck resume = options_.resume && !options_.overwrite ? resume_check(job) : ResumeCheck{};
        std::string problem = resume.problem;
        if (resume.done_before) {
            ++report_.done_before;
            if (options_.json)
                std::fprintf(out_, "%s\n", JsonLine().add("kind", "scan").add("input", job.input)
                                               .add("output", job.output).add("status", "done_before").str().c_str());
            else if (!options_.quiet)
                std::fprintf(out_, "%s -> %s: done before (complete), not run again\n", job.input.c_str(), job.output.c_str());
            std::fflush(out_);
            return true;
        }
        SparseSummary s;
        if (problem.empty()) try {
            s = run_sparse_file(job, stop_);
        } catch (const std::bad_alloc&) {
            problem = "out of memory";
        } catch (const std::exception& e) {
            problem = scan_problem(job.input, e.what());
        }
        if (!problem.empty()) {
            failed(job, problem);
            return true;
        }
        frames_ += s.frames;
        pixels_ += s.pixels;
        report_bad_frames(s, job.output, err_);
        if (s.interrupted) {
            interrupted(job, s);
            return false;
        }
        ++report_.done;
        report_.with_bad_frames += s.bad_frames > 0;
        if (options_.json)
            std::fprintf(out_, "%s\n", scan_json(s, job).str().c_str());
        else if (!options_.quiet || s.bad_frames)
            std::fprintf(out_, "%s -> %s: %s%s%s\n", job.input.c_str(), job.output.c_str(), scan_summary(s, job).c_str(),
                         s.bad_frames ? "; " : "", bad_frames_summary(s).c_str());
        std::fflush(out_);
        return true;
    }

    void failed(const SparseJob& job, const std::string& problem) {
        ++report_.failed;
        std::fprintf(err_, "bslz4: %s: %s\n", job.input.c_str(), problem.c_str());
        if (options_.json)
            std::fprintf(out_, "%s\n", failed_scan_json(job, problem).str().c_str());
        else
            std::fprintf(out_, "%s: FAILED: %s\n", job.input.c_str(), problem.c_str());
        std::fflush(out_);
    }

    void interrupted(const SparseJob& job, const SparseSummary& s) {
        if (options_.json)
            std::fprintf(out_, "%s\n", scan_json(s, job).str().c_str());
        else
            std::fprintf(out_, "%s -> %s: INTERRUPTED after %zu frames\n", job.input.c_str(), job.output.c_str(), s.frames);
        std::fprintf(err_, "bslz4: interrupted: %s\n", interrupted_note(s, job).c_str());
        std::fprintf(err_, "bslz4: not done: %s (interrupted)\n", job.input.c_str());
        ++report_.not_done;
    }

    void not_started(std::size_t i) {
        ++report_.not_done;
        std::fprintf(err_, "bslz4: not done: %s (not started)\n", plan_.inputs[i].c_str());
        if (options_.json)
            std::fprintf(out_, "%s\n",
                         JsonLine().add("kind", "scan").add("input", plan_.inputs[i]).add("output", plan_.outputs[i])
                             .add("status", "not_done").str().c_str());
    }

    void print_total(double seconds) {
        if (options_.json) {
            JsonLine j;
            j.add("kind", "total").add("shard", std::to_string(shard_.index) + "/" + std::to_string(shard_.count));
            j.add("inputs", mine_.size()).add("done", report_.done).add("failed", report_.failed).add("not_done", report_.not_done);
            j.add("done_before", report_.done_before);
            j.add("with_bad_frames", report_.with_bad_frames).add("frames", frames_).add("pixels", pixels_).add("seconds", seconds);
            j.add("frames_per_s", seconds > 0 ? frames_ / seconds : 0.0)
                .add("exit_code", static_cast<std::size_t>(report_.exit_code()));
            std::fprintf(out_, "%s\n", j.str().c_str());
        } else if (!options_.quiet || report_.exit_code() != 0) {
            const std::string which = shard_.count > 1 ? "shard " + std::to_string(shard_.index) + "/" +
                                                             std::to_string(shard_.count) + ": " + std::to_string(mine_.size()) +
                                                             " of the " + std::to_string(plan_.inputs.size()) + " inputs"
                                                       : std::to_string(mine_.size()) + " inputs";
            std::fprintf(out_,
                         "total (%s): %zu done%s, %zu failed, %zu not done, %zu with bad frames; %zu frames, %zu pixels kept, %.2f s, %s\n",
                         which.c_str(), report_.done,
                         options_.resume ? (" (" + std::to_string(report_.done_before) + " before)").c_str() : "",
                         report_.failed, report_.not_done, report_.with_bad_frames, frames_, pixels_, seconds,
                         frames_per_second(static_cast<double>(frames_), seconds).c_str());
        }
        std::fflush(out_);
    }

    const SparseJob& options_;
    const CampaignPlan& plan_;
    const Shard shard_;
    const std::atomic<bool>& stop_;
    std::FILE* out_;
    std::FILE* err_;
    std::vector<std::size_t> mine_;  // this shard's inputs
    CampaignReport report_;
    std::size_t frames_ = 0, pixels_ = 0;
};

}  // namespace

CampaignReport run_campaign(const SparseJob& options, const CampaignPlan& plan, Shard shard, const std::atomic<bool>& stop,
                            std::FILE* out, std::FILE* err) {
    return CampaignRun(options, plan, shard, stop, out, err).run();
}

}  // namespace bslz4::tool
