/* bslz4's C API: bitshuffle + LZ4/zstd chunks (HDF5 filter 32008) to pixels, sparse pixel lists
 * and powders, on the CPU and on an NVIDIA GPU, for programs in C (or any language with a C
 * FFI). Plain C99; the same declarations compile as C++.
 *
 * Conventions, for every function below:
 * - The return value is a status: BSLZ4_OK (0), or a BSLZ4_E_... code saying what kind of
 *   failure it was. bslz4_last_error() then gives the message of the calling thread's last
 *   failure, starting with the function's name ("bslz4_decode: frame 0: block 3: ...");
 *   success leaves it as it was. No C++ exception ever leaves the library.
 * - Handles are opaque; each class has _create and _destroy (destroy of NULL does nothing). One
 *   handle takes one call at a time; different handles may be used from different threads at
 *   once. A handle knows its class: one passed (cast) to another class's function, destroy
 *   included, is refused with BSLZ4_E_BAD_ARGUMENT naming the class expected and the one given.
 * - Sizes and counts have limits (BSLZ4_MAX_BYTES, BSLZ4_MAX_THREADS, ... below), checked
 *   before anything is read or allocated: past one is BSLZ4_E_BAD_ARGUMENT naming the
 *   parameter; a size within them that cannot be had is BSLZ4_E_OUT_OF_MEMORY.
 * - Results are either written into buffers the caller passes, with their sizes (too small:
 *   BSLZ4_E_OUTPUT_TOO_SMALL, and the size needed where the function has an output for it), or
 *   lent by the handle (the bslz4_frame / bslz4_batch / bslz4_coo / bslz4_powder views): those
 *   stay valid until the next call on the same handle, or its destroy. bslz4_frame_copy and the
 *   other _copy functions copy a lent view into the caller's buffers.
 * - Values that C++ gives as enums (pixel types, codecs, accumulators...) are passed as int,
 *   with the BSLZ4_... constants below. Functions, structs, status values and constants keep
 *   their signature and meaning within an ABI version (BSLZ4_ABI_VERSION, the N of the shared
 *   library's soname libbslz4.so.N); later releases may add functions.
 * - The GPU functions (bslz4_gpu_...) exist in every build: a library built without the GPU
 *   runtime returns BSLZ4_E_NO_GPU_SUPPORT from them, and bslz4_gpu_available says why. */
#ifndef BSLZ4_H
#define BSLZ4_H

#include <stddef.h>
#include <stdint.h>

#include "bslz4/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The header's version; bslz4_version() gives the library's, to compare at run time. */
#define BSLZ4_VERSION_MAJOR 0
#define BSLZ4_VERSION_MINOR 1
#define BSLZ4_VERSION_PATCH 0
#define BSLZ4_VERSION_STRING "0.1.0"
#define BSLZ4_VERSION_NUMBER (BSLZ4_VERSION_MAJOR * 10000 + BSLZ4_VERSION_MINOR * 100 + BSLZ4_VERSION_PATCH)
/* The C ABI's version: the soname's N (libbslz4.so.N), raised only when a program built against
 * this header must be rebuilt. */
#define BSLZ4_ABI_VERSION 2

/* Status values. 1 to 11 are bslz4::ErrorCode's (the C++ library's, same numbers); a batch
 * reports each bad frame with one of them. */
enum {
    BSLZ4_OK = 0,
    BSLZ4_E_TRUNCATED_CHUNK = 1,     /* the chunk ends before its header, a block length or the raw tail */
    BSLZ4_E_BAD_HEADER = 2,          /* decoded size or block size impossible for the element size */
    BSLZ4_E_BAD_BLOCK_LENGTH = 3,    /* a block runs past the chunk, or bytes are left after the last */
    BSLZ4_E_BAD_LZ4_SEQUENCE = 4,    /* an LZ4 block breaks the format */
    BSLZ4_E_BAD_ZSTD_FRAME = 5,      /* a zstd frame that does not decode to exactly its block */
    BSLZ4_E_WRONG_DECODED_SIZE = 6,  /* the chunk decodes to other than the frame's size */
    BSLZ4_E_BAD_MATRIX = 7,          /* an integration matrix refused */
    BSLZ4_E_BAD_ARGUMENT = 8,        /* a NULL pointer, a size, a type, a range, an option */
    BSLZ4_E_OUT_OF_MEMORY = 9,       /* host or device memory could not be had */
    BSLZ4_E_GPU_FAULT = 10,          /* the driver failed, or the GPU refused a frame the CPU accepts */
    BSLZ4_E_IO = 11,                 /* a file could not be read or written */
    BSLZ4_E_INTERNAL = 12,           /* a failure the library did not classify (a bug: please report) */
    BSLZ4_E_OUTPUT_TOO_SMALL = 13,   /* the caller's output buffer is smaller than the result */
    BSLZ4_E_NO_GPU_SUPPORT = 14,     /* this library was built without the GPU runtime */
    BSLZ4_E_NO_GPU = 15              /* no usable GPU here (no driver, driver too old, no device) */
};

