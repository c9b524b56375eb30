/*
 * Runs any two-phase aclnn operator by name over raw little-endian data files, for bit-exact
 * comparison with the operators' numpy models (tests/test_op_numerics.py).
 *
 *   aclnn_driver <aclnnName> <n> <layout> <arg>...
 *
 * Each arg is one parameter of phase 1, in prototype order (workspaceSize and executor are
 * appended):
 *   in:<dt>:<file>            a 1-D input tensor of n elements read from file
 *   out:<dt>:<file>           a 1-D output tensor written to file afterwards
 *   inout:<dt>:<file>:<file>  an in-place tensor: read from the first file, written to the second
 *   scalar:<dt>:<bits>        an aclScalar whose value has the raw bits (hex) of dtype dt
 *   alias:<k>:<shift>         an output tensor over the buffer of the k-th tensor argument,
 *                             starting <shift> elements after it (same dtype), written to
 *                             the file "<that input's file>.out"
 * dt: f32 f16 bf16 f64 i8 u8 i16 i32 i64.  layout: contig (1-D contiguous tensors), shifted
 * (contiguous, tensor k starting 1 + k elements into its buffer, so no tensor starts on a
 * vector boundary) or strided (tensor k stepped by 2 + (k % 2) with an offset of 1 + k, so
 * the staging copies run; the gaps must keep their fill).  The function is found with dlsym in libopapi.so, so the
 * driver names no operator.  Exit 0 on success, 1 on an operator failure (code and message on stderr).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "pyacl_hardgrad/embedded.h"

#define MAX_ARGS 8
#define MAX_SHIFT 8   /* largest alias shift */

typedef struct dtinfo {
    const char *name;
    aclDataType dt;
    size_t size;
} dtinfo;

static const dtinfo DTYPES[] = {
    {"f32", ACL_FLOAT, 4}, {"f16", ACL_FLOAT16, 2}, {"bf16", ACL_BF16, 2}, {"f64", ACL_DOUBLE, 8},
    {"i8", ACL_INT8, 1},   {"u8", ACL_UINT8, 1},    {"i16", ACL_INT16, 2}, {"i32", ACL_INT32, 4},
    {"i64", ACL_INT64, 8},
};

static const dtinfo *parse_dtype(const char *s)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++) {
        if (strcmp(DTYPES[i].name, s) == 0) {
            return &DTYPES[i];
        }
    }
    fprintf(stderr, "bad dtype %s\n", s);
    exit(2);
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

static void write_file(const char *path, const void *data, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, bytes, f) != bytes) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(3);
    }
    fclose(f);
}

typedef struct arg {
    char kind;                 /* i(n) o(ut) b(oth) s(calar) a(lias) */
    const dtinfo *dt;
    char *file, *outfile;
    int alias_of;
    int64_t shift;
    /* tensors */
    void *dev;
    size_t total;              /* elements in the allocation */
    int64_t step, offset;
    int owns;
    aclTensor *t;
    aclScalar *s;
} arg;

static void make_tensor(arg *a, int64_t n, const void *packed)
{
    size_t es = a->dt->size;
    if (a->alias_of < 0) {
        a->total = (size_t)(a->offset + (n + MAX_SHIFT) * a->step + 1);   /* room for an alias */
        unsigned char *host = malloc(a->total * es);
        memset(host, 0x5a, a->total * es);
        if (packed) {
            for (int64_t i = 0; i < n; i++) {
                memcpy(host + (size_t)(a->offset + i * a->step) * es, (const unsigned char *)packed + (size_t)i * es, es);
            }
        }
        if (aclrtMalloc(&a->dev, a->total * es, ACL_MEM_MALLOC_HUGE_FIRST) != 0 ||
            aclrtMemcpy(a->dev, a->total * es, host, a->total * es, ACL_MEMCPY_HOST_TO_DEVICE) != 0) {
            fprintf(stderr, "device buffer failed\n");
            exit(4);
        }
        a->owns = 1;
        free(host);
    }
    int64_t shape[1] = {n}, strides[1] = {a->step}, storage[1] = {(int64_t)a->total};
    a->t = aclCreateTensor(shape, 1, a->dt->dt, strides, a->offset, ACL_FORMAT_ND, storage, 1, a->dev);
    if (a->t == NULL) {
        fprintf(stderr, "aclCreateTensor failed: %s\n", aclGetRecentErrMsg());
        exit(4);
    }
}

