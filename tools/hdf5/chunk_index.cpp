#include "chunk_index.hpp"

#include <dlfcn.h>
#include <hdf5.h>

#include <algorithm>
#include <utility>

namespace bslz4::tool {

namespace {

// The chunks wanted of one source: (frame in the source, position in the index), by frame.
using Wanted = std::vector<std::pair<std::uint64_t, std::size_t>>;

struct IterState {
    const Wanted* wanted = nullptr;
    std::vector<ChunkLocation>* chunks = nullptr;
    std::vector<std::uint8_t>* seen = nullptr;  // by place in wanted
};

// The callback's mask and size types differ between releases: deduced from the iterator's type.
template <class Mask, class Size>
int chunk_seen(const hsize_t* offset, Mask filter_mask, haddr_t address, Size bytes, void* state) {
    auto& s = *static_cast<IterState*>(state);
    const hsize_t frame = offset[0];  // chunks are one frame deep: scaled or not, the same
    const auto it = std::lower_bound(s.wanted->begin(), s.wanted->end(), std::make_pair(static_cast<std::uint64_t>(frame), std::size_t{0}));
    if (it != s.wanted->end() && it->first == frame) {
        ChunkLocation& c = (*s.chunks)[it->second];
        c.address = static_cast<std::uint64_t>(address);
        c.bytes = static_cast<std::uint64_t>(bytes);
        c.filter_mask = static_cast<std::uint32_t>(filter_mask);
        (*s.seen)[static_cast<std::size_t>(it - s.wanted->begin())] = 1;
    }
    return H5_ITER_CONT;
}

// H5Dchunk_iter came with HDF5 1.10.10, 1.12.3 and 1.14.0. Built against headers that have it,
// it is called as they declare it; built against older ones (Debian 12's 1.10.8, say), it is
// looked up in the library loaded at run time, which is a release of the same series (the same
// soname) and so declares it as 1.10.10 and 1.12.3 do: without it there, a long scan's chunks
// would be read through HDF5 under its lock (Ubuntu 24.04's 1.10.10 has it: a 10,000-frame
// sparse scan ran 3.9 x faster read by position on the H200 host). Only for headers of the 1.10
// and 1.12 series, whose later releases declare it so; other headers (1.13's development
// releases) do without.
#if H5_VERSION_GE(1, 14, 0) || (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 12 && H5_VERS_RELEASE >= 3) || \
    (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 10)
using ChunkIter = decltype(&H5Dchunk_iter);
ChunkIter find_chunk_iter() { return &H5Dchunk_iter; }
template <class Mask, class Size>
herr_t iterate_chunks(ChunkIter iter, hid_t dataset, int (*)(const hsize_t*, Mask, haddr_t, Size, void*), IterState& state) {
    return iter(dataset, H5P_DEFAULT, &chunk_seen<Mask, Size>, &state);
}
herr_t iterate_chunks(ChunkIter iter, hid_t dataset, IterState& state) {
    return iterate_chunks(iter, dataset, H5D_chunk_iter_op_t{}, state);
}
#else
using ChunkOp = int (*)(const hsize_t*, unsigned, haddr_t, hsize_t, void*);
using ChunkIter = herr_t (*)(hid_t, hid_t, ChunkOp, void*);
// Looked up in the library that holds the HDF5 calls this program makes (the one H5Dopen2 is
// in), not wherever the name comes first: another HDF5 in the process (a Python package's, say)
// must not be handed this one's identifiers. Where H5Dopen2's address is the program's own (code
// built without -fPIC or -fPIE calls through its own stub), the program's search order finds it.
ChunkIter find_chunk_iter() {
#if H5_VERS_MAJOR == 1 && (H5_VERS_MINOR == 10 || H5_VERS_MINOR == 12)
    static const ChunkIter iter = [] {
        Dl_info info{};
        if (!dladdr(reinterpret_cast<void*>(&H5Dopen2), &info) || !info.dli_fname) return ChunkIter{};
        void* library = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);  // already loaded: this only finds it
        if (!library) return reinterpret_cast<ChunkIter>(dlsym(RTLD_DEFAULT, "H5Dchunk_iter"));
        const auto found = reinterpret_cast<ChunkIter>(dlsym(library, "H5Dchunk_iter"));
        dlclose(library);  // the library stays: the program is linked with it
        return found;
    }();
    return iter;
#else
    return nullptr;
#endif
}
herr_t iterate_chunks(ChunkIter iter, hid_t dataset, IterState& state) {
    return iter(dataset, H5P_DEFAULT, &chunk_seen<unsigned, hsize_t>, &state);
}
#endif

std::uint64_t user_block_bytes(hid_t file, const std::string& what) {
    const h5::Handle plist(H5Fget_create_plist(file), H5Pclose, what + ": no file creation properties");
    hsize_t bytes = 0;
    if (H5Pget_userblock(plist.get(), &bytes) < 0) throw h5::failure(what + ": no user block size");
    return bytes;
}

// HDF5 before 1.14.4 reports chunk addresses from the end of the file's user block (HDF5 pull
// request 4236 made H5Dchunk_iter and H5Dget_chunk_info add it); the library in use decides.
bool addresses_after_user_block() {
    unsigned major = 0, minor = 0, release = 0;
    H5get_libversion(&major, &minor, &release);
    return major == 1 && (minor < 14 || (minor == 14 && release < 4));
}

// A frame never written has no bytes at all: a chunk that ends before its header.
Error not_stored(const ChunkIndex& index, std::size_t k) {
    return Error(ErrorCode::truncated_chunk, chunk_what(index, k) + ": the chunk is not stored (the frame was never written)");
}

// A dataset (`what`) joins the index's sources, and its file the index's files; its number.
std::uint32_t add_source(ChunkIndex& index, std::vector<std::uint64_t>& bases, hid_t dataset, const std::string& what) {
    const h5::Handle file(H5Iget_file_id(dataset), H5Fclose, what + ": no file");
    const ssize_t name_length = H5Fget_name(file.get(), nullptr, 0);
    if (name_length < 0) throw h5::failure(what + ": the name of the file holding the chunks is unknown");
    std::vector<char> name(static_cast<std::size_t>(name_length) + 1);
    H5Fget_name(file.get(), name.data(), name.size());
    ChunkSource source{what, dataset, 0, true};
    const auto same = std::find_if(index.files.begin(), index.files.end(), [&](const ChunkFile& f) { return f.path == name.data(); });
    source.file = static_cast<std::size_t>(same - index.files.begin());
    if (same == index.files.end()) {
        hsize_t file_bytes = 0;
        if (H5Fget_filesize(file.get(), &file_bytes) < 0) throw h5::failure(what + ": the file's size is unknown");
        index.files.push_back({name.data(), file_bytes});
        bases.push_back(addresses_after_user_block() ? user_block_bytes(file.get(), what) : 0);
    }
    index.sources.push_back(std::move(source));
    return static_cast<std::uint32_t>(index.sources.size() - 1);
}

// The chunks of source s that the index wants, from the source's chunk index.
void index_source(ChunkIndex& index, std::uint32_t s, Wanted wanted, std::size_t per_chunk_limit) {
    ChunkSource& source = index.sources[s];
    const hid_t dataset = source.dataset;
    std::sort(wanted.begin(), wanted.end());
    const ChunkIter iter = per_chunk_limit ? find_chunk_iter() : nullptr;  // 0: through HDF5, always
    if (iter) {
        std::vector<std::uint8_t> seen(wanted.size(), 0);
        IterState state{&wanted, &index.chunks, &seen};
        if (iterate_chunks(iter, dataset, state) < 0) throw h5::failure(source.what + ": cannot read the chunk index");
        for (std::size_t w = 0; w < seen.size(); ++w)
            if (!seen[w]) throw not_stored(index, wanted[w].second);
        return;
    }
    source.by_position = wanted.size() <= per_chunk_limit;
    for (const auto& [frame, k] : wanted) {
        const hsize_t offset[3] = {frame, 0, 0};
        ChunkLocation& c = index.chunks[k];
        if (source.by_position) {
            unsigned mask = 0;
            haddr_t address = HADDR_UNDEF;
            hsize_t bytes = 0;
            if (H5Dget_chunk_info_by_coord(dataset, offset, &mask, &address, &bytes) < 0)
                throw h5::failure(chunk_what(index, k) + ": cannot read the chunk index");
            if (address == HADDR_UNDEF) throw not_stored(index, k);
            c.address = static_cast<std::uint64_t>(address);
            c.bytes = bytes;
            c.filter_mask = mask;
        } else {
            hsize_t bytes = 0;
            if (H5Dget_chunk_storage_size(dataset, offset, &bytes) < 0) {
                // HDF5 1.10 fails here for a chunk never written (later releases give 0 bytes)
                unsigned mask = 0;
                haddr_t address = HADDR_UNDEF;
                if (H5Dget_chunk_info_by_coord(dataset, offset, &mask, &address, &bytes) >= 0 && address == HADDR_UNDEF)
                    throw not_stored(index, k);
                throw h5::failure(chunk_what(index, k) + ": chunk not stored");
            }
            if (bytes == 0) throw not_stored(index, k);
            c.bytes = bytes;
        }
    }
}

// Chunks never share bytes: an index whose extents overlap lies, and would let a batch of
// chunks (and the buffers sized for it) grow past the file's size.
void refuse_overlaps(const ChunkIndex& index) {
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < index.chunks.size(); ++k)
        if (index.sources[index.chunks[k].source].by_position) order.push_back(k);
    const auto file_of = [&](std::size_t k) { return index.sources[index.chunks[k].source].file; };
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return std::make_pair(file_of(x), index.chunks[x].address) < std::make_pair(file_of(y), index.chunks[y].address);
    });
    for (std::size_t k = 1; k < order.size(); ++k) {
        if (file_of(order[k - 1]) != file_of(order[k])) continue;
        const ChunkLocation& before = index.chunks[order[k - 1]];
        const ChunkLocation& after = index.chunks[order[k]];
        if (before.address + before.bytes > after.address)
            throw Error(ErrorCode::truncated_chunk,  // one of the two is cut short by the other, as a chunk sized past the file
                        chunk_what(index, order[k]) + ": the chunk index puts its chunk (bytes " + std::to_string(after.address) +
                            " to " + std::to_string(after.address + after.bytes) + ") over frame " +
                            std::to_string(index.first_frame + order[k - 1]) + "'s (bytes " + std::to_string(before.address) +
                            " to " + std::to_string(before.address + before.bytes) + ")");
    }
}

}  // namespace