/* Pixel (element) types, as bslz4::PixelType. */
enum {
    BSLZ4_U8 = 0, BSLZ4_U16 = 1, BSLZ4_U32 = 2, BSLZ4_U64 = 3,
    BSLZ4_I8 = 4, BSLZ4_I16 = 5, BSLZ4_I32 = 6, BSLZ4_I64 = 7,
    BSLZ4_F32 = 8, BSLZ4_F64 = 9
};
enum { BSLZ4_CODEC_LZ4 = 0, BSLZ4_CODEC_ZSTD = 1 };
/* Powder accumulators: f64 and f32 sums of float weights; i64 the exact integer sums of a
 * fixed-point matrix (bslz4_matrix_fixed_point), powder = value / powder_scale. */
enum { BSLZ4_ACC_F64 = 0, BSLZ4_ACC_F32 = 1, BSLZ4_ACC_I64 = 2 };
/* What a batch call does with a frame it cannot decode: fail the call (the first bad frame's
 * status and message), or report the frame in the batch and return the others. */
enum { BSLZ4_ON_ERROR_STOP = 0, BSLZ4_ON_ERROR_REPORT = 1 };
/* GPU: who walks the chunks' block headers. */
enum { BSLZ4_UNBLOCK_GPU = 0, BSLZ4_UNBLOCK_CPU = 1 };
/* Matrix input layouts (scipy's csc_matrix: a column per pixel; csr: a row per bin) and index types. */
enum { BSLZ4_LAYOUT_CSC = 0, BSLZ4_LAYOUT_CSR = 1 };
enum { BSLZ4_INDEX_I32 = 0, BSLZ4_INDEX_U32 = 1 };

/* Limits. BSLZ4_MAX_BYTES: a buffer's size in bytes (of data, or of room for a result), and an
 * array's count times its element's size (chunks, offsets, lengths, indices, matrix arrays,
 * capacities), at most PTRDIFF_MAX, the largest object C can have: a size past it (SIZE_MAX, a
 * negative number cast) is a mistake that would wrap sums. BSLZ4_MAX_THREADS: options.threads
 * at most 1024, fixed rather than a multiple of this host's CPUs so that options valid on one
 * node are valid on every node (more threads than CPUs only share them). BSLZ4_MAX_THRESHOLDS:
 * nthresholds at most 16 (or BSLZ4_DEFAULT_THRESHOLDS). A frame (ni * nj) has at most
 * 2^32 - 1 pixels, and a matrix at most 2^32 - 1 bins, pixels and weights (32-bit indices). */
#define BSLZ4_MAX_BYTES ((size_t)PTRDIFF_MAX)
#define BSLZ4_MAX_THREADS 1024u
#define BSLZ4_MAX_THRESHOLDS 16u

/* howmany = BSLZ4_EVERY_PIXEL: no top-pixel limit. nthresholds = BSLZ4_DEFAULT_THRESHOLDS:
 * thresholds not given, the default series max(cut, 1) * 2^i, i = 0..15 (nthresholds = 0 is an
 * empty list given: simply the first howmany pixels). */
#define BSLZ4_EVERY_PIXEL ((size_t)-1)
#define BSLZ4_DEFAULT_THRESHOLDS ((size_t)-1)

/* ---- Library ---------------------------------------------------------------------------- */

BSLZ4_API const char* bslz4_version(void);
BSLZ4_API int bslz4_version_number(void);
/* The calling thread's last failure's message ("" before any). Valid until that thread's next
 * failing call. */
BSLZ4_API const char* bslz4_last_error(void);
/* "ok", "truncated_chunk", ..., "no_gpu"; "unknown" for a value not listed above. */
BSLZ4_API const char* bslz4_status_name(int status);
/* Bytes of one pixel of the type (0 for an unknown type). */
BSLZ4_API size_t bslz4_pixel_size(int pixel_type);

/* Messages no call can return (pinned host memory refused, so pageable memory is used; a driver
 * object that failed to be released in a destructor) go to stderr as "bslz4: warning: ..."
 * lines, or to the handler set here, for the whole process: level BSLZ4_LOG_WARNING or
 * BSLZ4_LOG_ERROR, the message one line without a newline, valid during the call, user as
 * given. It may be called from any thread, several at once; it must not call into bslz4.
 * NULL restores stderr. */
