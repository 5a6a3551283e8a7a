/* pyFAI's matrix of ../shared/testdata/powder.h5 (csr and csc groups) applied through the C API
 * to the frames of eiger_like.h5 with its pixel_mask gives expected_powder: f64 to 1e-12, f32
 * and the i64 fixed-point matrix to 1e-5, from multi and from_buffer. The chunks are read raw
 * with HDF5's direct chunk read. Exit 77 with the reason without ../shared. */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bslz4/bslz4.h"
#include "c_check.h"

enum { FRAMES = 6, NI = 514, NJ = 1030 };

/* The whole dataset at path in memory type `type` (malloc'ed), its element count in *n. */
static void* read_dataset(hid_t file, const char* path, hid_t type, size_t* n) {
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT), s;
    hssize_t count;
    void* out = NULL;
    if (d < 0) return NULL;
    s = H5Dget_space(d);
    count = H5Sget_simple_extent_npoints(s);
    if (count > 0 && (out = malloc((size_t)count * H5Tget_size(type))) != NULL &&
        H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) {
        free(out);
        out = NULL;
    }
    *n = count > 0 ? (size_t)count : 0;
    H5Sclose(s);
    H5Dclose(d);
    return out;
}

/* Frame f's chunk as stored (filter 32008's bytes), malloc'ed. */
static unsigned char* read_chunk(hid_t data, size_t f, size_t* bytes) {
    hsize_t offset[3] = {0, 0, 0}, stored = 0;
    uint32_t filter_mask = 0;
    unsigned char* out;
    offset[0] = f;
    if (H5Dget_chunk_storage_size(data, offset, &stored) < 0 || stored == 0) return NULL;
    out = (unsigned char*)malloc(stored);
    if (out && H5Dread_chunk(data, H5P_DEFAULT, offset, &filter_mask, out) < 0) {
        free(out);
        return NULL;
    }
    *bytes = (size_t)stored;
    return out;
}

/* The matrix of group "csr" or "csc" in powder.h5, normalised. */
static bslz4_matrix* load_matrix(hid_t powder, const char* group) {
    char path[64];
    size_t ndata = 0, nindices = 0, nindptr = 0;
    float* data;
    int32_t *indices, *indptr;
    int64_t shape[2] = {0, 0};
    hid_t g = H5Gopen2(powder, group, H5P_DEFAULT), a;
    bslz4_matrix_input in;
    bslz4_matrix* m = NULL;
    a = H5Aopen(g, "shape", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_INT64, shape);
    H5Aclose(a);
    H5Gclose(g);
    snprintf(path, sizeof path, "/%s/data", group);
    data = (float*)read_dataset(powder, path, H5T_NATIVE_FLOAT, &ndata);
    snprintf(path, sizeof path, "/%s/indices", group);
    indices = (int32_t*)read_dataset(powder, path, H5T_NATIVE_INT32, &nindices);
    snprintf(path, sizeof path, "/%s/indptr", group);
    indptr = (int32_t*)read_dataset(powder, path, H5T_NATIVE_INT32, &nindptr);
    in.layout = strcmp(group, "csc") == 0 ? BSLZ4_LAYOUT_CSC : BSLZ4_LAYOUT_CSR;
    in.bins = (size_t)shape[0];
    in.pixels = (size_t)shape[1];
    in.data = data;
    in.data_size = ndata;
    in.index_type = BSLZ4_INDEX_I32;
    in.indices = indices;
    in.indices_size = nindices;
    in.indptr = indptr;
    in.indptr_size = nindptr;
    CHECK_OK(bslz4_matrix_normalise(&in, &m), group);
    free(data);
    free(indices);
    free(indptr);
    return m;
}

/* The worst relative difference of a powder from expected (frames x bins). */
static double worst_difference(const bslz4_powder* p, const double* expected, size_t bins) {
    double worst = p->nframes == FRAMES && p->bins == bins ? 0 : INFINITY, v, e, d;
    size_t f, b;
    for (f = 0; f < FRAMES && worst < INFINITY; ++f)
        for (b = 0; b < bins; ++b) {
            if (bslz4_powder_value(p, f, b, &v) != BSLZ4_OK) return INFINITY;
            e = expected[f * bins + b];
            d = fabs(v - e) / (fabs(e) > 1 ? fabs(e) : 1);
            if (!(d <= worst)) worst = d;
        }
    return worst;
}

