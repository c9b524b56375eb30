/*
 * Runs one operator over raw little-endian data files, for bit-exact comparison with
 * tests/hg_model.py.
 *   ops_driver ht <dtype> <n> <grad> <self> <out> <min-f32-bits> <max-f32-bits> <layout>
 *   ops_driver hs <grad-dtype> <self-dtype> <out-dtype> <n> <grad> <self> <out> <layout>
 * dtype: f32 | f16 | bf16.  layout: contig (1-D tensors) or strided (inputs stepped by 2
 * with an offset, out stepped by 3, so the staging copies run too).  Exit 0 on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_hardsigmoid_backward.h"
#include "aclnnop/aclnn_hardtanh_backward.h"

static int parse_dtype(const char *s, aclDataType *dt, size_t *size)
{
    if (strcmp(s, "f32") == 0) { *dt = ACL_FLOAT; *size = 4; return 0; }
    if (strcmp(s, "f16") == 0) { *dt = ACL_FLOAT16; *size = 2; return 0; }
    if (strcmp(s, "bf16") == 0) { *dt = ACL_BF16; *size = 2; return 0; }
    fprintf(stderr, "bad dtype %s\n", s);
    return 1;
}

static void *read_file(const char *path, size_t bytes)
{
    unsigned char *buf = malloc(bytes ? bytes : 1);
    FILE *f = fopen(path, "rb");
    if (buf == NULL || f == NULL || fread(buf, 1, bytes, f) != bytes) {
        fprintf(stderr, "cannot read %zu bytes from %s\n", bytes, path);
        exit(3);
    }
    fclose(f);
    return buf;
}

/* A device tensor of n elements: contiguous, or every `step`-th element after `offset`. */
typedef struct dev_tensor {
    void *dev;
    size_t elsize, total;
    int64_t n, step, offset;
    aclTensor *t;
} dev_tensor;

static void dev_make(dev_tensor *d, aclDataType dt, size_t elsize, int64_t n, int64_t step, int64_t offset,
                     const void *packed)
{
    d->elsize = elsize;
    d->n = n;
    d->step = step;
    d->offset = offset;
    d->total = (size_t)(offset + n * step + 1);
    unsigned char *host = calloc(d->total, elsize);
    memset(host, 0x5a, d->total * elsize);
    if (packed) {
        for (int64_t i = 0; i < n; i++) {
            memcpy(host + (size_t)(offset + i * step) * elsize, (const unsigned char *)packed + (size_t)i * elsize,
                   elsize);
        }
    }
    if (aclrtMalloc(&d->dev, d->total * elsize, ACL_MEM_MALLOC_HUGE_FIRST) != 0 ||
        aclrtMemcpy(d->dev, d->total * elsize, host, d->total * elsize, ACL_MEMCPY_HOST_TO_DEVICE) != 0) {
        fprintf(stderr, "device buffer failed\n");
        exit(4);
    }
    free(host);
    int64_t shape[1] = {n}, strides[1] = {step}, storage[1] = {(int64_t)d->total};
    d->t = aclCreateTensor(shape, 1, dt, strides, offset, ACL_FORMAT_ND, storage, 1, d->dev);
    if (d->t == NULL) {
        fprintf(stderr, "aclCreateTensor failed\n");
        exit(4);
    }
}

/* Copies the view back packed; checks that the gaps of a stepped out kept their fill. */
static int dev_read(dev_tensor *d, void *packed)
{
    unsigned char *host = malloc(d->total * d->elsize);
    if (aclrtMemcpy(host, d->total * d->elsize, d->dev, d->total * d->elsize, ACL_MEMCPY_DEVICE_TO_HOST) != 0) {
        return 1;
    }
    int bad = 0;
    for (size_t k = 0; k < d->total; k++) {
        int64_t rel = (int64_t)k - d->offset;
        int in_view = rel >= 0 && rel % d->step == 0 && rel / d->step < d->n;
        if (in_view) {
            memcpy((unsigned char *)packed + (size_t)(rel / d->step) * d->elsize, host + k * d->elsize, d->elsize);
        } else {
            for (size_t b = 0; b < d->elsize; b++) {
                bad |= host[k * d->elsize + b] != 0x5a;
            }
        }
    }
    free(host);
    if (bad) {
        fprintf(stderr, "out was written outside its view\n");
    }
    return bad;
}