#define BSLZ4_LOG_WARNING 1
#define BSLZ4_LOG_ERROR 2
typedef void (*bslz4_log_handler)(int level, const char* message, void* user);
BSLZ4_API int bslz4_set_log_handler(bslz4_log_handler handler, void* user);

/* ---- Chunks ----------------------------------------------------------------------------- */

/* The decoded size the chunk's 12-byte header claims (unchecked against anything but the
 * chunk's length: check it against your limits before allocating). */
BSLZ4_API int bslz4_decoded_size(const void* chunk, size_t chunk_bytes, size_t* decoded_bytes);
/* Decodes the whole chunk into out (at least the decoded size; the bytes past it are left as
 * they were). codec: BSLZ4_CODEC_LZ4 (0) or BSLZ4_CODEC_ZSTD (1). */
BSLZ4_API int bslz4_decode(const void* chunk, size_t chunk_bytes, size_t elem_size, int codec /*0 lz4, 1 zstd*/,
                           void* out, size_t out_bytes);
/* The header, checked for elem_size: decoded size and the block size field as written. */
BSLZ4_API int bslz4_chunk_header(const void* chunk, size_t chunk_bytes, size_t elem_size, uint64_t* decoded_bytes,
                                 uint32_t* block_bytes_field);
/* Validates the chunk's layout (every block length inside the chunk, exactly the raw tail
 * left) and gives each block's offset (of its 4-byte length field). expected_bytes: 0, or the
 * decoded size the chunk must have. *nblocks is set to the blocks the chunk has, also when
 * starts_capacity is too small (BSLZ4_E_OUTPUT_TOO_SMALL); starts may be NULL with capacity 0
 * to ask for the count. */
BSLZ4_API int bslz4_block_starts(const void* chunk, size_t chunk_bytes, size_t elem_size, uint64_t expected_bytes,
                                 uint64_t* starts, size_t starts_capacity, size_t* nblocks);
/* Encodes raw (little-endian elements of elem_size bytes) as a filter-32008 chunk. block_bytes:
 * 0 for bitshuffle's default (8192), else a multiple of 8 x elem_size; zstd_level for zstd
 * only. *chunk_bytes is set to the chunk's size, also when out_capacity is too small
 * (BSLZ4_E_OUTPUT_TOO_SMALL). bslz4_encode_bound gives a capacity that is always enough. */
BSLZ4_API int bslz4_encode(const void* raw, size_t raw_bytes, size_t elem_size, int codec, size_t block_bytes,
                           int zstd_level, void* out, size_t out_capacity, size_t* chunk_bytes);
BSLZ4_API int bslz4_encode_bound(size_t raw_bytes, size_t elem_size, int codec, size_t block_bytes, size_t* bound);

/* ---- Results (lent by a handle until its next call) ------------------------------------- */

/* One frame's list: npixels values (of pixel_type) and flat indices (row * nj + col),
 * ascending. last_cut / last_nabove: the cut this frame ended with and its count above it
 * before the top-pixel limit (the call's cut and npixels without one; NaN and 0 from a class
 * that does not fill them). */
typedef struct bslz4_frame {
    size_t npixels;
    const void* values;
    const uint32_t* indices;
    int pixel_type;
    double last_cut;
    size_t last_nabove;
} bslz4_frame;

/* A frame the batch could not decode (BSLZ4_ON_ERROR_REPORT): its index in the call, its
 * status and message ("frame F: ..."). */
typedef struct bslz4_bad_frame {
    size_t frame;
    int status;
    const char* message;
} bslz4_bad_frame;

/* nframes lists: frame f has npixels[f] values at values + f * row_length * pixel size, and
 * indices at indices + f * row_length (bslz4_batch_frame gives that view). status[f] is
 * BSLZ4_OK, or a bad frame's code (0 pixels); bad[0, nbad) the bad frames in order.
 * last_cut / last_nabove: per frame, NULL where the class does not fill them. */
typedef struct bslz4_batch {
    size_t nframes;
    size_t row_length;
    const size_t* npixels;
    const void* values;
    const uint32_t* indices;
    int pixel_type;
    const int* status;
    const bslz4_bad_frame* bad;
    size_t nbad;
    const double* last_cut;
    const size_t* last_nabove;
} bslz4_batch;

/* One frame's list in coordinates. */
typedef struct bslz4_coo {
    size_t npixels;
    const uint32_t* row;
    const uint32_t* col;
    const void* values;
    int pixel_type;
    double last_cut;
    size_t last_nabove;
} bslz4_coo;

