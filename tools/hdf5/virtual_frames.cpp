#include "virtual_frames.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <tuple>

namespace bslz4::tool {

namespace {

constexpr std::size_t kRank = 3;

// Frames [first, first + count) of a dataspace.
struct FrameRange {
    std::uint64_t first = 0, count = 0;
};

std::string dims_text(const hsize_t* v, std::size_t n) {
    std::string s = "(";
    for (std::size_t k = 0; k < n; ++k) s += (k ? "," : "") + (v[k] == H5S_UNLIMITED ? std::string("unlimited") : std::to_string(v[k]));
    return s + ")";
}

// A selection in the words h5dump uses, for messages.
std::string describe_selection(hid_t space) {
    const int rank = H5Sget_simple_extent_ndims(space);
    switch (H5Sget_select_type(space)) {
        case H5S_SEL_NONE: return "nothing";
        case H5S_SEL_ALL: return "all";
        case H5S_SEL_POINTS: return std::to_string(H5Sget_select_elem_npoints(space)) + " points";
        case H5S_SEL_HYPERSLABS: {
            if (rank > 0 && rank <= 8 && H5Sis_regular_hyperslab(space) > 0) {
                hsize_t start[8], stride[8], count[8], block[8];
                if (H5Sget_regular_hyperslab(space, start, stride, count, block) >= 0) {
                    const auto n = static_cast<std::size_t>(rank);
                    return "start " + dims_text(start, n) + " stride " + dims_text(stride, n) + " count " + dims_text(count, n) +
                           " block " + dims_text(block, n);
                }
            }
            return std::to_string(H5Sget_select_hyper_nblocks(space)) + " hyperslab blocks";
        }
        default: return "an unknown selection";
    }
}

std::string frames_text(const std::vector<FrameRange>& ranges) {
    if (ranges.empty()) return "no frames";
    std::string s = "frames ";
    for (std::size_t k = 0; k < ranges.size() && k < 4; ++k) {
        if (k) s += ", ";
        s += ranges[k].count == 1 ? std::to_string(ranges[k].first)
                                  : std::to_string(ranges[k].first) + " to " + std::to_string(ranges[k].first + ranges[k].count - 1);
    }
    if (ranges.size() > 4) s += ", ... (" + std::to_string(ranges.size()) + " runs)";
    return s;
}

// The whole frames a selection of a (frames, rows, columns) dataset of `dims` takes, in the order
// HDF5 pairs a mapping's elements (row-major: frame by frame), merged into runs. `what` names
// the selection; anything but whole frames is refused. The dataset's own extent counts, not the
// selection's dataspace: HDF5 records no extent with a selection of all of a source (it takes the
// source's as it is when read), and a hyperslab's only as far as the hyperslab reaches.
std::vector<FrameRange> selected_frames(hid_t space, const hsize_t* dims, const std::string& what) {
    const int rank = H5Sget_simple_extent_ndims(space);
    if (H5Sget_select_type(space) != H5S_SEL_ALL && rank != static_cast<int>(kRank))
        throw Error(ErrorCode::bad_argument, what + " is " + std::to_string(rank) + "-d; (frames, rows, columns) expected");
    const auto not_whole = [&](const std::string& why) {
        return Error(ErrorCode::bad_argument, what + " (" + describe_selection(space) + ") " + why +
                                                  "; only whole frames can be read from their chunks");
    };
    std::vector<FrameRange> ranges;
    switch (H5Sget_select_type(space)) {
        case H5S_SEL_NONE: return ranges;
        case H5S_SEL_ALL:
            if (dims[0]) ranges.push_back({0, dims[0]});
            return ranges;
        case H5S_SEL_POINTS: throw not_whole("selects points, not whole frames");
        case H5S_SEL_HYPERSLABS: break;
        default: throw not_whole("is no selection HDF5 names");
    }
    if (H5Sis_regular_hyperslab(space) > 0) {
        hsize_t start[kRank], stride[kRank], count[kRank], block[kRank];
        if (H5Sget_regular_hyperslab(space, start, stride, count, block) < 0) throw h5::failure(what + ": cannot read its selection");
        for (std::size_t k = 0; k < kRank; ++k)
            if (count[k] == H5S_UNLIMITED || block[k] == H5S_UNLIMITED)
                throw Error(ErrorCode::bad_argument, what + " (" + describe_selection(space) +
                                                         ") is unlimited (a mapping that grows with its sources); only "
                                                         "fixed mappings are read");
    }
    const std::uint64_t frame = dims[1] * dims[2];
    const hssize_t points = H5Sget_select_npoints(space), nblocks = H5Sget_select_hyper_nblocks(space);
    if (points < 0 || nblocks < 0) throw h5::failure(what + ": cannot read its selection");
    if (frame == 0 || static_cast<std::uint64_t>(points) % frame != 0 ||
        static_cast<std::uint64_t>(nblocks) > static_cast<std::uint64_t>(points) / frame)
        throw not_whole("takes " + std::to_string(points) + " pixels in " + std::to_string(nblocks) + " blocks, not whole " +
                        std::to_string(dims[1]) + " x " + std::to_string(dims[2]) + " frames");
    // in pieces, so that no buffer is sized by the selection
    constexpr hsize_t kPiece = 1024;
    std::vector<hsize_t> corners(kPiece * 2 * kRank);
    for (hsize_t at = 0; at < static_cast<hsize_t>(nblocks); at += kPiece) {
        const hsize_t n = std::min<hsize_t>(kPiece, static_cast<hsize_t>(nblocks) - at);
        if (H5Sget_select_hyper_blocklist(space, at, n, corners.data()) < 0) throw h5::failure(what + ": cannot read its selection");
        for (hsize_t b = 0; b < n; ++b) {
            const hsize_t* lo = &corners[b * 2 * kRank];
            const hsize_t* hi = lo + kRank;
            if (lo[1] != 0 || lo[2] != 0 || hi[1] + 1 != dims[1] || hi[2] + 1 != dims[2])
                throw not_whole("takes rows " + std::to_string(lo[1]) + " to " + std::to_string(hi[1]) + " and columns " +
                                std::to_string(lo[2]) + " to " + std::to_string(hi[2]) + " of frames " + std::to_string(lo[0]) +
                                " to " + std::to_string(hi[0]) + ", not whole " + std::to_string(dims[1]) + " x " +
                                std::to_string(dims[2]) + " frames");
            ranges.push_back({lo[0], hi[0] - lo[0] + 1});
        }
    }
    std::sort(ranges.begin(), ranges.end(), [](const FrameRange& x, const FrameRange& y) { return x.first < y.first; });
    std::vector<FrameRange> merged;
    for (const FrameRange& r : ranges) {
        if (!merged.empty() && merged.back().first + merged.back().count == r.first)
            merged.back().count += r.count;
        else
            merged.push_back(r);
    }
    return merged;
}

std::uint64_t frames_in(const std::vector<FrameRange>& ranges) {
    std::uint64_t n = 0;
    for (const FrameRange& r : ranges) n += r.count;
    return n;
}

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

std::string folder_of(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string joined(const std::string& folder, const std::string& name) {
    if (folder.empty()) return name;
    return folder.back() == '/' ? folder + name : folder + "/" + name;
}

std::string expand_origin(const std::string& prefix, const std::string& vds_file) {
    const std::string origin = "${ORIGIN}";
    if (prefix.compare(0, origin.size(), origin) != 0) return prefix;
    std::string folder = folder_of(vds_file);
    if (folder.size() > 1) folder.pop_back();  // its trailing '/'
    return (folder.empty() ? std::string(".") : folder) + prefix.substr(origin.size());
}

bool is_hdf5_file(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    return H5Fis_hdf5(path.c_str()) > 0;
}

// A file's identity, so that one file reached by two names is one source.
std::pair<std::uint64_t, std::uint64_t> file_identity(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return {0, 0};
    return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

}  // namespace

std::string resolve_source_file(const std::string& name, const std::string& vds_file, const std::string& access_prefix,
                                std::vector<std::string>& tried) {
    const auto found = [&](const std::string& path) {
        tried.push_back(path);
        return is_hdf5_file(path);
    };
    std::string relative = name;
    if (!name.empty() && name[0] == '/') {
        if (found(name)) return name;
        relative = name.substr(name.rfind('/') + 1);
    }
    if (const char* env = std::getenv("HDF5_VDS_PREFIX")) {
        const std::string prefixes = env;
        for (std::size_t at = 0; at <= prefixes.size();) {
            const std::size_t colon = std::min(prefixes.find(':', at), prefixes.size());
            const std::string prefix = prefixes.substr(at, colon - at);
            if (!prefix.empty() && found(joined(expand_origin(prefix, vds_file), relative))) return tried.back();
            at = colon + 1;
        }
    }
    if (!access_prefix.empty() && access_prefix != "." && found(joined(expand_origin(access_prefix, vds_file), relative)))
        return tried.back();
    const std::string folder = folder_of(vds_file);
    if (!folder.empty() && found(joined(folder, relative))) return tried.back();
    if (found(relative)) return relative;
    char real[PATH_MAX];
    if (realpath(vds_file.c_str(), real)) {
        const std::string real_folder = folder_of(real);
        if (real_folder != folder && found(joined(real_folder, relative))) return tried.back();
    }
    return "";
}

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
    const auto dims = h5::dataset_shape(vds);
    if (dims.size() != kRank)
        throw Error(ErrorCode::bad_argument, what + ": " + std::to_string(dims.size()) + "-d data; (frames, rows, columns) expected");
    std::size_t mappings = 0;
    if (H5Pget_virtual_count(dcpl.get(), &mappings) < 0) throw h5::failure(what + ": cannot read its virtual mappings");

    const h5::Handle vds_file(H5Iget_file_id(vds), H5Fclose, what + ": no file");
    const ssize_t name_length = H5Fget_name(vds_file.get(), nullptr, 0);
    if (name_length < 0) throw h5::failure(what + ": the name of its file is unknown");
    std::string vds_file_name(static_cast<std::size_t>(name_length) + 1, '\0');
    H5Fget_name(vds_file.get(), vds_file_name.data(), vds_file_name.size());
    vds_file_name.resize(static_cast<std::size_t>(name_length));
    std::string access_prefix;
    {
        const h5::Handle dapl(H5Dget_access_plist(vds), H5Pclose, what + ": no access properties");
        const ssize_t n = H5Pget_virtual_prefix(dapl.get(), nullptr, 0);
        if (n > 0) {
            access_prefix.assign(static_cast<std::size_t>(n) + 1, '\0');
            H5Pget_virtual_prefix(dapl.get(), access_prefix.data(), access_prefix.size());
            access_prefix.resize(static_cast<std::size_t>(n));
        }
    }

    VirtualFrames out;
    std::map<std::tuple<std::uint64_t, std::uint64_t, std::string>, std::size_t> source_of;  // (device, inode, dataset)
    for (std::size_t m = 0; m < mappings; ++m) {
        const std::string file_name = mapping_string(dcpl.get(), m, H5Pget_virtual_filename, what);
        const std::string dataset_name = mapping_string(dcpl.get(), m, H5Pget_virtual_dsetname, what);
        const h5::Handle vspace(H5Pget_virtual_vspace(dcpl.get(), m), H5Sclose, what + ": no VDS selection of mapping " + std::to_string(m));
        const h5::Handle srcspace(H5Pget_virtual_srcspace(dcpl.get(), m), H5Sclose,
                                  what + ": no source selection of mapping " + std::to_string(m));
        const std::string mapping = what + " mapping " + std::to_string(m) + " (" + file_name + ":" + dataset_name + ")";
        const std::vector<FrameRange> vframes = selected_frames(vspace.get(), dims.data(), mapping + ": its VDS selection");
        if (vframes.empty()) continue;
        if (vframes.back().first + vframes.back().count > dims[0])
            throw Error(ErrorCode::bad_argument, mapping + ": maps " + frames_text(vframes) + " of a VDS of " +
                                                     std::to_string(dims[0]) + " frames");
        const std::string described = mapping + " (VDS " + frames_text(vframes) + ")";

        // The source, as HDF5 finds it; a source it cannot find it reads as the fill value.
        const std::string source_file_name = unescape_source_name(file_name, mapping);
        const std::string source_dataset = unescape_source_name(dataset_name, mapping);
        const bool same_file = source_file_name == ".";
        std::string resolved = vds_file_name;
        if (!same_file) {
            std::vector<std::string> tried;
            resolved = resolve_source_file(source_file_name, vds_file_name, access_prefix, tried);
            if (resolved.empty()) {
                std::string list;
                for (const std::string& t : tried) list += (list.empty() ? "" : ", ") + t;
                throw Error(ErrorCode::io, described + ": the source file " + source_file_name + " is not found (looked for " + list +
                                               "); HDF5 would read these frames as the fill value");
            }
        }
        const auto identity = file_identity(resolved);
        const auto key = std::make_tuple(identity.first, identity.second, source_dataset);
        auto known = source_of.find(key);
        if (known == source_of.end()) {
            VirtualSource s;
            s.file_name = resolved;
            s.dataset_path = source_dataset;
            s.what = resolved + ":" + source_dataset;
            hid_t in = vds_file.get();
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
            if (sshape.size() != kRank || sshape[1] != dims[1] || sshape[2] != dims[2]) {
                std::string shape;
                for (std::size_t k = 0; k < sshape.size(); ++k) shape += (k ? " x " : "") + std::to_string(sshape[k]);
                throw Error(ErrorCode::bad_argument, described + ": the source " + s.what + " is " + shape +
                                                         "; (frames, " + std::to_string(dims[1]) + ", " + std::to_string(dims[2]) +
                                                         ") expected");
            }
            known = source_of.emplace(key, out.sources.size()).first;
            out.sources.push_back(std::move(s));
        }
        const VirtualSource& s = out.sources[known->second];
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
            out.runs.push_back({vframes[vi].first + vused, n, known->second, sframes[si].first + sused, m});
            vused += n;
            sused += n;
            if (vused == vframes[vi].count) ++vi, vused = 0;
            if (sused == sframes[si].count) ++si, sused = 0;
        }
    }

    const auto mapping_name = [&](const VirtualRun& r) {
        return "mapping " + std::to_string(r.mapping) + " (" + out.sources[r.source].what + ")";
    };
    // every frame of the VDS from one frame of a source
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
    if (next < dims[0])
        throw Error(ErrorCode::bad_argument, what + ": frames " + std::to_string(next) + " to " + std::to_string(dims[0] - 1) +
                                                 " are in no mapping" + (out.runs.empty() ? " (the VDS has none)" : "") +
                                                 "; HDF5 would read them as the fill value");
    // and no frame of a source read twice (two frames of the VDS would share one chunk)
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
    // runs that go on in the same source as one (some writers map frame by frame)
    std::vector<VirtualRun> merged;
    for (const VirtualRun& r : out.runs) {
        VirtualRun* last = merged.empty() ? nullptr : &merged.back();
        if (last && last->source == r.source && last->first + last->count == r.first && last->source_first + last->count == r.source_first)
            last->count += r.count;
        else
            merged.push_back(r);
    }
    out.runs = std::move(merged);
    return out;
}

}  // namespace bslz4::tool