static void dev_free(dev_tensor *d)
{
    aclDestroyTensor(d->t);
    aclrtFree(d->dev);
}

int main(int argc, char **argv)
{
    int ht = argc == 10 && strcmp(argv[1], "ht") == 0;
    int hs = argc == 10 && strcmp(argv[1], "hs") == 0;
    if (!ht && !hs) {
        fprintf(stderr, "usage: see the comment at the top of ops_driver.c\n");
        return 2;
    }
    aclDataType gdt, sdt, odt;
    size_t gsz, ssz, osz;
    const char **files;
    const char *layout = argv[9];
    int64_t n;
    if (ht) {
        if (parse_dtype(argv[2], &gdt, &gsz)) return 2;
        sdt = odt = gdt;
        ssz = osz = gsz;
        n = strtoll(argv[3], NULL, 10);
        files = (const char **)&argv[4];
    } else {
        if (parse_dtype(argv[2], &gdt, &gsz) || parse_dtype(argv[3], &sdt, &ssz) || parse_dtype(argv[4], &odt, &osz))
            return 2;
        n = strtoll(argv[5], NULL, 10);
        files = (const char **)&argv[6];
    }
    int strided = strcmp(layout, "strided") == 0;
    if (aclInit(NULL) != 0 || aclrtSetDevice(0) != 0) {
        fprintf(stderr, "runtime set-up failed\n");
        return 4;
    }
    aclrtStream stream = NULL;
    aclrtCreateStream(&stream);
    void *g = read_file(files[0], (size_t)n * gsz);
    void *s = read_file(files[1], (size_t)n * ssz);
    dev_tensor dg, ds, dout;
    dev_make(&dg, gdt, gsz, n, strided ? 2 : 1, strided ? 3 : 0, g);
    dev_make(&ds, sdt, ssz, n, strided ? 2 : 1, strided ? 1 : 0, s);
    dev_make(&dout, odt, osz, n, strided ? 3 : 1, strided ? 2 : 0, NULL);

    uint64_t ws = 0;
    aclOpExecutor *exe = NULL;
    aclScalar *lo = NULL, *hi = NULL;
    int rc;
    if (ht) {
        uint32_t lb = (uint32_t)strtoul(argv[7], NULL, 0), hb = (uint32_t)strtoul(argv[8], NULL, 0);
        float lf, hf;
        memcpy(&lf, &lb, 4);
        memcpy(&hf, &hb, 4);
        lo = aclCreateScalar(&lf, ACL_FLOAT);
        hi = aclCreateScalar(&hf, ACL_FLOAT);
        rc = aclnnHardtanhBackwardGetWorkspaceSize(dg.t, ds.t, lo, hi, dout.t, &ws, &exe);
    } else {
        rc = aclnnHardsigmoidBackwardGetWorkspaceSize(dg.t, ds.t, dout.t, &ws, &exe);
    }
    if (rc != 0) {
        fprintf(stderr, "phase 1: %d %s\n", rc, aclGetRecentErrMsg());
        return 1;
    }
    if ((ws > 0) != (strided && n > 0)) {
        fprintf(stderr, "workspace %llu unexpected for layout %s\n", (unsigned long long)ws, layout);
        return 1;
    }
    void *wsp = NULL;
    if (ws > 0 && aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST) != 0) {
        return 4;
    }
    rc = ht ? aclnnHardtanhBackward(wsp, ws, exe, stream) : aclnnHardsigmoidBackward(wsp, ws, exe, stream);
    if (rc != 0 || aclrtSynchronizeStream(stream) != 0) {
        fprintf(stderr, "phase 2: %d %s\n", rc, aclGetRecentErrMsg());
        return 1;
    }
    void *o = malloc((size_t)n * osz + 1);
    if (dev_read(&dout, o)) {
        return 1;
    }
    FILE *f = fopen(files[2], "wb");
    if (f == NULL || fwrite(o, 1, (size_t)n * osz, f) != (size_t)n * osz) {
        return 3;
    }
    fclose(f);
    if (wsp) aclrtFree(wsp);
    if (lo) aclDestroyScalar(lo);
    if (hi) aclDestroyScalar(hi);
    dev_free(&dg);
    dev_free(&ds);
    dev_free(&dout);
    free(g);
    free(s);
    free(o);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