/* nframes x bins sums of the accumulator's type (row f = frame f). i64: powder = value /
 * powder_scale. */
typedef struct bslz4_powder {
    size_t nframes;
    size_t bins;
    int acc;
    const void* data;
    double powder_scale;
} bslz4_powder;

/* Frame f of a batch, as a bslz4_frame view. */
BSLZ4_API int bslz4_batch_frame(const bslz4_batch* batch, size_t f, bslz4_frame* frame);
/* Copies a view into the caller's buffers (sizes in bytes for values, in elements for index
 * arrays); too small: BSLZ4_E_OUTPUT_TOO_SMALL, nothing written. */
BSLZ4_API int bslz4_frame_copy(const bslz4_frame* frame, void* values, size_t values_bytes, uint32_t* indices,
                               size_t indices_capacity);
BSLZ4_API int bslz4_coo_copy(const bslz4_coo* coo, uint32_t* row, uint32_t* col, size_t capacity, void* values,
                             size_t values_bytes);
BSLZ4_API int bslz4_powder_copy(const bslz4_powder* powder, void* out, size_t out_bytes);
/* Frame f, bin b as a float powder value (i64 divided by powder_scale). */
BSLZ4_API int bslz4_powder_value(const bslz4_powder* powder, size_t f, size_t b, double* value);

/* ---- Options ---------------------------------------------------------------------------- */

/* Options of every class; fill with bslz4_options_init first, then set what you need (a NULL
 * options pointer means the defaults). struct_size lets later versions add fields at the end
 * without breaking programs built against this header. */
typedef struct bslz4_options {
    size_t struct_size;
    int codec;                 /* BSLZ4_CODEC_LZ4 */
    int on_error;              /* BSLZ4_ON_ERROR_STOP */
    size_t howmany;            /* BSLZ4_EVERY_PIXEL */
    const double* thresholds;  /* NULL; copied when the handle is made */
    size_t nthresholds;        /* BSLZ4_DEFAULT_THRESHOLDS */
    unsigned threads;          /* CPU: frames decoded at once, at most BSLZ4_MAX_THREADS; 0: every CPU the process may use */
    unsigned batch;            /* GPU: frames decoded together (at most 64: more is lowered, as what fits); 0: from the device */
    unsigned group;            /* GPU: frames uploaded together (at most 256: more is lowered, as what fits); 0: from the device */
    int unblock;               /* GPU: BSLZ4_UNBLOCK_GPU */
    int device;                /* GPU: -1: the current context's device, else 0 */
} bslz4_options;

BSLZ4_API int bslz4_options_init(bslz4_options* options);

/* ---- Integration matrices --------------------------------------------------------------- */

typedef struct bslz4_matrix bslz4_matrix;

/* A matrix as scipy / pyFAI give it (not copied by the caller's side; bslz4_matrix_normalise
 * copies it into the canonical form). */
typedef struct bslz4_matrix_input {
    int layout;        /* BSLZ4_LAYOUT_CSC or BSLZ4_LAYOUT_CSR */
    size_t bins;
    size_t pixels;
    const float* data;
    size_t data_size;
    int index_type;    /* BSLZ4_INDEX_I32 or BSLZ4_INDEX_U32 */
    const void* indices;
    size_t indices_size;
    const void* indptr;  /* pixels + 1 (csc) or bins + 1 (csr) entries */
    size_t indptr_size;
} bslz4_matrix_input;

/* The canonical form, lent by the matrix: CSR by bin, pixels non-decreasing within a bin (a
 * duplicate (bin, pixel) entry is kept as a term of its own, as scipy sums it).
 * fixed_weight is NULL unless powder_scale != 0 (a fixed-point matrix). */
typedef struct bslz4_matrix_view {
    size_t bins;
    size_t pixels;
    size_t nnz;
    const uint32_t* row_start;  /* bins + 1 */
    const uint32_t* pixel;
    const float* weight;
    const int64_t* fixed_weight;
    double powder_scale;
} bslz4_matrix_view;

/* Checks the input and makes the canonical matrix (BSLZ4_E_BAD_MATRIX naming the fault). */
BSLZ4_API int bslz4_matrix_normalise(const bslz4_matrix_input* input, bslz4_matrix** matrix);
/* A new matrix without the weights of pixels whose mask byte is 0 (nonzero = use). */
BSLZ4_API int bslz4_matrix_fold_mask(const bslz4_matrix* matrix, const uint8_t* mask, size_t mask_bytes,
                                     bslz4_matrix** folded);
