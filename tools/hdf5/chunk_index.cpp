#include "chunk_index.hpp"

#include <hdf5.h>

#include <algorithm>

namespace bslz4::tool {

namespace {

#if H5_VERSION_GE(1, 14, 0) || (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 12 && H5_VERS_RELEASE >= 3)
#define BSLZ4_HAVE_CHUNK_ITER 1
struct IterState {
    std::size_t a = 0, b = 0;
    std::vector<ChunkLocation>* chunks = nullptr;
    std::vector<std::uint8_t>* seen = nullptr;
};

// The callback's mask and size types differ between releases: deduced from H5D_chunk_iter_op_t.
template <class Mask, class Size>
int chunk_seen(const hsize_t* offset, Mask filter_mask, haddr_t address, Size bytes, void* state) {
    auto& s = *static_cast<IterState*>(state);
    const hsize_t frame = offset[0];  // chunks are one frame deep: scaled or not, the same
    if (frame >= s.a && frame < s.b) {
        (*s.chunks)[frame - s.a] = {static_cast<std::uint64_t>(address), static_cast<std::uint64_t>(bytes),
                                    static_cast<std::uint32_t>(filter_mask)};
        (*s.seen)[frame - s.a] = 1;
    }
    return H5_ITER_CONT;
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

std::string frame_what(const std::string& what, std::size_t f) { return what + " frame " + std::to_string(f); }

// A frame never written has no bytes at all: a chunk that ends before its header.
Error not_stored(const std::string& what, std::size_t f) {
    return Error(ErrorCode::truncated_chunk, frame_what(what, f) + ": the chunk is not stored (the frame was never written)");
}

// Chunks never share bytes: an index whose extents overlap lies, and would let a batch of
// chunks (and the buffers sized for it) grow past the file's size.
void refuse_overlaps(const ChunkIndex& index) {
    if (!index.by_position) return;
    std::vector<std::size_t> order(index.chunks.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(),
              [&](std::size_t x, std::size_t y) { return index.chunks[x].address < index.chunks[y].address; });
    for (std::size_t k = 1; k < order.size(); ++k) {
        const ChunkLocation& before = index.chunks[order[k - 1]];
        const ChunkLocation& after = index.chunks[order[k]];
        if (before.address + before.bytes > after.address)
            throw Error(ErrorCode::truncated_chunk,  // one of the two is cut short by the other, as a chunk sized past the file
                        frame_what(index.what, index.first_frame + order[k]) + ": the chunk index puts its chunk (bytes " +
                        std::to_string(after.address) + " to " + std::to_string(after.address + after.bytes) +
                        ") over frame " + std::to_string(index.first_frame + order[k - 1]) + "'s (bytes " +
                        std::to_string(before.address) + " to " + std::to_string(before.address + before.bytes) + ")");
    }
}

}  // namespace

ChunkIndex read_chunk_index(hid_t dataset, std::size_t a, std::size_t b, const std::string& what, std::uint64_t largest_valid,
                            std::size_t per_chunk_limit) {
    ChunkIndex index;
    index.what = what;
    index.dataset = dataset;
    index.first_frame = a;
    index.chunks.resize(b - a);
    const h5::Handle file(H5Iget_file_id(dataset), H5Fclose, what + ": no file");
    const ssize_t name_length = H5Fget_name(file.get(), nullptr, 0);
    if (name_length < 0) throw h5::failure(what + ": the name of the file holding the chunks is unknown");
    std::vector<char> name(static_cast<std::size_t>(name_length) + 1);
    H5Fget_name(file.get(), name.data(), name.size());
    index.file_path = name.data();
    hsize_t file_bytes = 0;
    if (H5Fget_filesize(file.get(), &file_bytes) < 0) throw h5::failure(what + ": the file's size is unknown");
    index.file_bytes = file_bytes;
    const std::uint64_t base = addresses_after_user_block() ? user_block_bytes(file.get(), what) : 0;

#if BSLZ4_HAVE_CHUNK_ITER
    (void)per_chunk_limit;
    std::vector<std::uint8_t> seen(b - a, 0);
    IterState state{a, b, &index.chunks, &seen};
    const H5D_chunk_iter_op_t op = chunk_seen;
    if (H5Dchunk_iter(dataset, H5P_DEFAULT, op, &state) < 0) throw h5::failure(what + ": cannot read the chunk index");
    for (std::size_t k = 0; k < seen.size(); ++k)
        if (!seen[k]) throw not_stored(what, a + k);
#else
    index.by_position = b - a <= per_chunk_limit;
    for (std::size_t k = 0; k < index.chunks.size(); ++k) {
        const hsize_t offset[3] = {a + k, 0, 0};
        ChunkLocation& c = index.chunks[k];
        if (index.by_position) {
            unsigned mask = 0;
            haddr_t address = HADDR_UNDEF;
            hsize_t bytes = 0;
            if (H5Dget_chunk_info_by_coord(dataset, offset, &mask, &address, &bytes) < 0)
                throw h5::failure(frame_what(what, a + k) + ": cannot read the chunk index");
            if (address == HADDR_UNDEF) throw not_stored(what, a + k);
            c = {static_cast<std::uint64_t>(address), bytes, mask};
        } else {
            hsize_t bytes = 0;
            if (H5Dget_chunk_storage_size(dataset, offset, &bytes) < 0) {
                // HDF5 1.10 fails here for a chunk never written (later releases give 0 bytes)
                unsigned mask = 0;
                haddr_t address = HADDR_UNDEF;
                if (H5Dget_chunk_info_by_coord(dataset, offset, &mask, &address, &bytes) >= 0 && address == HADDR_UNDEF)
                    throw not_stored(what, a + k);
                throw h5::failure(frame_what(what, a + k) + ": chunk not stored");
            }
            if (bytes == 0) throw not_stored(what, a + k);
            c.bytes = bytes;
        }
    }
#endif
    for (std::size_t k = 0; k < index.chunks.size(); ++k) {
        ChunkLocation& c = index.chunks[k];
        if (index.by_position) c.address += base;
        h5::check_chunk_extent(index.by_position ? c.address : UINT64_MAX, c.bytes, index.file_bytes, largest_valid,
                               frame_what(what, a + k));
    }
    refuse_overlaps(index);
    return index;
}

}  // namespace bslz4::tool