int main(void) {
    const char* dir = getenv("BSLZ4_TESTDATA");
    char path[4096];
    hid_t eiger, powder, data;
    unsigned char *chunks[FRAMES], *use, *buffer;
    size_t chunk_bytes[FRAMES], n = 0, nexpected = 0, bins, f, i, total = 0;
    uint64_t offsets[FRAMES], lengths[FRAMES];
    uint32_t* nexus;
    double* expected;
    const char* const groups[2] = {"csr", "csc"};
    int g;
    FILE* probe;
    if (!dir) dir = "../shared/testdata";
    snprintf(path, sizeof path, "%s/powder.h5", dir);
    probe = fopen(path, "rb");
    if (!probe) {
        printf("SKIP: no shared reference data at %s (a clone without ../shared)\n", dir);
        return 77;
    }
    fclose(probe);
    powder = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    snprintf(path, sizeof path, "%s/eiger_like.h5", dir);
    eiger = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (powder < 0 || eiger < 0) {
        fprintf(stderr, "FAILED: cannot open powder.h5 or eiger_like.h5 in %s\n", dir);
        return 1;
    }
    data = H5Dopen2(eiger, "/entry/data/data", H5P_DEFAULT);
    for (f = 0; f < FRAMES; ++f) {
        chunks[f] = read_chunk(data, f, &chunk_bytes[f]);
        CHECK(chunks[f] != NULL, "a frame's chunk");
        if (!chunks[f]) return 1;
        offsets[f] = total;
        lengths[f] = chunk_bytes[f];
        total += chunk_bytes[f];
    }
    H5Dclose(data);
    buffer = (unsigned char*)malloc(total);
    for (f = 0; f < FRAMES; ++f) memcpy(buffer + offsets[f], chunks[f], chunk_bytes[f]);
    nexus = (uint32_t*)read_dataset(eiger, "/entry/instrument/detector/pixel_mask", H5T_NATIVE_UINT32, &n);
    CHECK(nexus && n == (size_t)NI * NJ, "the pixel mask");
    use = (unsigned char*)malloc(n);
    for (i = 0; i < n; ++i) use[i] = nexus[i] == 0; /* NeXus: nonzero = do not use */
    expected = (double*)read_dataset(powder, "/expected_powder", H5T_NATIVE_DOUBLE, &nexpected);
    bins = nexpected / FRAMES;
    CHECK(expected && bins > 0, "expected_powder");

    for (g = 0; g < 2; ++g) {
        bslz4_matrix *m = load_matrix(powder, groups[g]), *fixed = NULL;
        int acc;
        CHECK_OK(bslz4_matrix_fixed_point(m, BSLZ4_U32, 24, &fixed), groups[g]);
        for (acc = BSLZ4_ACC_F64; acc <= BSLZ4_ACC_I64; ++acc) {
            const double tolerance = acc == BSLZ4_ACC_F64 ? 1e-12 : 1e-5;
            bslz4_chunk2sparse_csc* csc = NULL;
            bslz4_batch batch;
            bslz4_powder p;
            double worst;
            CHECK_OK(bslz4_chunk2sparse_csc_create(use, n, NI, NJ, BSLZ4_U32, acc == BSLZ4_ACC_I64 ? fixed : m, acc, NULL,
                                                   &csc),
                     groups[g]);
            if (!csc) continue;
            CHECK_OK(bslz4_chunk2sparse_csc_multi(csc, (const void* const*)chunks, chunk_bytes, FRAMES, 10.0, &batch, &p),
                     groups[g]);
            worst = worst_difference(&p, expected, bins);
            printf("%s %s multi: largest relative difference %.3g\n", groups[g],
                   acc == BSLZ4_ACC_F64 ? "f64" : acc == BSLZ4_ACC_F32 ? "f32" : "i64", worst);
            CHECK(worst <= tolerance, groups[g]);
            CHECK_OK(bslz4_chunk2sparse_csc_from_buffer(csc, buffer, total, offsets, lengths, FRAMES, 10.0, &batch, &p),
                     groups[g]);
            CHECK(worst_difference(&p, expected, bins) <= tolerance, groups[g]);
            bslz4_chunk2sparse_csc_destroy(csc);
        }
        bslz4_matrix_destroy(m);
        bslz4_matrix_destroy(fixed);
    }
    for (f = 0; f < FRAMES; ++f) free(chunks[f]);
    free(buffer);
    free(nexus);
    free(use);
    free(expected);
    H5Fclose(eiger);
    H5Fclose(powder);
    printf("powders: %d checks, %d failed\n", c_check_count, c_check_failures);
    return c_check_failures ? 1 : 0;
}