/* A new fixed-point matrix for BSLZ4_ACC_I64 with pixels of pixel_type; weight_bits 2..63 (63,
 * the C++ default: the widest scale the int64 sums allow). See bslz4::fixed_point_matrix for
 * what is exact and what is refused. */
BSLZ4_API int bslz4_matrix_fixed_point(const bslz4_matrix* matrix, int pixel_type, int weight_bits,
                                       bslz4_matrix** fixed);
BSLZ4_API int bslz4_matrix_view_of(const bslz4_matrix* matrix, bslz4_matrix_view* view);
BSLZ4_API int bslz4_matrix_destroy(bslz4_matrix* matrix);

/* ---- Sparse lists on the CPU (bslz4::Chunk2Sparse) -------------------------------------- */

/* A pixel is listed when its mask byte is nonzero and its value is above the cut (strictly,
 * compared exactly; NaN never). Chunks are passed as an array of pointers and an array of
 * lengths (multi), or as offsets and lengths into one buffer (from_buffer). */
typedef struct bslz4_chunk2sparse bslz4_chunk2sparse;

/* mask: ni * nj bytes (mask_bytes must say so), nonzero = use the pixel. */
BSLZ4_API int bslz4_chunk2sparse_create(const uint8_t* mask, size_t mask_bytes, size_t ni, size_t nj, int pixel_type,
                                        const bslz4_options* options, bslz4_chunk2sparse** handle);
BSLZ4_API int bslz4_chunk2sparse_destroy(bslz4_chunk2sparse* handle);
/* One frame (a bad chunk fails the call whatever on_error says). */
BSLZ4_API int bslz4_chunk2sparse_call(bslz4_chunk2sparse* handle, const void* chunk, size_t chunk_bytes, double cut,
                                      bslz4_frame* frame);
BSLZ4_API int bslz4_chunk2sparse_multi(bslz4_chunk2sparse* handle, const void* const* chunks, const size_t* chunk_bytes,
                                       size_t nchunks, double cut, bslz4_batch* batch);
BSLZ4_API int bslz4_chunk2sparse_from_buffer(bslz4_chunk2sparse* handle, const void* base, size_t base_bytes,
                                             const uint64_t* offsets, const uint64_t* lengths, size_t nchunks,
                                             double cut, bslz4_batch* batch);
BSLZ4_API int bslz4_chunk2sparse_coo(bslz4_chunk2sparse* handle, const void* chunk, size_t chunk_bytes, double cut,
                                     bslz4_coo* coo);
/* Dense frames (ni * nj pixels each, frame_bytes[k] bytes) instead of chunks. */
BSLZ4_API int bslz4_chunk2sparse_from_frames(bslz4_chunk2sparse* handle, const void* const* frames,
                                             const size_t* frame_bytes, size_t nframes, double cut,
                                             bslz4_batch* batch);
/* Top pixels from the next call on (howmany / nthresholds: see BSLZ4_EVERY_PIXEL above). */
BSLZ4_API int bslz4_chunk2sparse_set_top_pixels(bslz4_chunk2sparse* handle, size_t howmany, const double* thresholds,
                                                size_t nthresholds);
/* What the handle was made with (each output may be NULL): frame shape, pixel type, and the
 * threads multi and from_buffer use. */
BSLZ4_API int bslz4_chunk2sparse_info(const bslz4_chunk2sparse* handle, size_t* ni, size_t* nj, int* pixel_type,
                                      unsigned* threads);

/* ---- Sparse lists and powders on the CPU (bslz4::Chunk2SparseCSC) ----------------------- */

/* Lists as bslz4_chunk2sparse, and each frame integrated: powder = matrix @ frame, the mask
 * folded in. The matrix is copied: it may be destroyed after create. */
typedef struct bslz4_chunk2sparse_csc bslz4_chunk2sparse_csc;

BSLZ4_API int bslz4_chunk2sparse_csc_create(const uint8_t* mask, size_t mask_bytes, size_t ni, size_t nj,
                                            int pixel_type, const bslz4_matrix* matrix, int acc,
                                            const bslz4_options* options, bslz4_chunk2sparse_csc** handle);
BSLZ4_API int bslz4_chunk2sparse_csc_destroy(bslz4_chunk2sparse_csc* handle);
BSLZ4_API int bslz4_chunk2sparse_csc_call(bslz4_chunk2sparse_csc* handle, const void* chunk, size_t chunk_bytes,
                                          double cut, bslz4_frame* frame, bslz4_powder* powder);
BSLZ4_API int bslz4_chunk2sparse_csc_multi(bslz4_chunk2sparse_csc* handle, const void* const* chunks,
                                           const size_t* chunk_bytes, size_t nchunks, double cut, bslz4_batch* batch,
                                           bslz4_powder* powder);
