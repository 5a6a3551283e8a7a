// bslz4._scan: `bslz4 sparse`'s job (tools/sparse/sparse_job.hpp) for Python's bslz4.sparse_scan, one
// input file to one output file with the command's options. A module of its own because it
// carries HDF5 (the job's reader and writer): `import bslz4` loads no HDF5 of ours beside h5py's.
// The GIL is released for the whole job and taken back only for the progress callback, which
// runs on the calling thread after each batch; Ctrl-C (or the callback returning False or
// raising) stops the job after the batch in hand, keeping what was written as the command does.
#include <dlfcn.h>
#include <hdf5.h>
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bslz4/error.hpp"
#include "cli/command_line.hpp"
#include "cli/device_list.hpp"
#include "cli/frame_selection.hpp"
#include "hdf5/imaged11_dataset.hpp"
#include "hdf5/list_compression.hpp"
#include "hdf5/matrix_file.hpp"
#include "module_parts.hpp"
#include "sparse/output_file.hpp"
#include "sparse/sparse_campaign.hpp"
#include "sparse/sparse_job.hpp"

namespace py = pybind11;

namespace bslz4::python {

namespace {

using tool::SparseJob;
using tool::SparseSummary;

// The job's notices (stale temporaries removed, a mask covering most of the frame), gathered
// while the GIL is released and handed to Python's warnings afterwards.
class NoticeBuffer {
public:
    NoticeBuffer() : file_(open_memstream(&text_, &size_)) {}
    ~NoticeBuffer() {
        if (file_) std::fclose(file_);
        std::free(text_);
    }
    NoticeBuffer(const NoticeBuffer&) = delete;
    NoticeBuffer& operator=(const NoticeBuffer&) = delete;
    std::FILE* file() const { return file_; }
    std::string text() {
        if (!file_) return {};
        std::fflush(file_);
        return std::string(text_ ? text_ : "", size_);
    }

private:
    char* text_ = nullptr;
    std::size_t size_ = 0;
    std::FILE* file_;
};

py::dict summary_dict(const SparseSummary& s, const SparseJob& job, const std::string& notices) {
    py::dict d;
    d["output"] = job.output;
    d["frames"] = s.frames;
    d["pixels"] = s.pixels;
    d["pixels_not_in_spots"] = s.pixels_not_in_spots;
    d["seconds"] = s.seconds;
    d["frames_per_s"] = s.seconds > 0 ? static_cast<double>(s.frames) / s.seconds : 0.0;
    d["steady_frames_per_s"] = s.steady_frames_per_s();
    d["decoder"] = s.decoder;
    d["frames_per_gpu"] = s.frames_per_gpu;
    d["mask_source"] = s.mask_source;
    d["unmasked"] = s.unmasked;
    d["masked_pixels"] = s.masked_pixels;
    d["frame_pixels"] = s.frame_pixels;
    d["bad_frames"] = s.bad_frames;
    py::list first_bad;
    for (const SparseSummary::BadFrame& b : s.first_bad)
        first_bad.append(py::make_tuple(b.dataset, b.error.frame, b.error.message));
    d["first_bad_frames"] = first_bad;
    d["interrupted"] = s.interrupted;
    d["incomplete_output"] = s.incomplete_output;
    d["summary"] = tool::scan_summary(s, job);
    d["notices"] = notices;
    return d;
}

// Raised as the extension raises the library's errors; a usage mistake is a ValueError.
[[noreturn]] void raise_job_error(const Error& e) {
    raise_python(e);
    throw py::error_already_set();
}

py::dict run_scan(const std::string& input, const std::string& output, double cut, const std::string& dataset,
                  const std::string& mask, const std::string& use_mask, bool no_mask, const std::string& matrix,
                  const std::string& acc, const std::string& frames, const std::string& where,
                  const std::optional<std::string>& devices, bool overwrite, bool per_file,
                  const std::string& compression, const std::string& on_error, std::optional<std::size_t> howmany,
                  std::optional<std::vector<double>> thresholds, std::size_t pixels_in_spot, unsigned readers,
                  bool bar, const std::string& call, py::object progress) {
    SparseJob job;
    job.input = input;
    job.output = output;
    job.dataset = dataset;
    job.cut = cut;
    job.mask_spec = mask;
    job.use_mask_spec = use_mask;
    job.no_mask = no_mask;
    job.matrix_spec = matrix;
    job.frames_spec = frames;
    job.overwrite = overwrite;
    job.per_file = per_file;
    job.howmany = howmany;
    job.thresholds = std::move(thresholds);
    job.pixels_in_spot = pixels_in_spot;
    job.reader_threads = readers;
    job.quiet = !bar;
    job.command_line = call;
    try {
        job.acc = parse_accumulator(acc);
        tool::parse_frame_selection(job.frames_spec);
        if (!job.matrix_spec.empty()) tool::parse_matrix_spec(job.matrix_spec);
        if (!tool::parse_list_compression(compression, job.compression))
            throw Error(ErrorCode::bad_argument, "--compression '" + compression + "': bitshuffle-lz4, deflate or none");
        job.on_error = tool::parse_on_error(on_error);
        job.where = where == "cpu" ? SparseJob::Where::cpu : where == "gpu" ? SparseJob::Where::gpu : SparseJob::Where::any;
        if (devices) job.devices = tool::resolve_devices(tool::parse_device_list(*devices), *devices);
        tool::refuse_output_over_inputs(job);
        if (const std::string refusal = tool::output_over_files_read(job); !refusal.empty())
            throw Error(ErrorCode::bad_argument, refusal);
        tool::output_target(job.output, job.overwrite);
    } catch (const tool::UsageError& e) {
        raise_job_error(Error(ErrorCode::bad_argument, e.what()));
    } catch (const Error& e) {
        raise_job_error(e);
    }

    // Ctrl-C, or the callback asking to stop: the job stops after the batch in hand.
    std::atomic<bool> stop{false};
    std::unique_ptr<py::error_already_set> raised;  // the callback's exception, raised once the job is done
    const bool callback = !progress.is_none();
    job.on_batch = [&](std::size_t done, std::size_t total) {
        py::gil_scoped_acquire gil;
        if (raised) return;
        try {
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            if (callback && progress(done, total).is(py::bool_(false))) stop = true;
        } catch (py::error_already_set& e) {
            raised = std::make_unique<py::error_already_set>(std::move(e));
            stop = true;
        }
    };
    NoticeBuffer notices;
    job.notices = notices.file();
    SparseSummary s;
    try {
        py::gil_scoped_release nogil;
        s = tool::run_sparse_file(job, stop);
    } catch (const tool::UsageError& e) {
        raise_job_error(Error(ErrorCode::bad_argument, e.what()));
    } catch (const Error& e) {
        raise_job_error(e);
    }
    const std::string notes = notices.text();
    if (!notes.empty()) PyErr_WarnEx(PyExc_RuntimeWarning, notes.c_str(), 1);
    if (raised) {
        if (!s.incomplete_output.empty()) {
            const std::string note = "bslz4.sparse_scan stopped: " + tool::interrupted_note(s, job);
            PyErr_WarnEx(PyExc_RuntimeWarning, note.c_str(), 1);
        }
        raised->restore();
        throw py::error_already_set();
    }
    return summary_dict(s, job, notes);
}

// In a wheel, auditwheel grafts a libhdf5 of its own beside the module (bslz4.libs/). A filter
// plugin of the host (Debian's bitshuffle package) links the host's libhdf5, a second HDF5 in
// the process whose calls back from the plugin do not know the first's objects, and the job's
// output then fails ("cannot create dataset row (HDF5: error during user callback)"). That copy
// loads no plugins: the job needs none (it reads and writes chunks raw).
void keep_host_plugins_from_the_wheels_hdf5() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&H5open), &info) && info.dli_fname && std::strstr(info.dli_fname, "bslz4.libs/"))
        H5PLset_loading_state(0);
}

}  // namespace

}  // namespace bslz4::python

PYBIND11_MODULE(_scan, m) {
    bslz4::python::keep_host_plugins_from_the_wheels_hdf5();
    m.doc() = "bslz4 sparse's job for bslz4.sparse_scan; use bslz4.sparse_scan, not this module";
    m.def("run", &bslz4::python::run_scan, py::arg("input"), py::arg("output"), py::arg("cut"), py::arg("dataset"),
          py::arg("mask"), py::arg("use_mask"), py::arg("no_mask"), py::arg("matrix"), py::arg("acc"), py::arg("frames"),
          py::arg("where"), py::arg("devices"), py::arg("overwrite"), py::arg("per_file"), py::arg("compression"),
          py::arg("on_error"), py::arg("howmany"), py::arg("thresholds"), py::arg("pixels_in_spot"), py::arg("readers"),
          py::arg("bar"), py::arg("call"), py::arg("progress"));
    m.def("imaged11_defaults", [] {
        py::dict d;
        d["howmany"] = bslz4::tool::kImageD11Howmany;
        d["pixels_in_spot"] = bslz4::tool::kImageD11PixelsInSpot;
        d["thresholds"] = bslz4::tool::kImageD11Thresholds;
        return d;
    });
}
