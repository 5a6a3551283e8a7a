// The sparse job as the in-process tests run it (one scan to one output, on the CPU, cut 4,
// quiet), what a run stopped at its start must leave behind, and the temporaries an output is
// written under.
#pragma once
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "h5_reader.hpp"
#include "sparse/sparse_job.hpp"

namespace bslz4::test {

inline tool::SparseJob cpu_sparse_job(const std::string& scan, const std::string& out) {
    tool::SparseJob job;
    job.input = scan;
    job.output = out;
    job.cut = 4;
    job.where = tool::SparseJob::Where::cpu;
    job.quiet = true;
    job.overwrite = true;  // the tests of the refusal say otherwise
    return job;
}

// Runs `job` (a one-dataset scan of more than 64 frames) with its stop flag raised before it
// starts, as if SIGINT came during the first batch: it finishes that batch of 64 frames and
// keeps them in a readable OUTPUT.incomplete marked complete = 0, the output not written.
inline void check_stopped_after_first_batch(const tool::SparseJob& job) {
    const bool existed = std::filesystem::exists(job.output);
    const auto before = existed ? std::filesystem::last_write_time(job.output) : std::filesystem::file_time_type{};
    const auto size_before = existed ? std::filesystem::file_size(job.output) : 0;
    const std::atomic<bool> stop{true};
    const tool::SparseSummary s = tool::run_sparse_job(job, stop);
    CHECK(s.interrupted);
    CHECK(s.frames == 64);
    // the output is left as it was: still there unchanged, or still not there
    REQUIRE(std::filesystem::exists(job.output) == existed);
    if (existed) {
        CHECK(std::filesystem::last_write_time(job.output) == before);
        CHECK(std::filesystem::file_size(job.output) == size_before);
    }
    REQUIRE(s.incomplete_output == job.output + ".incomplete");
    const H5Reader f(s.incomplete_output);
    CHECK(f.attribute("/entry/data/data", "nframes") == std::vector<std::int64_t>{64});
    CHECK(f.attribute("/entry/data/data", "complete") == std::vector<std::int64_t>{0});
}

// The files beside `path` named after it with ".part" and more: the temporaries SparseOutput
// writes it under (while a run goes on; a finished or failed one leaves none).
inline std::vector<std::string> temporaries_of(const std::string& path) {
    const std::filesystem::path p(path);
    const std::string prefix = p.filename().string() + ".part";
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(p.has_parent_path() ? p.parent_path() : "."))
        if (e.path().filename().string().rfind(prefix, 0) == 0) found.push_back(e.path().string());
    return found;
}

}  // namespace bslz4::test