/* The view's elements, packed; 1 when a gap of an output allocation lost its fill. */
static int read_view(const arg *a, int64_t n, void *packed, int check_gaps)
{
    size_t es = a->dt->size;
    unsigned char *host = malloc(a->total * es);
    if (aclrtMemcpy(host, a->total * es, a->dev, a->total * es, ACL_MEMCPY_DEVICE_TO_HOST) != 0) {
        exit(4);
    }
    int bad = 0;
    for (size_t k = 0; k < a->total; k++) {
        int64_t rel = (int64_t)k - a->offset;
        if (rel >= 0 && rel % a->step == 0 && rel / a->step < n) {
            memcpy((unsigned char *)packed + (size_t)(rel / a->step) * es, host + k * es, es);
        } else if (check_gaps) {
            for (size_t b = 0; b < es; b++) {
                bad |= host[k * es + b] != 0x5a;
            }
        }
    }
    free(host);
    return bad;
}

typedef aclnnStatus (*phase2_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

static aclnnStatus call_phase1(void *fn, void **p, int np, uint64_t *ws, aclOpExecutor **exe)
{
    /* Every phase-1 parameter is a pointer (tensor or scalar), so the call is one of these. */
    typedef uint64_t *W;
    typedef aclOpExecutor **E;
    switch (np) {
    case 1: return ((aclnnStatus(*)(void *, W, E))fn)(p[0], ws, exe);
    case 2: return ((aclnnStatus(*)(void *, void *, W, E))fn)(p[0], p[1], ws, exe);
    case 3: return ((aclnnStatus(*)(void *, void *, void *, W, E))fn)(p[0], p[1], p[2], ws, exe);
    case 4: return ((aclnnStatus(*)(void *, void *, void *, void *, W, E))fn)(p[0], p[1], p[2], p[3], ws, exe);
    case 5:
        return ((aclnnStatus(*)(void *, void *, void *, void *, void *, W, E))fn)(p[0], p[1], p[2], p[3], p[4], ws,
                                                                                 exe);
    case 6:
        return ((aclnnStatus(*)(void *, void *, void *, void *, void *, void *, W, E))fn)(p[0], p[1], p[2], p[3],
                                                                                         p[4], p[5], ws, exe);
    default: fprintf(stderr, "too many parameters\n"); exit(2);
    }
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc - 4 > MAX_ARGS) {
        fprintf(stderr, "usage: see the comment at the top of aclnn_driver.c\n");
        return 2;
    }
    const char *func = argv[1];
    int64_t n = strtoll(argv[2], NULL, 10);
    int strided = strcmp(argv[3], "strided") == 0;
    int shifted = strided || strcmp(argv[3], "shifted") == 0;
    if (!shifted && strcmp(argv[3], "contig") != 0) {
        fprintf(stderr, "layout %s is not contig, shifted or strided\n", argv[3]);
        return 2;
    }
    int na = argc - 4;
    arg args[MAX_ARGS];
    memset(args, 0, sizeof args);

    if (aclInit(NULL) != 0 || aclrtSetDevice(0) != 0) {
        fprintf(stderr, "runtime set-up failed\n");
        return 4;
    }
    aclrtStream stream = NULL;
    aclrtCreateStream(&stream);

    int tensor_no = 0;
    void *params[MAX_ARGS];
    for (int i = 0; i < na; i++) {
        arg *a = &args[i];
        char *spec = argv[4 + i];
        char *kind = strtok(spec, ":");
        char *f1 = strtok(NULL, ":");
        char *f2 = strtok(NULL, ":");
        char *f3 = strtok(NULL, ":");
        a->alias_of = -1;
        if (kind == NULL || f1 == NULL || f2 == NULL) {
            fprintf(stderr, "bad argument %s\n", argv[4 + i]);
            return 2;
        }
        if (strcmp(kind, "scalar") == 0) {
            a->kind = 's';
            a->dt = parse_dtype(f1);
            unsigned long long bits = strtoull(f2, NULL, 16);
            unsigned char buf[8];
            memcpy(buf, &bits, sizeof buf);   /* little-endian: the low bytes are the value */
            a->s = aclCreateScalar(buf, a->dt->dt);
            params[i] = a->s;
            continue;
        }
        a->step = strided ? 2 + (tensor_no % 2) : 1;
        a->offset = shifted ? 1 + tensor_no : 0;
        tensor_no++;
        if (strcmp(kind, "alias") == 0) {
            a->kind = 'a';
            a->alias_of = atoi(f1);
            a->shift = strtoll(f2, NULL, 10);
            if (a->alias_of < 0 || a->alias_of >= i || args[a->alias_of].t == NULL || a->shift < 0 ||
                a->shift > MAX_SHIFT) {
                fprintf(stderr, "bad alias %s\n", argv[4 + i]);
                return 2;
            }
            arg *base = &args[a->alias_of];
            a->dt = base->dt;
            a->dev = base->dev;
            a->total = base->total;
            a->step = base->step;
            a->offset = base->offset + a->shift * base->step;
            size_t len = strlen(base->file) + 5;
            a->outfile = malloc(len);
            snprintf(a->outfile, len, "%s.out", base->file);
            make_tensor(a, n, NULL);
        } else {
            a->dt = parse_dtype(f1);
            a->file = f2;
            a->kind = strcmp(kind, "in") == 0 ? 'i' : strcmp(kind, "out") == 0 ? 'o' : 'b';
            if (a->kind == 'o') {
                a->outfile = f2;
                make_tensor(a, n, NULL);
            } else {
                void *data = read_file(f2, (size_t)n * a->dt->size);
                if (a->kind == 'b') {
                    a->outfile = f3;
                }
                make_tensor(a, n, data);
                free(data);
            }
        }
        params[i] = a->t;
    }

    size_t len = strlen(func);
    char *getws = malloc(len + 32);
    snprintf(getws, len + 32, "%sGetWorkspaceSize", func);
    /* libopapi is opened by name (the link may drop it: nothing refers to it directly). */
    void *opapi = dlopen("libopapi.so", RTLD_NOW | RTLD_GLOBAL);
    void *p1 = opapi ? dlsym(opapi, getws) : NULL;
    phase2_fn p2 = opapi ? (phase2_fn)dlsym(opapi, func) : NULL;
    if (p1 == NULL || p2 == NULL) {
        fprintf(stderr, "%s or %s not found\n", getws, func);
        return 2;
    }
    uint64_t ws = 0;
    aclOpExecutor *exe = NULL;
    aclnnStatus rc = call_phase1(p1, params, na, &ws, &exe);
    if (rc != 0) {
        fprintf(stderr, "phase 1: %d %s\n", rc, aclGetRecentErrMsg());
        return 1;
    }
    void *wsp = NULL;
    if (ws > 0 && aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST) != 0) {
        return 4;
    }
    rc = p2(wsp, ws, exe, stream);
    if (rc != 0 || aclrtSynchronizeStream(stream) != 0) {
        fprintf(stderr, "phase 2: %d %s\n", rc, aclGetRecentErrMsg());
        return 1;
    }
    printf("workspace %llu\n", (unsigned long long)ws);
    /* The embedded runtime says whether the call wrote out with streaming stores. */
    typedef aclError (*settings_fn)(hgKernelSettings *);
    settings_fn settings = (settings_fn)dlsym(opapi, "hgGetKernelSettings");
    hgKernelSettings ks;
    if (settings != NULL && settings(&ks) == 0) {
        fprintf(stderr, "streamed calls %llu\n", (unsigned long long)ks.streamedCalls);
    }
    int bad = 0;
    for (int i = 0; i < na; i++) {
        arg *a = &args[i];
        if (a->kind == 'o' || a->kind == 'b' || a->kind == 'a') {
            void *o = malloc((size_t)n * a->dt->size + 1);
            int gaps = read_view(a, n, o, a->kind == 'o');
            if (gaps) {
                fprintf(stderr, "argument %d was written outside its view\n", i);
                bad = 1;
            }
            write_file(a->outfile, o, (size_t)n * a->dt->size);
            free(o);
        }
    }
    if (wsp) {
        aclrtFree(wsp);
    }
    for (int i = 0; i < na; i++) {
        arg *a = &args[i];
        if (a->s) {
            aclDestroyScalar(a->s);
        }
        if (a->t) {
            aclDestroyTensor(a->t);
        }
        if (a->owns) {
            aclrtFree(a->dev);
        }
        if (a->kind == 'a') {
            free(a->outfile);
        }
    }
    free(getws);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return bad;
}
