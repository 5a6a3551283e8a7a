#include "scan_input.hpp"

#include <algorithm>
#include <cstdio>

#include "bslz4/chunk_header.hpp"
#include "scan_layout.hpp"

namespace bslz4::tool {

// A dataset this reader does not take (its shape, chunks, pixel type or filter) is a bad_argument:
// the user named it, or gave a file holding it where the scan is expected. A link that does not
// resolve is io: the file points to data that cannot be read.

namespace {

PixelType pixel_type_of_dataset(hid_t dataset, const std::string& what) {
    h5::Handle t(H5Dget_type(dataset), H5Tclose, what + ": no datatype");
    const H5T_class_t cls = H5Tget_class(t.get());
    const std::size_t size = H5Tget_size(t.get());
    PixelType type = PixelType::u8;
    if (cls == H5T_FLOAT && (size == 4 || size == 8)) {
        type = size == 4 ? PixelType::f32 : PixelType::f64;
    } else if (cls == H5T_INTEGER && (size == 1 || size == 2 || size == 4 || size == 8)) {
        const bool is_signed = H5Tget_sign(t.get()) == H5T_SGN_2;
        const PixelType by_size[2][4] = {{PixelType::u8, PixelType::u16, PixelType::u32, PixelType::u64},
                                         {PixelType::i8, PixelType::i16, PixelType::i32, PixelType::i64}};
        type = by_size[is_signed][size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3];
    } else {
        throw Error(ErrorCode::bad_argument, what + ": pixel type (HDF5 class " + std::to_string(static_cast<int>(cls)) + ", " +
                                                 std::to_string(size) +
                                                 " bytes) is not one of u8 u16 u32 u64 i8 i16 i32 i64 f32 f64");
    }
    // The decoders (the GPU's kernels too) read little-endian pixels; swapping is not offered.
    const H5T_order_t order = H5Tget_order(t.get());
    if (size > 1 && order != H5T_ORDER_LE)
        throw Error(ErrorCode::bad_argument,
                    what + ": " +
                    (order == H5T_ORDER_BE ? std::string("big-endian ") + pixel_type_name(type) + " pixels (most significant byte first)"
                                           : pixel_type_name(type) + std::string(" pixels in byte order ") + std::to_string(order)) +
                    "; only little-endian scans are read");
    return type;
}

}  // namespace

Codec bitshuffle_codec(hid_t dataset, std::size_t elem_size, const std::string& what, unsigned* minor_version) {
    h5::Handle plist(H5Dget_create_plist(dataset), H5Pclose, what + ": no creation properties");
    const int n = H5Pget_nfilters(plist.get());
    if (n <= 0) throw Error(ErrorCode::bad_argument, what + ": not compressed (no HDF5 filter); bitshuffle (32008) expected");
    unsigned flags = 0;
    constexpr std::size_t kShown = 16;
    std::size_t nvalues = kShown;
    unsigned v[kShown] = {};
    char name[128] = {};
    unsigned config = 0;
    const H5Z_filter_t id = H5Pget_filter2(plist.get(), 0, &flags, &nvalues, v, sizeof name, name, &config);
    if (n != 1 || id != static_cast<H5Z_filter_t>(kBitshuffleFilter))
        throw Error(ErrorCode::bad_argument, what + ": HDF5 filter " + std::to_string(id) +
                                                 (name[0] ? std::string(" (") + name + ")" : "") +
                                                 (n > 1 ? " among " + std::to_string(n) + " filters" : "") +
                                                 "; only bitshuffle (32008) alone is read");
    // bitshuffle's set_local records: version major, minor, element size, block size in elements
    // (0: its default), compression (2 lz4, 3 zstd), and with zstd the level it compressed at.
    std::string listed;
    for (std::size_t k = 0; k < std::min(nvalues, kShown); ++k) listed += " " + std::to_string(v[k]);
    if (nvalues > kShown) listed += " ...";
    const auto refuse = [&](const std::string& why) {
        throw Error(ErrorCode::bad_argument, what + ": the bitshuffle filter's values" + listed +
                                                 " are not bitshuffle's (version 0.x, element size, " +
                                                 "block size, 2 lz4 or 3 zstd[, zstd level]): " + why);
    };
    if (nvalues < 5 || nvalues > 6) {
        // a writer that gave the plugin's set_local all five values: it put its own three in front
        const bool doubled = nvalues >= 8 && v[3] == v[0] && v[5] == v[2];
        refuse(std::to_string(nvalues) + " values, not 5 (or 6 with zstd's level)" +
               (doubled ? "; bitshuffle's leading values appear twice, as when a writer hands the filter plugin the values "
                          "it makes itself"
                        : ""));
    }
    if (v[0] != 0) refuse("version " + std::to_string(v[0]) + "." + std::to_string(v[1]) + "; bitshuffle is 0.x");
    if (v[2] != elem_size)
        refuse("element size " + std::to_string(v[2]) + ", but the dataset's pixels have " + std::to_string(elem_size) + " bytes");
    if (v[3] % 8 != 0) refuse("block size " + std::to_string(v[3]) + " elements, not a multiple of 8");
    constexpr unsigned kLz4 = 2, kZstd = 3;
    if (v[4] != kLz4 && v[4] != kZstd)
        refuse("compression " + std::to_string(v[4]) + ", neither lz4 (2) nor zstd (3); bitshuffle without them is not read");
    if (minor_version) *minor_version = v[1];
    return v[4] == kLz4 ? Codec::lz4 : Codec::zstd;
}

std::uint64_t largest_chunk_bytes(std::uint64_t pixels, std::size_t elem_size, Codec codec) {
    const std::uint64_t block = 8 * elem_size;
    // LZ4_COMPRESSBOUND and ZSTD_COMPRESSBOUND of one block
    const std::uint64_t worst = codec == Codec::lz4 ? block + block / 255 + 16
                                                    : block + (block >> 8) + (block < (128u << 10) ? ((128u << 10) - block) >> 11 : 0);
    constexpr std::uint64_t kHeader = 12, kBlockLength = 4;
    return kHeader + pixels / 8 * (kBlockLength + worst) + pixels % 8 * elem_size;
}

namespace {

// The frames of a dataset stored one bitshuffle chunk a frame, checked.
struct FrameStack {
    std::size_t frames = 0, ni = 0, nj = 0;
    PixelType type = PixelType::u16;
    Codec codec = Codec::lz4;
};

std::vector<hsize_t> frames_shape(hid_t dataset, const std::string& what) {
    const auto shape = h5::dataset_shape(dataset);
    if (shape.size() != 3)
        throw Error(ErrorCode::bad_argument,
                    what + ": " + std::to_string(shape.size()) + "-d data; (frames, rows, columns) expected");
    return shape;
}

void check_frame_size(const std::vector<hsize_t>& shape, PixelType type, const std::string& what) {
    // HDF5 keeps a chunk under 4 GiB; a file saying otherwise would size every buffer after it
    constexpr std::uint64_t kLargestChunk = std::uint64_t{1} << 32;
    if (shape[1] == 0 || shape[2] == 0 || shape[1] >= kLargestChunk || shape[2] >= kLargestChunk ||
        shape[1] * shape[2] >= kLargestChunk / pixel_size(type))
        throw Error(ErrorCode::bad_argument, what + ": frames of " + std::to_string(shape[1]) + " x " + std::to_string(shape[2]) +
                                                 " " + pixel_type_name(type) +
                                                 " pixels; an HDF5 chunk holds from 1 pixel to under 4 GiB");
}

// Bitshuffle gained zstd in 0.4. Before, its plugin took any compression value but lz4's for
// none: asked for zstd (Debian 12's bitshuffle 0.3.5, under its hdf5plugin 4.0.1), it records
// the zstd value and stores each chunk bitshuffled without compression or header, which HDF5
// with that plugin reads back so. Values of 0.3 with zstd also come from writers that compress
// the chunks themselves (this project's, with that plugin found), so the chunks tell: a frame-0
// chunk of exactly the frame's bytes whose header does not give that size is such a chunk, and
// the dataset is refused at once, naming why, rather than frame by frame as bad headers.
constexpr unsigned kFirstZstdMinor = 4;

void refuse_uncompressed_zstd(hid_t dataset, std::uint64_t frame_bytes, const std::string& what) {
    const hsize_t offset[3] = {0, 0, 0};
    hsize_t bytes = 0;
    if (H5Dget_chunk_storage_size(dataset, offset, &bytes) < 0) throw h5::failure(what + ": cannot read frame 0's chunk size");
    if (bytes != frame_bytes || bytes < kChunkHeaderBytes) return;
    std::vector<std::uint8_t> chunk(static_cast<std::size_t>(bytes));
    std::uint32_t filters = 0;
    if (H5Dread_chunk(dataset, H5P_DEFAULT, offset, &filters, chunk.data()) < 0)
        throw h5::failure(what + ": cannot read frame 0's chunk");
    if (filters != 0) return;  // stored raw, the filter skipped: read as such
    std::uint64_t claimed = 0;
    for (std::size_t k = 0; k < 8; ++k) claimed = claimed << 8 | chunk[k];
    if (claimed == frame_bytes) return;
    throw Error(ErrorCode::bad_argument,
                what + ": its bitshuffle filter values say zstd, written by bitshuffle 0." + std::to_string(kFirstZstdMinor - 1) +
                    " or older, which has no zstd: frame 0's chunk is the frame's " + std::to_string(frame_bytes) +
                    " bytes bitshuffled without compression and without bitshuffle's header (as that plugin stores "
                    "zstd asked for, and reads back); only bitshuffle with lz4 or zstd is read. Rewrite the data with "
                    "bitshuffle 0.4 or newer (hdf5plugin from PyPI), or with lz4");
}

FrameStack chunked_frames(hid_t dataset, const std::string& what) {
    const auto shape = frames_shape(dataset, what);
    const auto chunk = h5::chunk_shape(dataset);
    if (chunk.size() != 3 || chunk[0] != 1 || chunk[1] != shape[1] || chunk[2] != shape[2])
        throw Error(ErrorCode::bad_argument,
                    what + ": chunks of " +
                    (chunk.empty() ? std::string("none (contiguous)")
                                   : std::to_string(chunk[0]) + " x " + std::to_string(chunk[1]) + " x " + std::to_string(chunk[2])) +
                    "; one chunk must be one frame (1 x " + std::to_string(shape[1]) + " x " + std::to_string(shape[2]) + ")");
    FrameStack s;
    s.type = pixel_type_of_dataset(dataset, what);
    check_frame_size(shape, s.type, what);
    unsigned minor = 0;
    s.codec = bitshuffle_codec(dataset, pixel_size(s.type), what, &minor);
    if (s.codec == Codec::zstd && minor < kFirstZstdMinor && shape[0] > 0)
        refuse_uncompressed_zstd(dataset, shape[1] * shape[2] * pixel_size(s.type), what);
    s.frames = shape[0];
    s.ni = shape[1];
    s.nj = shape[2];
    return s;
}

// A virtual dataset's frames: its own shape and pixel type, its sources' chunks and codec.
FrameStack virtual_frames(const ScanDataset& d, const std::string& what) {
    const auto shape = frames_shape(d.dataset.get(), what);
    FrameStack s;
    s.type = pixel_type_of_dataset(d.dataset.get(), what);
    check_frame_size(shape, s.type, what);
    s.frames = shape[0];
    s.ni = shape[1];
    s.nj = shape[2];
    for (std::size_t k = 0; k < d.virtual_frames->sources.size(); ++k) {
        const VirtualSource& source = d.virtual_frames->sources[k];
        const FrameStack from = chunked_frames(source.dataset.get(), what + ": its source " + source.what);
        // HDF5 converts a source's values to the VDS's type when it reads them; raw chunks cannot be
        if (from.type != s.type)
            throw Error(ErrorCode::bad_argument, what + ": its source " + source.what + " holds " + pixel_type_name(from.type) +
                                                     " pixels, the virtual dataset " + pixel_type_name(s.type) +
                                                     " (HDF5 would convert them); only sources of the VDS's type are read");
        if (k == 0) {
            s.codec = from.codec;
        } else if (from.codec != s.codec) {
            throw Error(ErrorCode::bad_argument, what + ": its source " + source.what + " is compressed with " +
                                                     (from.codec == Codec::lz4 ? "lz4" : "zstd") + ", its source " +
                                                     d.virtual_frames->sources[0].what + " with " +
                                                     (s.codec == Codec::lz4 ? "lz4" : "zstd") + "; one codec a scan");
        }
    }
    return s;
}

// The file holding `object`, with what it is to the scan, unless noted already.
void note_file_read(ScanInput& scan, hid_t object, const std::string& role, const std::string& what) {
    h5::FileIdentity id = h5::file_identity(object, what);
    for (const ScanInput::FileRead& f : scan.files_read)
        if (f.file.device == id.device && f.file.inode == id.inode) return;
    scan.files_read.push_back({std::move(id), role});
}

void add_dataset(ScanInput& scan, const std::string& path) {
    const std::string what = scan.file_name + ":" + path;
    ScanDataset d{path, h5::open_dataset(scan.file.get(), path, scan.file_name), 0, nullptr};
    FrameStack stack;
    if (is_virtual(d.dataset.get())) {
        frames_shape(d.dataset.get(), what);
        d.virtual_frames = std::make_shared<const VirtualFrames>(follow_virtual(d.dataset.get(), what));
        stack = virtual_frames(d, what);
    } else {
        stack = chunked_frames(d.dataset.get(), what);
    }
    if (scan.datasets.empty()) {
        scan.ni = stack.ni;
        scan.nj = stack.nj;
        scan.type = stack.type;
        scan.codec = stack.codec;
        scan.largest_chunk = largest_chunk_bytes(scan.ni * scan.nj, pixel_size(stack.type), stack.codec);
    } else if (stack.ni != scan.ni || stack.nj != scan.nj || stack.type != scan.type || stack.codec != scan.codec) {
        throw Error(ErrorCode::bad_argument,
                    what + ": frames differ from " + scan.datasets.front().path + " (shape, type or codec)");
    }
    d.frames = stack.frames;
    scan.frames += stack.frames;
    note_file_read(scan, d.dataset.get(), "data file of " + path, what);
    if (d.virtual_frames)
        for (const VirtualSource& source : d.virtual_frames->sources)
            note_file_read(scan, source.dataset.get(), "source file of the virtual dataset " + path, source.what);
    scan.datasets.push_back(std::move(d));
}

// The mask of the detector that took the frames at `data`: NeXus's place in an Eiger master
// file, else the NXdetector's pixel_mask beside its data.
std::vector<std::string> mask_places(const std::string& data) {
    std::vector<std::string> places{kNexusPixelMask};
    const std::size_t slash = data.rfind('/');
    if (slash != std::string::npos && slash > 0) {
        const std::string beside = data.substr(0, slash) + "/pixel_mask";
        if (beside != kNexusPixelMask) places.push_back(beside);
    }
    return places;
}

}  // namespace

ScanInput open_scan(const std::string& file_name, const std::string& dataset, NexusMask nexus) {
    ScanInput scan;
    scan.file_name = file_name;
    scan.file = h5::open_file(file_name);
    note_file_read(scan, scan.file.get(), "input file", file_name);
    if (!dataset.empty()) {
        add_dataset(scan, dataset);
    } else if (h5::exists(scan.file.get(), "/entry/data/data", file_name)) {
        add_dataset(scan, "/entry/data/data");
    } else {
        for (const std::string& name : scan_layout::eiger_data_links(scan.file.get(), file_name)) {
            const std::string dangling = h5::dangling_link(scan.file.get(), name);
            if (!dangling.empty()) throw Error(ErrorCode::io, file_name + ": " + dangling);
            add_dataset(scan, name);
            scan.eiger_master = true;
        }
        if (scan.eiger_master) {
            const std::size_t recorded = scan_layout::eiger_frames_recorded(scan.file.get(), file_name);
            if (recorded && recorded != scan.frames)
                throw Error(ErrorCode::io, file_name + ": the data files hold " + std::to_string(scan.frames) +
                                               " frames, but the master records " + std::to_string(recorded) +
                                               " (detectorSpecific/nimages x ntrigger): a data file is missing, short or "
                                               "extra; give --dataset /entry/data/data_NNNNNN to read one anyway");
        }
        if (scan.datasets.empty()) {
            const std::vector<std::string> lima = scan_layout::lima_datasets(scan.file.get(), file_name);
            if (lima.size() == 1) {
                add_dataset(scan, lima[0]);
            } else if (lima.size() > 1) {
                std::string list;
                for (const std::string& p : lima) list += (list.empty() ? "" : ", ") + p;
                throw Error(ErrorCode::bad_argument, file_name + ": " + std::to_string(lima.size()) +
                                                         " LImA datasets of frames (" + list + "): give --dataset PATH");
            } else {
                throw Error(ErrorCode::bad_argument,
                            file_name + ": no /entry/data/data, no /entry/data/data_000001... and no LImA " +
                                "/entry_NNNN/INSTRUMENT/DETECTOR/data: give --dataset PATH (in a Bliss master file, the " +
                                "detector's frames: --dataset /1.1/measurement/eiger, say)");
            }
        }
    }
    if (nexus == NexusMask::skip) return scan;
    // a pixel_mask that is there but cannot be read is an error, never an unmasked run
    scan.mask_looked_for = mask_places(scan.datasets.front().path);
    for (const std::string& place : scan.mask_looked_for) {
        const std::string dangling = h5::dangling_link(scan.file.get(), place);
        if (!dangling.empty()) throw Error(ErrorCode::io, file_name + ": the NeXus pixel_mask cannot be read: " + dangling);
        bool there = false;
        try {
            there = h5::exists(scan.file.get(), place, "");
        } catch (const Error& e) {
            throw Error(e.code(), file_name + ": looking for the NeXus pixel_mask at " + place + ": " + e.what() +
                                      "; the scan is not run unmasked (give --mask, --use-mask or --no-mask to decide)");
        }
        if (!there) continue;
        h5::Handle m = h5::open_dataset(scan.file.get(), place, file_name);
        const auto shape = h5::dataset_shape(m.get());
        if (shape.size() != 2 || shape[0] != scan.ni || shape[1] != scan.nj)
            throw Error(ErrorCode::bad_argument, file_name + ":" + place + ": its shape is not the frames' " +
                                                     std::to_string(scan.ni) + " x " + std::to_string(scan.nj));
        scan.nexus_mask = h5::read_nonzero(m.get(), scan.ni * scan.nj, file_name + ":" + place);
        scan.nexus_mask_path = place;
        scan.mask_source = file_name + ":" + place;
        return scan;
    }
    scan.mask_source = "none (the file has no pixel_mask)";
    return scan;
}

std::string frame_place(const ScanInput& scan, std::size_t d, std::size_t f) {
    const ScanDataset& data = scan.datasets[d];
    std::string place = scan.file_name + ":" + data.path + " frame " + std::to_string(f);
    if (data.virtual_frames) {
        const VirtualRun& r = data.virtual_frames->run_of(f);
        place += " (" + data.virtual_frames->sources[r.source].what + " frame " + std::to_string(r.source_first + (f - r.first)) + ")";
    }
    return place;
}

std::vector<std::uint8_t> read_frame_chunk(const ScanInput& scan, std::size_t d, std::size_t f) {
    const ScanDataset& data = scan.datasets[d];
    if (!data.virtual_frames) return h5::read_chunk(data.dataset.get(), {f, 0, 0}, frame_place(scan, d, f), scan.largest_chunk);
    const VirtualRun& r = data.virtual_frames->run_of(f);
    return h5::read_chunk(data.virtual_frames->sources[r.source].dataset.get(), {r.source_first + (f - r.first), 0, 0},
                          frame_place(scan, d, f), scan.largest_chunk);
}

}  // namespace bslz4::tool