BSLZ4_API int bslz4_chunk2sparse_csc_from_buffer(bslz4_chunk2sparse_csc* handle, const void* base, size_t base_bytes,
                                                 const uint64_t* offsets, const uint64_t* lengths, size_t nchunks,
                                                 double cut, bslz4_batch* batch, bslz4_powder* powder);
BSLZ4_API int bslz4_chunk2sparse_csc_coo(bslz4_chunk2sparse_csc* handle, const void* chunk, size_t chunk_bytes,
                                         double cut, bslz4_coo* coo, bslz4_powder* powder);
BSLZ4_API int bslz4_chunk2sparse_csc_from_frames(bslz4_chunk2sparse_csc* handle, const void* const* frames,
                                                 const size_t* frame_bytes, size_t nframes, double cut,
                                                 bslz4_batch* batch, bslz4_powder* powder);
BSLZ4_API int bslz4_chunk2sparse_csc_set_top_pixels(bslz4_chunk2sparse_csc* handle, size_t howmany,
                                                    const double* thresholds, size_t nthresholds);
/* The powders' bins and accumulator (each output may be NULL). */
BSLZ4_API int bslz4_chunk2sparse_csc_info(const bslz4_chunk2sparse_csc* handle, size_t* bins, int* acc);

/* ---- The GPU (bslz4::cuda) -------------------------------------------------------------- */

/* *available: 1 when the driver loads, is new enough for the embedded kernels and sees a
 * device; else 0 and *reason says why ("" when available; lent until this thread's next call
 * of this function). Returns BSLZ4_OK in every build: without the GPU runtime the answer is 0,
 * "built without GPU support". reason may be NULL. */
BSLZ4_API int bslz4_gpu_available(int* available, const char** reason);
BSLZ4_API int bslz4_gpu_device_count(int* count);
/* The architectures the embedded kernels were built for, e.g. "75 80 90 (PTX 90)". */
BSLZ4_API int bslz4_gpu_built_architectures(const char** archs);
/* Drops the masks and matrices the GPU objects share per process and device. */
BSLZ4_API int bslz4_gpu_release_shared(void);

/* An array left on the GPU (decompress, integrate, or bslz4_gpu_device_buffer_create), owned by
 * the caller: destroy it. */
typedef struct bslz4_device_array bslz4_device_array;

/* A new device allocation on `device` holding a copy of bytes host bytes (chunks for the
 * _from_device calls, for instance); a u8 array of shape (bytes). */
BSLZ4_API int bslz4_gpu_device_buffer_create(const void* host, size_t bytes, int device, bslz4_device_array** array);
BSLZ4_API int bslz4_device_array_destroy(bslz4_device_array* array);
/* The CUdeviceptr, as an integer. */
BSLZ4_API int bslz4_device_array_pointer(const bslz4_device_array* array, uint64_t* device_pointer);
BSLZ4_API int bslz4_device_array_bytes(const bslz4_device_array* array, size_t* bytes);
BSLZ4_API int bslz4_device_array_device(const bslz4_device_array* array, int* device);
/* The shape (C order) into shape[0, capacity); *ndim set also when capacity is too small. */
BSLZ4_API int bslz4_device_array_shape(const bslz4_device_array* array, size_t* shape, size_t capacity, size_t* ndim);
/* "u8" ... "f32" for frames, "f64" "f32" "i64" for powders; lent by the array. */
BSLZ4_API int bslz4_device_array_dtype(const bslz4_device_array* array, const char** dtype);
/* Copies the whole array to the host (out_bytes at least its bytes). */
BSLZ4_API int bslz4_device_array_copy_to_host(const bslz4_device_array* array, void* out, size_t out_bytes);
/* A DLPack 1.0 DLManagedTensorVersioned* sharing the memory (see <bslz4/cuda/dlpack.h>); the
 * caller calls its deleter exactly once. */
BSLZ4_API int bslz4_device_array_to_dlpack(const bslz4_device_array* array, void** managed_tensor_versioned);

/* Page-locked (pinned) host memory: chunks placed here by the caller (a reader's ring buffer)
 * go to the GPU by DMA from _from_buffer, without the staging copy. Pinned for every device.
 * Where the driver refuses to pin, it is pageable memory instead (after a one-time warning,
 * see bslz4_set_log_handler) and *pinned says 0. */
typedef struct bslz4_pinned_memory bslz4_pinned_memory;

