#include "virtual_frames.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "vds_selection.hpp"

namespace bslz4::tool {

namespace {

using vds::FrameRange;
using vds::frames_in;
using vds::frames_text;
using vds::kRank;
using vds::selected_frames;

std::string mapping_string(hid_t dcpl, std::size_t m, ssize_t (*get)(hid_t, size_t, char*, size_t), const std::string& what) {
    const ssize_t n = get(dcpl, m, nullptr, 0);
    if (n < 0) throw h5::failure(what + ": cannot read mapping " + std::to_string(m));
    std::string s(static_cast<std::size_t>(n) + 1, '\0');
    get(dcpl, m, s.data(), s.size());
    s.resize(static_cast<std::size_t>(n));
    return s;
}

// A source name as HDF5 reads it: "%%" is "%"; "%b" (the block number of a printf-style mapping)
// has no meaning for a fixed mapping.
std::string unescape_source_name(const std::string& name, const std::string& what) {
    std::string out;
    for (std::size_t k = 0; k < name.size(); ++k) {
        if (name[k] == '%' && k + 1 < name.size() && name[k + 1] == '%') {
            out += '%';
            ++k;
        } else if (name[k] == '%' && k + 1 < name.size() && name[k + 1] == 'b') {
            throw Error(ErrorCode::bad_argument, what + ": the source name '" + name +
                                                     "' is printf-style (%b, one source per block); only fixed mappings are read");
        } else {
            out += name[k];
        }
    }
    return out;
}

// A file's identity, so that one file reached by two names is one source.
std::pair<std::uint64_t, std::uint64_t> file_identity(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return {0, 0};
    return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

// The VDS's own facts every mapping is read against.
struct VdsContext {
    std::string what;
    std::vector<hsize_t> dims;
    h5::Handle file;
    std::string file_name;
    std::string access_prefix;  // the dataset access's virtual prefix
};

VdsContext vds_context(hid_t vds, const std::string& what) {
    VdsContext c;
    c.what = what;
    c.dims = h5::dataset_shape(vds);
    if (c.dims.size() != kRank)
        throw Error(ErrorCode::bad_argument, what + ": " + std::to_string(c.dims.size()) + "-d data; (frames, rows, columns) expected");
    c.file = h5::Handle(H5Iget_file_id(vds), H5Fclose, what + ": no file");
    const ssize_t name_length = H5Fget_name(c.file.get(), nullptr, 0);
    if (name_length < 0) throw h5::failure(what + ": the name of its file is unknown");
    c.file_name.assign(static_cast<std::size_t>(name_length) + 1, '\0');
    H5Fget_name(c.file.get(), c.file_name.data(), c.file_name.size());
    c.file_name.resize(static_cast<std::size_t>(name_length));
    const h5::Handle dapl(H5Dget_access_plist(vds), H5Pclose, what + ": no access properties");
    const ssize_t n = H5Pget_virtual_prefix(dapl.get(), nullptr, 0);
    if (n > 0) {
        c.access_prefix.assign(static_cast<std::size_t>(n) + 1, '\0');
        H5Pget_virtual_prefix(dapl.get(), c.access_prefix.data(), c.access_prefix.size());
        c.access_prefix.resize(static_cast<std::size_t>(n));
    }
    return c;
}

// The sources met so far, each once however many mappings (and names) reach it.
class SourceTable {
public:
    SourceTable(const VdsContext& vds, VirtualFrames& out) : vds_(vds), out_(out) {}

    // The index in out.sources of the source a mapping names (`described` for messages), found
    // as HDF5 finds it, opened and checked the first time; a source HDF5 cannot find it reads
    // as the fill value, so that is refused.
    std::size_t find(const std::string& file_name, const std::string& source_dataset, const std::string& described) {
        const bool same_file = file_name == ".";
        const std::string resolved = same_file ? vds_.file_name : resolved_file(file_name, described);
        const auto identity = file_identity(resolved);
        const auto key = std::make_tuple(identity.first, identity.second, source_dataset);
        if (const auto known = index_.find(key); known != index_.end()) return known->second;
        out_.sources.push_back(open_source(resolved, source_dataset, same_file, described));
        index_.emplace(key, out_.sources.size() - 1);
        return out_.sources.size() - 1;
    }

private:
    std::string resolved_file(const std::string& file_name, const std::string& described) const {
        std::vector<std::string> tried;
        const std::string resolved = resolve_source_file(file_name, vds_.file_name, vds_.access_prefix, tried);
        if (resolved.empty()) {
            std::string list;
            for (const std::string& t : tried) list += (list.empty() ? "" : ", ") + t;
            throw Error(ErrorCode::io, described + ": the source file " + file_name + " is not found (looked for " + list +
                                           "); HDF5 would read these frames as the fill value");
        }
        return resolved;
    }

    VirtualSource open_source(const std::string& resolved, const std::string& source_dataset, bool same_file,
                              const std::string& described) const {
        VirtualSource s;
        s.file_name = resolved;
        s.dataset_path = source_dataset;
        s.what = resolved + ":" + source_dataset;
        hid_t in = vds_.file.get();
        if (!same_file) {
            s.file = h5::open_file(resolved);
            in = s.file.get();
        }
        if (!h5::exists(in, source_dataset))
            throw Error(ErrorCode::io, described + ": " + resolved + " has no dataset " + source_dataset +
                                           "; HDF5 would read these frames as the fill value");
        s.dataset = h5::open_dataset(in, source_dataset, resolved);
        if (is_virtual(s.dataset.get()))
            throw Error(ErrorCode::bad_argument, described + ": the source " + s.what +
                                                     " is itself a virtual dataset; a VDS of VDSs is not followed");
        const auto sshape = h5::dataset_shape(s.dataset.get());
        if (sshape.size() != kRank || sshape[1] != vds_.dims[1] || sshape[2] != vds_.dims[2]) {
            std::string shape;
            for (std::size_t k = 0; k < sshape.size(); ++k) shape += (k ? " x " : "") + std::to_string(sshape[k]);
            throw Error(ErrorCode::bad_argument, described + ": the source " + s.what + " is " + shape + "; (frames, " +
                                                     std::to_string(vds_.dims[1]) + ", " + std::to_string(vds_.dims[2]) +
                                                     ") expected");
        }
        return s;
    }

    const VdsContext& vds_;
    VirtualFrames& out_;
    std::map<std::tuple<std::uint64_t, std::uint64_t, std::string>, std::size_t> index_;  // (device, inode, dataset)
};

// Mapping m's frames as runs in out.runs, its source found (and opened) through `sources`.
void add_mapping(hid_t dcpl, std::size_t m, const VdsContext& vds, SourceTable& sources, VirtualFrames& out) {
    const std::string& what = vds.what;
    const std::string file_name = mapping_string(dcpl, m, H5Pget_virtual_filename, what);
    const std::string dataset_name = mapping_string(dcpl, m, H5Pget_virtual_dsetname, what);
    const h5::Handle vspace(H5Pget_virtual_vspace(dcpl, m), H5Sclose, what + ": no VDS selection of mapping " + std::to_string(m));
    const h5::Handle srcspace(H5Pget_virtual_srcspace(dcpl, m), H5Sclose,
                              what + ": no source selection of mapping " + std::to_string(m));
    const std::string mapping = what + " mapping " + std::to_string(m) + " (" + file_name + ":" + dataset_name + ")";
    const std::vector<FrameRange> vframes = selected_frames(vspace.get(), vds.dims.data(), mapping + ": its VDS selection");
    if (vframes.empty()) return;
    if (vframes.back().first + vframes.back().count > vds.dims[0])
        throw Error(ErrorCode::bad_argument, mapping + ": maps " + frames_text(vframes) + " of a VDS of " +
                                                 std::to_string(vds.dims[0]) + " frames");
    const std::string described = mapping + " (VDS " + frames_text(vframes) + ")";
    const std::size_t source = sources.find(unescape_source_name(file_name, mapping),
                                            unescape_source_name(dataset_name, mapping), described);
    const VirtualSource& s = out.sources[source];
    const auto sdims = h5::dataset_shape(s.dataset.get());
    const std::vector<FrameRange> sframes = selected_frames(srcspace.get(), sdims.data(), mapping + ": its source selection");
    const std::uint64_t nv = frames_in(vframes), ns = frames_in(sframes);
    const bool takes_all = H5Sget_select_type(srcspace.get()) == H5S_SEL_ALL;
    if (!sframes.empty() && sframes.back().first + sframes.back().count > sdims[0])
        throw Error(ErrorCode::bad_argument, described + ": takes source " + frames_text(sframes) + ", but " + s.what + " has " +
                                                 std::to_string(sdims[0]) +
                                                 " frames; HDF5 would read the frames past them as the fill value (a scan cut short?)");
    if (nv != ns)
        throw Error(ErrorCode::bad_argument,
                    described + ": " + std::to_string(nv) + " frames of the VDS from " +
                        (takes_all ? "all of " + s.what + ", which has " + std::to_string(ns) + " (a scan cut short?)"
                                   : "source " + frames_text(sframes) + " (" + std::to_string(ns) + " frames)"));
    // pair the k-th frame of one selection with the k-th of the other
    std::size_t vi = 0, si = 0;
    std::uint64_t vused = 0, sused = 0;
    while (vi < vframes.size()) {
        const std::uint64_t n = std::min(vframes[vi].count - vused, sframes[si].count - sused);
        out.runs.push_back({vframes[vi].first + vused, n, source, sframes[si].first + sused, m});
        vused += n;
        sused += n;
        if (vused == vframes[vi].count) ++vi, vused = 0;
        if (sused == sframes[si].count) ++si, sused = 0;
    }
}

// Every frame of the VDS from one frame of a source (out.runs sorted here by frame).
void check_every_frame_mapped_once(VirtualFrames& out, std::uint64_t frames, const std::string& what) {
    const auto mapping_name = [&](const VirtualRun& r) {
        return "mapping " + std::to_string(r.mapping) + " (" + out.sources[r.source].what + ")";
    };
    std::sort(out.runs.begin(), out.runs.end(), [](const VirtualRun& x, const VirtualRun& y) { return x.first < y.first; });
    std::uint64_t next = 0;
    for (std::size_t k = 0; k < out.runs.size(); ++k) {
        const VirtualRun& r = out.runs[k];
        if (r.first < next)
            throw Error(ErrorCode::bad_argument, what + ": frame " + std::to_string(r.first) + " is mapped twice, by " +
                                                     mapping_name(out.runs[k - 1]) + " and " + mapping_name(r) +
                                                     "; HDF5 would read the last mapping's");
        if (r.first > next)
            throw Error(ErrorCode::bad_argument, what + ": frames " + std::to_string(next) + " to " + std::to_string(r.first - 1) +
                                                     " are in no mapping; HDF5 would read them as the fill value");
        next = r.first + r.count;
    }
    if (next < frames)
        throw Error(ErrorCode::bad_argument, what + ": frames " + std::to_string(next) + " to " + std::to_string(frames - 1) +
                                                 " are in no mapping" + (out.runs.empty() ? " (the VDS has none)" : "") +
                                                 "; HDF5 would read them as the fill value");
}

// No frame of a source read twice (two frames of the VDS would share one chunk).
void check_source_frames_used_once(const VirtualFrames& out, const std::string& what) {
    std::vector<const VirtualRun*> by_source;
    for (const VirtualRun& r : out.runs) by_source.push_back(&r);
    std::sort(by_source.begin(), by_source.end(), [](const VirtualRun* x, const VirtualRun* y) {
        return std::tie(x->source, x->source_first) < std::tie(y->source, y->source_first);
    });
    for (std::size_t k = 1; k < by_source.size(); ++k) {
        const VirtualRun& a = *by_source[k - 1];
        const VirtualRun& b = *by_source[k];
        if (a.source == b.source && a.source_first + a.count > b.source_first) {
            const std::uint64_t j = b.source_first;
            throw Error(ErrorCode::bad_argument, what + ": frame " + std::to_string(j) + " of " + out.sources[a.source].what +
                                                     " is mapped to frames " + std::to_string(a.first + (j - a.source_first)) +
                                                     " and " + std::to_string(b.first) +
                                                     " of the VDS; each source frame may be mapped once");
        }
    }
}

// Runs that go on in the same source as one (some writers map frame by frame).
std::vector<VirtualRun> merged_runs(const std::vector<VirtualRun>& runs) {
    std::vector<VirtualRun> merged;
    for (const VirtualRun& r : runs) {
        VirtualRun* last = merged.empty() ? nullptr : &merged.back();
        if (last && last->source == r.source && last->first + last->count == r.first && last->source_first + last->count == r.source_first)
            last->count += r.count;
        else
            merged.push_back(r);
    }
    return merged;
}

}  // namespace

const VirtualRun& VirtualFrames::run_of(std::uint64_t f) const {
    auto it = std::upper_bound(runs.begin(), runs.end(), f, [](std::uint64_t x, const VirtualRun& r) { return x < r.first; });
    return *(it - 1);
}

bool is_virtual(hid_t dataset) {
    const h5::Handle plist(H5Dget_create_plist(dataset), H5Pclose, "dataset creation properties");
    return H5Pget_layout(plist.get()) == H5D_VIRTUAL;
}

VirtualFrames follow_virtual(hid_t vds, const std::string& what) {
    const h5::Handle dcpl(H5Dget_create_plist(vds), H5Pclose, what + ": no creation properties");
    const VdsContext context = vds_context(vds, what);
    std::size_t mappings = 0;
    if (H5Pget_virtual_count(dcpl.get(), &mappings) < 0) throw h5::failure(what + ": cannot read its virtual mappings");
    VirtualFrames out;
    SourceTable sources(context, out);
    for (std::size_t m = 0; m < mappings; ++m) add_mapping(dcpl.get(), m, context, sources, out);
    check_every_frame_mapped_once(out, context.dims[0], what);
    check_source_frames_used_once(out, what);
    out.runs = merged_runs(out.runs);
    return out;
}

}  // namespace bslz4::tool
