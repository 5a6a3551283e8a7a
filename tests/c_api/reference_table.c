#include "reference_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bslz4/bslz4.h"

int pixel_type_named(const char* name) {
    static const char* const names[] = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64"};
    int t;
    for (t = 0; t < 10; ++t)
        if (strcmp(name, names[t]) == 0) return t;
    return -1;
}

size_t read_reference_table(const char* dir, reference_case** cases, char* why, size_t why_bytes) {
    char path[4096], line[1024], dtype[16], codec[16], raw[8];
    size_t n = 0, capacity = 0, line_number = 0;
    FILE* f;
    *cases = NULL;
    snprintf(path, sizeof path, "%s/cases.tsv", dir);
    f = fopen(path, "r");
    if (!f) {
        snprintf(why, why_bytes, "no reference table at %s", path);
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        reference_case c;
        ++line_number;
        if (line_number == 1) continue; /* the header row */
        memset(&c, 0, sizeof c);
        if (sscanf(line, "%127s %15s %zu %zu %zu %15s %zu %zu %64s %7s", c.name, dtype, &c.elem_size, &c.ni, &c.nj,
                   codec, &c.block_bytes, &c.chunk_bytes, c.sha256, raw) != 10 ||
            (c.pixel_type = pixel_type_named(dtype)) < 0) {
            snprintf(why, why_bytes, "%s line %zu is malformed", path, line_number);
            fclose(f);
            free(*cases);
            *cases = NULL;
            return 0;
        }
        c.codec = strcmp(codec, "zstd") == 0 ? BSLZ4_CODEC_ZSTD : BSLZ4_CODEC_LZ4;
        c.has_raw = strcmp(raw, "yes") == 0;
        if (n == capacity) {
            reference_case* grown;
            capacity = capacity ? 2 * capacity : 64;
            grown = (reference_case*)realloc(*cases, capacity * sizeof c);
            if (!grown) {
                snprintf(why, why_bytes, "out of memory reading %s", path);
                fclose(f);
                free(*cases);
                *cases = NULL;
                return 0;
            }
            *cases = grown;
        }
        (*cases)[n++] = c;
    }
    fclose(f);
    if (n == 0) snprintf(why, why_bytes, "%s lists no case", path);
    return n;
}

unsigned char* read_case_file(const char* dir, const char* name, const char* ext, size_t* bytes) {
    char path[4096];
    unsigned char* data;
    long size;
    FILE* f;
    snprintf(path, sizeof path, "%s/chunks/%s.%s", dir, name, ext);
    f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    data = (unsigned char*)malloc(size ? (size_t)size : 1);
    if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *bytes = (size_t)size;
    return data;
}