BSLZ4_API int bslz4_gpu_pinned_memory_create(size_t bytes, int device, bslz4_pinned_memory** memory);
BSLZ4_API int bslz4_pinned_memory_destroy(bslz4_pinned_memory* memory);
/* Its address and size; *pinned (may be NULL) 1 when the driver pinned it. */
BSLZ4_API int bslz4_pinned_memory_data(const bslz4_pinned_memory* memory, void** data, size_t* bytes, int* pinned);

/* Sparse lists on the GPU (bslz4::cuda::Chunk2Sparse): the CPU class's results, bit for bit.
 * lz4 or zstd chunks of 8 kB blocks, pixel types u8 u16 u32 i8 i16 i32 f32. Create fails with
 * BSLZ4_E_NO_GPU (the reason in the message) where there is no usable GPU. */
typedef struct bslz4_gpu_chunk2sparse bslz4_gpu_chunk2sparse;

BSLZ4_API int bslz4_gpu_chunk2sparse_create(const uint8_t* mask, size_t mask_bytes, size_t ni, size_t nj,
                                            int pixel_type, const bslz4_options* options,
                                            bslz4_gpu_chunk2sparse** handle);
BSLZ4_API int bslz4_gpu_chunk2sparse_destroy(bslz4_gpu_chunk2sparse* handle);
BSLZ4_API int bslz4_gpu_chunk2sparse_call(bslz4_gpu_chunk2sparse* handle, const void* chunk, size_t chunk_bytes,
                                          double cut, bslz4_frame* frame);
BSLZ4_API int bslz4_gpu_chunk2sparse_multi(bslz4_gpu_chunk2sparse* handle, const void* const* chunks,
                                           const size_t* chunk_bytes, size_t nchunks, double cut, bslz4_batch* batch);
BSLZ4_API int bslz4_gpu_chunk2sparse_from_buffer(bslz4_gpu_chunk2sparse* handle, const void* base, size_t base_bytes,
                                                 const uint64_t* offsets, const uint64_t* lengths, size_t nchunks,
                                                 double cut, bslz4_batch* batch);
BSLZ4_API int bslz4_gpu_chunk2sparse_coo(bslz4_gpu_chunk2sparse* handle, const void* chunk, size_t chunk_bytes,
                                         double cut, bslz4_coo* coo);
/* Chunks already in GPU memory: chunk f is lengths[f] bytes at device_pointer + offsets[f]
 * (a CUdeviceptr of the handle's device, as an integer); lz4 only. */
BSLZ4_API int bslz4_gpu_chunk2sparse_from_device(bslz4_gpu_chunk2sparse* handle, uint64_t device_pointer,
                                                 const uint64_t* offsets, const uint64_t* lengths, size_t nchunks,
                                                 double cut, bslz4_batch* batch);
/* The dense frames (nframes, ni, nj), left on the GPU in a new array the caller owns. */
BSLZ4_API int bslz4_gpu_chunk2sparse_decompress(bslz4_gpu_chunk2sparse* handle, const void* const* chunks,
                                                const size_t* chunk_bytes, size_t nchunks,
                                                bslz4_device_array** frames);
BSLZ4_API int bslz4_gpu_chunk2sparse_decompress_from_device(bslz4_gpu_chunk2sparse* handle, uint64_t device_pointer,
                                                            const uint64_t* offsets, const uint64_t* lengths,
                                                            size_t nchunks, bslz4_device_array** frames);
BSLZ4_API int bslz4_gpu_chunk2sparse_set_top_pixels(bslz4_gpu_chunk2sparse* handle, size_t howmany,
                                                    const double* thresholds, size_t nthresholds);
/* Grows ahead what calls of up to `frames` chunks of up to chunk_bytes each would grow. */
BSLZ4_API int bslz4_gpu_chunk2sparse_reserve(bslz4_gpu_chunk2sparse* handle, size_t frames, size_t chunk_bytes);
/* Frames of the last call with more than cap pixels, listed on the host instead. */
BSLZ4_API int bslz4_gpu_chunk2sparse_last_host(const bslz4_gpu_chunk2sparse* handle, size_t* frames);
/* Most pixels a frame's list may hold on the device. */
BSLZ4_API int bslz4_gpu_chunk2sparse_cap(const bslz4_gpu_chunk2sparse* handle, size_t* pixels);
/* The batch and group sizes chosen and the device (each output may be NULL). */
BSLZ4_API int bslz4_gpu_chunk2sparse_info(const bslz4_gpu_chunk2sparse* handle, unsigned* batch, unsigned* group,
                                          int* device);
/* Kernel-only throughput, for benchmarks: the chunks uploaded once, decoded `repeats` times
 * with no host transfer; *seconds is the GPU's time (device events). */