bool chunk_index_in_one_pass() { return find_chunk_iter() != nullptr; }

std::string chunk_what(const ChunkIndex& index, std::size_t k) {
    std::string s = index.what + " frame " + std::to_string(index.first_frame + k);
    if (index.virtual_frames) {
        const ChunkLocation& c = index.chunks[k];
        s += " (" + index.sources[c.source].what + " frame " + std::to_string(c.source_frame) + ")";
    }
    return s;
}

ChunkIndex read_chunk_index(hid_t dataset, std::size_t a, std::size_t b, const std::string& what, std::uint64_t largest_valid,
                            std::size_t per_chunk_limit) {
    ChunkIndex index;
    index.what = what;
    index.first_frame = a;
    index.chunks.resize(b - a);
    std::vector<std::uint64_t> bases;  // per file: where its chunk addresses count from
    std::vector<Wanted> wanted;        // per source
    if (is_virtual(dataset)) {
        auto frames = std::make_shared<const VirtualFrames>(follow_virtual(dataset, what));
        index.virtual_frames = frames;
        std::vector<std::uint32_t> source_of(frames->sources.size(), UINT32_MAX);  // VDS source -> index source
        for (std::size_t f = a; f < b;) {
            const VirtualRun& r = frames->run_of(f);
            std::uint32_t& s = source_of[r.source];
            if (s == UINT32_MAX) {
                s = add_source(index, bases, frames->sources[r.source].dataset.get(), frames->sources[r.source].what);
                wanted.emplace_back();
            }
            for (; f < b && f < r.first + r.count; ++f) {
                ChunkLocation& c = index.chunks[f - a];
                c.source = s;
                c.source_frame = r.source_first + (f - r.first);
                wanted[s].emplace_back(c.source_frame, f - a);
            }
        }
    } else {
        add_source(index, bases, dataset, what);
        wanted.emplace_back();
        for (std::size_t k = 0; k < index.chunks.size(); ++k) {
            index.chunks[k].source_frame = a + k;
            wanted[0].emplace_back(a + k, k);
        }
    }
    for (std::uint32_t s = 0; s < index.sources.size(); ++s) index_source(index, s, std::move(wanted[s]), per_chunk_limit);
    for (std::size_t k = 0; k < index.chunks.size(); ++k) {
        ChunkLocation& c = index.chunks[k];
        const ChunkSource& source = index.sources[c.source];
        if (source.by_position) c.address += bases[source.file];
        h5::check_chunk_extent(source.by_position ? c.address : UINT64_MAX, c.bytes, index.files[source.file].bytes, largest_valid,
                               chunk_what(index, k));
    }
    refuse_overlaps(index);
    return index;
}

}  // namespace bslz4::tool
