// Whole chunks without the sparse step, for bslz4.decompress, decompress_from_buffer,
// block_starts and block_starts_from_buffer (python/bslz4/_chunks.py): many chunks a call, the
// GIL released, written into the caller's array. A fault names its frame ("frame k: "), as the
// classes' do, so bslz4.DecodeError says which chunk.
#include <lz4.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bslz4/chunk_header.hpp"
#include "bslz4/codec.hpp"
#include "bslz4/decode.hpp"
#include "bslz4/error.hpp"
#include "chunk_buffers.hpp"
#include "module_parts.hpp"

namespace py = pybind11;

namespace bslz4::python {

namespace {

std::uint32_t load_be32(const std::uint8_t* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | std::uint32_t(p[3]);
}

// A chunk's blocks as the HDF5 filter's decompressor yields them, before the bit unshuffle (the
// seed's unshuffle=False): block b decompressed where its pixels go, then the raw tail. The
// layout (block_starts) has checked that every block lies inside the chunk.
void decompress_blocks(ByteView chunk, std::size_t elem, Codec codec, std::uint8_t* out, std::size_t out_bytes) {
    const BlockLayout layout = block_starts(chunk, elem, out_bytes);
    std::size_t at = 0;
    for (std::size_t b = 0; b < layout.n_blocks(); ++b) {
        const std::uint8_t* p = chunk.data + layout.starts[b];
        const std::uint32_t packed = load_be32(p);
        const std::size_t want = layout.block_elems(b) * elem;
        if (codec == Codec::lz4) {
            const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(p + kBlockHeaderBytes),
                                                reinterpret_cast<char*>(out + at), static_cast<int>(packed),
                                                static_cast<int>(want));
            if (got < 0 || static_cast<std::size_t>(got) != want)
                throw Error(ErrorCode::bad_lz4_sequence, "block " + std::to_string(b) + ": the LZ4 block does not decode to its " +
                                                             std::to_string(want) + " bytes");
        } else {
            const std::size_t got = ZSTD_decompress(out + at, want, p + kBlockHeaderBytes, packed);
            if (ZSTD_isError(got) || got != want)
                throw Error(ErrorCode::bad_zstd_frame, "block " + std::to_string(b) + ": the zstd frame does not decode to its " +
                                                           std::to_string(want) + " bytes");
        }
        at += want;
    }
    if (layout.tail_elems) std::memcpy(out + at, chunk.data + layout.tail_offset, layout.tail_elems * elem);
}

// The chunks' headers agree with the first's (the same decoded size and block size): the seed
// refused a batch that does not, and the rows of the output (or of the block starts) need it.
ChunkHeader check_same_headers(const std::vector<ByteView>& chunks, std::size_t elem) {
    ChunkHeader first;
    try {
        first = parse_chunk_header(chunks[0], elem);
    } catch (const Error& e) {
        throw Error(e.code(), std::string("frame 0: ") + e.what());
    }
    for (std::size_t k = 1; k < chunks.size(); ++k) {
        ChunkHeader h;
        try {
            h = parse_chunk_header(chunks[k], elem);
        } catch (const Error& e) {
            throw Error(e.code(), "frame " + std::to_string(k) + ": " + e.what());
        }
        if (h.decoded_bytes != first.decoded_bytes)
            throw Error(ErrorCode::wrong_decoded_size, "frame " + std::to_string(k) + ": header's decoded size " +
                                                           std::to_string(h.decoded_bytes) + " bytes is not the frame size " +
                                                           std::to_string(first.decoded_bytes) + " bytes (frame 0's)");
        if (h.block_elems != first.block_elems)
            throw Error(ErrorCode::wrong_decoded_size, "frame " + std::to_string(k) + ": blocks of " +
                                                           std::to_string(h.block_elems) + " elements, frame 0's of " +
                                                           std::to_string(first.block_elems));
    }
    return first;
}

// Decodes chunks[k] into out + k * frame_bytes (out: a writable contiguous buffer of at least
// nchunks * frame_bytes bytes), pixels (unshuffle) or blocks as stored.
void decompress_chunks(const py::handle& chunks, std::size_t elem, const std::string& codec_name, bool unshuffle,
                       const py::handle& out) {
    HeldBuffers held;
    const std::vector<ByteView> views = held.hold_each(chunks, "chunks");
    const Codec codec = parse_codec(codec_name);
    Py_buffer room;
    if (PyObject_GetBuffer(out.ptr(), &room, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) throw py::error_already_set();
    struct Release {
        Py_buffer* b;
        ~Release() { PyBuffer_Release(b); }
    } release{&room};
    py::gil_scoped_release nogil;
    const std::size_t frame_bytes = static_cast<std::size_t>(check_same_headers(views, elem).decoded_bytes);
    if (static_cast<std::size_t>(room.len) / views.size() < frame_bytes)
        throw Error(ErrorCode::bad_argument, "out holds " + std::to_string(room.len) + " bytes; " +
                                                 std::to_string(views.size()) + " frames of " + std::to_string(frame_bytes) +
                                                 " bytes need more");
    auto* base = static_cast<std::uint8_t*>(room.buf);
    for (std::size_t k = 0; k < views.size(); ++k) {
        try {
            if (unshuffle) decode_chunk_into(views[k], elem, codec, base + k * frame_bytes, frame_bytes);
            else decompress_blocks(views[k], elem, codec, base + k * frame_bytes, frame_bytes);
        } catch (const Error& e) {
            throw Error(e.code(), "frame " + std::to_string(k) + ": " + e.what());
        }
    }
}

// Each chunk's block starts (bslz4::block_starts: where each block's 4-byte length lies), or
// why it has none: a list of (uint32 starts, "") or (None, "code_name\tframe k: message"), so
// that Python names every bad chunk, as the seed did. The headers must agree (see above).
py::list chunk_block_starts(const py::handle& chunks, std::size_t elem) {
    HeldBuffers held;
    const std::vector<ByteView> views = held.hold_each(chunks, "chunks");
    std::vector<std::vector<std::uint32_t>> starts(views.size());
    std::vector<std::string> faults(views.size());
    {
        py::gil_scoped_release nogil;
        for (std::size_t k = 0; k < views.size(); ++k) {
            try {
                const BlockLayout layout = block_starts(views[k], elem);
                starts[k].assign(layout.starts.begin(), layout.starts.end());
            } catch (const Error& e) {
                if (!is_chunk_fault(e.code())) throw;
                faults[k] = std::string(error_code_name(e.code())) + "\tframe " + std::to_string(k) + ": " + e.what();
            }
        }
    }
    py::list out;
    for (std::size_t k = 0; k < views.size(); ++k) {
        if (!faults[k].empty()) {
            out.append(py::make_tuple(py::none(), faults[k]));
            continue;
        }
        py::array_t<std::uint32_t> a(static_cast<py::ssize_t>(starts[k].size()));
        if (!starts[k].empty()) std::memcpy(a.mutable_data(), starts[k].data(), starts[k].size() * 4);
        out.append(py::make_tuple(a, ""));
    }
    return out;
}

}  // namespace

void bind_chunk_tools(py::module_& m) {
    m.def("decompress_chunks", &decompress_chunks, py::arg("chunks"), py::arg("elem_size"), py::arg("codec"),
          py::arg("unshuffle"), py::arg("out"));
    m.def("chunk_block_starts", &chunk_block_starts, py::arg("chunks"), py::arg("elem_size"));
    m.def(
        "chunk_headers_agree",
        [](const py::handle& chunks, std::size_t elem) {
            HeldBuffers held;
            const std::vector<ByteView> views = held.hold_each(chunks, "chunks");
            py::gil_scoped_release nogil;
            check_same_headers(views, elem);
        },
        py::arg("chunks"), py::arg("elem_size"));
}

}  // namespace bslz4::python