BSLZ4_API int bslz4_gpu_chunk2sparse_time_on_device(bslz4_gpu_chunk2sparse* handle, const void* const* chunks,
                                                    const size_t* chunk_bytes, size_t nchunks, double cut,
                                                    unsigned repeats, double* seconds);

/* Lists and powders on the GPU (bslz4::cuda::Chunk2SparseCSC). */
typedef struct bslz4_gpu_chunk2sparse_csc bslz4_gpu_chunk2sparse_csc;

BSLZ4_API int bslz4_gpu_chunk2sparse_csc_create(const uint8_t* mask, size_t mask_bytes, size_t ni, size_t nj,
                                                int pixel_type, const bslz4_matrix* matrix, int acc,
                                                const bslz4_options* options, bslz4_gpu_chunk2sparse_csc** handle);
/* The matrix added to a lists handle already made (its context, kernels, buffers, options and
 * top-pixels rule taken over), so that a program can make its GPU objects while it reads its
 * matrix. On success the lists handle is spent: any call on it but _destroy fails with
 * BSLZ4_E_BAD_ARGUMENT, and it must still be destroyed; what it lent is lent no more. On
 * failure (a matrix of the wrong size, no memory for the partial sums) it is as it was. */
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_from_lists(bslz4_gpu_chunk2sparse* lists, const bslz4_matrix* matrix,
                                                    int acc, bslz4_gpu_chunk2sparse_csc** handle);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_destroy(bslz4_gpu_chunk2sparse_csc* handle);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_call(bslz4_gpu_chunk2sparse_csc* handle, const void* chunk,
                                              size_t chunk_bytes, double cut, bslz4_frame* frame,
                                              bslz4_powder* powder);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_multi(bslz4_gpu_chunk2sparse_csc* handle, const void* const* chunks,
                                               const size_t* chunk_bytes, size_t nchunks, double cut,
                                               bslz4_batch* batch, bslz4_powder* powder);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_from_buffer(bslz4_gpu_chunk2sparse_csc* handle, const void* base,
                                                     size_t base_bytes, const uint64_t* offsets,
                                                     const uint64_t* lengths, size_t nchunks, double cut,
                                                     bslz4_batch* batch, bslz4_powder* powder);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_coo(bslz4_gpu_chunk2sparse_csc* handle, const void* chunk,
                                             size_t chunk_bytes, double cut, bslz4_coo* coo, bslz4_powder* powder);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_from_device(bslz4_gpu_chunk2sparse_csc* handle, uint64_t device_pointer,
                                                     const uint64_t* offsets, const uint64_t* lengths, size_t nchunks,
                                                     double cut, bslz4_batch* batch, bslz4_powder* powder);
/* Powders (nframes, bins) of acc's type, left on the GPU in a new array the caller owns. */
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_integrate(bslz4_gpu_chunk2sparse_csc* handle, const void* const* chunks,
                                                   const size_t* chunk_bytes, size_t nchunks,
                                                   bslz4_device_array** powders);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_integrate_from_device(bslz4_gpu_chunk2sparse_csc* handle,
                                                               uint64_t device_pointer, const uint64_t* offsets,
                                                               const uint64_t* lengths, size_t nchunks,
                                                               bslz4_device_array** powders);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_decompress(bslz4_gpu_chunk2sparse_csc* handle, const void* const* chunks,
                                                    const size_t* chunk_bytes, size_t nchunks,
                                                    bslz4_device_array** frames);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_decompress_from_device(bslz4_gpu_chunk2sparse_csc* handle,
                                                                uint64_t device_pointer, const uint64_t* offsets,
                                                                const uint64_t* lengths, size_t nchunks,
                                                                bslz4_device_array** frames);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_set_top_pixels(bslz4_gpu_chunk2sparse_csc* handle, size_t howmany,
                                                        const double* thresholds, size_t nthresholds);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_reserve(bslz4_gpu_chunk2sparse_csc* handle, size_t frames,
                                                 size_t chunk_bytes);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_last_host(const bslz4_gpu_chunk2sparse_csc* handle, size_t* frames);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_cap(const bslz4_gpu_chunk2sparse_csc* handle, size_t* pixels);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_info(const bslz4_gpu_chunk2sparse_csc* handle, unsigned* batch,
                                              unsigned* group, size_t* bins, int* acc);
BSLZ4_API int bslz4_gpu_chunk2sparse_csc_time_on_device(bslz4_gpu_chunk2sparse_csc* handle,
                                                        const void* const* chunks, const size_t* chunk_bytes,
                                                        size_t nchunks, double cut, unsigned repeats,
                                                        double* seconds);

#ifdef __cplusplus
}
#endif

#endif /* BSLZ4_H */
