/* A C99 program built against an installed bslz4 (bslz4.h): decodes a reference chunk, checks
 * it against its raw pixels, and checks that a truncated chunk is a status with a message.
 * usage: consumer_c CHUNK RAW ELEM_SIZE */
#include <bslz4/bslz4.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char* read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    unsigned char* data;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    data = (unsigned char*)malloc((size_t)n + 1);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

static int fail(const char* what) {
    fprintf(stderr, "consumer_c: %s\n", what);
    return 1;
}

int main(int argc, char** argv) {
    size_t chunk_bytes = 0, raw_bytes = 0, decoded_bytes = 0, elem_size;
    unsigned char *chunk, *raw, *out;
    int status;
    if (argc != 4) return fail("usage: consumer_c CHUNK RAW ELEM_SIZE");
    chunk = read_file(argv[1], &chunk_bytes);
    raw = read_file(argv[2], &raw_bytes);
    elem_size = (size_t)strtoul(argv[3], NULL, 10);
    if (!chunk || !raw) return fail("cannot read the chunk or its raw pixels");

    if (bslz4_decoded_size(chunk, chunk_bytes, &decoded_bytes) != 0) return fail(bslz4_last_error());
    if (decoded_bytes != raw_bytes) return fail("the decoded size is not the raw file's");
    out = (unsigned char*)malloc(decoded_bytes + 1);
    if (!out) return fail("out of memory");
    status = bslz4_decode(chunk, chunk_bytes, elem_size, 0, out, decoded_bytes);
    if (status != 0) return fail(bslz4_last_error());
    if (memcmp(out, raw, raw_bytes) != 0) return fail("the reference chunk decodes to other pixels");

    status = bslz4_decode(chunk, chunk_bytes / 2, elem_size, 0, out, decoded_bytes);
    if (status == 0 || bslz4_last_error() == NULL || bslz4_last_error()[0] == '\0')
        return fail("a truncated chunk gave no status and message");

    printf("consumer_c: ok (library %s, %lu reference bytes)\n", bslz4_version(), (unsigned long)raw_bytes);
    free(out);
    free(raw);
    free(chunk);
    return 0;
}
