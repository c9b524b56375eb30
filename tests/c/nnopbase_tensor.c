/*
 * aclCreateTensor / aclDestroyTensor / getters, through the public API only.
 *   nnopbase_tensor rank <n>     contiguous n-d tensor is created, read back, destroyed
 *   nnopbase_tensor bad <case>   malformed descriptor -> NULL; prints "MSG:<text>"
 *   nnopbase_tensor <check>      views | formats | dtypes | getters | destroy
 * Exit 0 and "OK" (or the MSG line) on success; anything else is a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/aclnn_base.h"
#include "pyacl_hardgrad/embedded.h"

#include "check_count.h"

static int64_t live_tensors(void)
{
    hgLiveCounts c;
    if (hgGetLiveCounts(&c) != 0)
        return -1;
    return c.tensors;
}

static aclTensor *contiguous(const int64_t *dims, uint64_t n, aclDataType dt, aclFormat fmt, void *data)
{
    int64_t strides[64];
    int64_t s = 1;
    for (uint64_t i = n; i-- > 0;) {
        strides[i] = s;
        s *= dims[i] > 0 ? dims[i] : 1;
    }
    return aclCreateTensor(dims, n, dt, strides, 0, fmt, dims, n, data);
}

static int run_rank(int n)
{
    int64_t dims[64];
    for (int i = 0; i < n; i++)
        dims[i] = i < 4 ? 2 : 1;   /* numel stays small for any rank */
    static float buf[16];
    aclTensor *t = contiguous(dims, (uint64_t)n, ACL_FLOAT, ACL_FORMAT_ND, buf);
    CHECK(t != NULL);
    if (!t)
        return 1;
    CHECK(live_tensors() == 1);
    aclDataType dt = ACL_DT_UNDEFINED;
    aclFormat fmt = ACL_FORMAT_UNDEFINED;
    int64_t off = -1;
    CHECK(aclGetDataType(t, &dt) == ACLNN_SUCCESS && dt == ACL_FLOAT);
    CHECK(aclGetFormat(t, &fmt) == ACLNN_SUCCESS && fmt == ACL_FORMAT_ND);
    CHECK(aclGetViewOffset(t, &off) == ACLNN_SUCCESS && off == 0);
    CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
    CHECK(live_tensors() == 0);
    return failures;
}

#define N_(a) (sizeof(a) / sizeof((a)[0]))

static int run_bad(const char *name)
{
    int64_t d2[2] = {4, 2}, s2[2] = {2, 1};
    int64_t big[2] = {INT64_C(1) << 32, INT64_C(1) << 32};
    int64_t many[65];
    for (int i = 0; i < 65; i++)
        many[i] = 1;
    aclTensor *t = (aclTensor *)1;
    if (!strcmp(name, "null_viewdims"))
        t = aclCreateTensor(NULL, 2, ACL_FLOAT, s2, 0, ACL_FORMAT_ND, d2, 2, NULL);
    else if (!strcmp(name, "null_stride_past_storage")) {
        int64_t st[1] = {7};   /* NULL stride: contiguous {2, 1}, which must fit the storage too */
        t = aclCreateTensor(d2, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, st, 1, NULL);
    } else if (!strcmp(name, "null_stride_overflow")) {
        int64_t d[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40};
        t = aclCreateTensor(d, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d, 3, NULL);
    }
    else if (!strcmp(name, "null_storage"))
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s2, 0, ACL_FORMAT_ND, NULL, 2, NULL);
    else if (!strcmp(name, "neg_view")) {
        int64_t d[2] = {4, -2};
        t = aclCreateTensor(d, 2, ACL_FLOAT, s2, 0, ACL_FORMAT_ND, d2, 2, NULL);
    } else if (!strcmp(name, "neg_storage")) {
        int64_t st[2] = {-4, 2};
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s2, 0, ACL_FORMAT_ND, st, 2, NULL);
    } else if (!strcmp(name, "neg_stride")) {
        int64_t s[2] = {-2, 1};
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s, 0, ACL_FORMAT_ND, d2, 2, NULL);
    } else if (!strcmp(name, "neg_offset"))
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s2, -1, ACL_FORMAT_ND, d2, 2, NULL);
    else if (!strcmp(name, "dtype_undefined"))
        t = aclCreateTensor(d2, 2, ACL_DT_UNDEFINED, s2, 0, ACL_FORMAT_ND, d2, 2, NULL);
    else if (!strcmp(name, "dtype_string"))
        t = aclCreateTensor(d2, 2, ACL_STRING, s2, 0, ACL_FORMAT_ND, d2, 2, NULL);
    else if (!strcmp(name, "dtype_int4"))
        t = aclCreateTensor(d2, 2, ACL_INT4, s2, 0, ACL_FORMAT_ND, d2, 2, NULL);
    else if (!strcmp(name, "dtype_uint1"))
        t = aclCreateTensor(d2, 2, ACL_UINT1, s2, 0, ACL_FORMAT_ND, d2, 2, NULL);
    else if (!strcmp(name, "dtype_unknown"))
        t = aclCreateTensor(d2, 2, (aclDataType)999, s2, 0, ACL_FORMAT_ND, d2, 2, NULL);
    else if (!strcmp(name, "dtype_gap"))
        t = aclCreateTensor(d2, 2, (aclDataType)5, s2, 0, ACL_FORMAT_ND, d2, 2, NULL);
    else if (!strcmp(name, "format_unknown"))
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s2, 0, (aclFormat)999, d2, 2, NULL);
    else if (!strcmp(name, "format_gap"))
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s2, 0, (aclFormat)5, d2, 2, NULL);
    else if (!strcmp(name, "format_negative"))
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s2, 0, (aclFormat)-2, d2, 2, NULL);
    else if (!strcmp(name, "too_many_view_dims"))
        t = aclCreateTensor(many, 65, ACL_FLOAT, many, 0, ACL_FORMAT_ND, many, 1, NULL);
    else if (!strcmp(name, "too_many_storage_dims"))
        t = aclCreateTensor(many, 1, ACL_FLOAT, many, 0, ACL_FORMAT_ND, many, 65, NULL);
    else if (!strcmp(name, "huge_view_dims_num"))
        t = aclCreateTensor(many, UINT64_MAX, ACL_FLOAT, many, 0, ACL_FORMAT_ND, many, 1, NULL);
    else if (!strcmp(name, "numel_overflow")) {
        int64_t s[2] = {0, 0};
        t = aclCreateTensor(big, 2, ACL_FLOAT, s, 0, ACL_FORMAT_ND, many, 1, NULL);
    } else if (!strcmp(name, "bytes_overflow")) {
        int64_t d[1] = {INT64_C(1) << 61}, s[1] = {1};
        t = aclCreateTensor(d, 1, ACL_FLOAT, s, 0, ACL_FORMAT_ND, d, 1, NULL);
    } else if (!strcmp(name, "storage_overflow")) {
        int64_t s[2] = {1, 1};
        t = aclCreateTensor(many, 2, ACL_FLOAT, s, 0, ACL_FORMAT_ND, big, 2, NULL);
    } else if (!strcmp(name, "view_past_storage")) {
        int64_t st[1] = {7};
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s2, 0, ACL_FORMAT_ND, st, 1, NULL);
    } else if (!strcmp(name, "offset_past_storage")) {
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s2, 1, ACL_FORMAT_ND, d2, 2, NULL);
    } else if (!strcmp(name, "stride_past_storage")) {
        int64_t s[2] = {2, 2};
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s, 0, ACL_FORMAT_ND, d2, 2, NULL);
    } else if (!strcmp(name, "empty_storage")) {
        int64_t st[1] = {0};
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s2, 0, ACL_FORMAT_ND, st, 1, NULL);
    } else if (!strcmp(name, "extent_overflow")) {
        int64_t s[2] = {INT64_MAX, 1};
        t = aclCreateTensor(d2, 2, ACL_FLOAT, s, 0, ACL_FORMAT_ND, d2, 2, NULL);
    } else {
        printf("unknown case %s\n", name);
        return 2;
    }
    if (t != NULL) {
        printf("CREATED: descriptor was accepted\n");
        aclDestroyTensor(t);
        return 1;
    }
    CHECK(live_tensors() == 0);
    printf("MSG:%s\n", last_msg());
    return failures;
}

/* Legal non-contiguous and edge descriptors. */
static int run_views(void)
{
    float buf[8];
    aclTensor *t;
    /* transpose of a 4x2 storage */
    int64_t dt[2] = {2, 4}, st[2] = {1, 2}, sd[2] = {4, 2};
    t = aclCreateTensor(dt, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sd, 2, buf);
    CHECK(t != NULL);
    CHECK(aclDestroyTensor(t) == 0);
    /* broadcast row: zero stride */
    int64_t db[2] = {1000, 2}, sb[2] = {0, 1}, sdb[1] = {2};
    t = aclCreateTensor(db, 2, ACL_FLOAT, sb, 0, ACL_FORMAT_ND, sdb, 1, buf);
    CHECK(t != NULL);
    CHECK(aclDestroyTensor(t) == 0);
    /* slice ending exactly at the last storage element */
    int64_t ds[1] = {3}, ss[1] = {2}, sds[1] = {8};
    t = aclCreateTensor(ds, 1, ACL_FLOAT16, ss, 3, ACL_FORMAT_ND, sds, 1, buf);
    CHECK(t != NULL);
    int64_t off = 0;
    CHECK(aclGetViewOffset(t, &off) == 0 && off == 3);
    CHECK(aclDestroyTensor(t) == 0);
    /* 0-d: NULL arrays, NULL storage -> one element */
    t = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, buf);
    CHECK(t != NULL);
    CHECK(aclDestroyTensor(t) == 0);
    /* 0-d with an offset past a one-element storage */
    t = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 1, ACL_FORMAT_ND, NULL, 0, buf);
    CHECK(t == NULL);
    /* empty tensors: NULL data, a zero dim, even next to a huge one, and no storage */
    int64_t de[2] = {INT64_MAX, 0}, se[2] = {INT64_MAX, INT64_MAX}, sde[1] = {0};
    t = aclCreateTensor(de, 2, ACL_FLOAT, se, 0, ACL_FORMAT_ND, sde, 1, NULL);
    CHECK(t != NULL);
    CHECK(aclDestroyTensor(t) == 0);
    /* large descriptor without data: shape-only use */
    int64_t dl[2] = {INT64_C(1) << 20, INT64_C(1) << 20}, sl[2] = {INT64_C(1) << 20, 1};
    t = aclCreateTensor(dl, 2, ACL_DOUBLE, sl, 0, ACL_FORMAT_ND, dl, 2, NULL);
    CHECK(t != NULL);
    CHECK(aclDestroyTensor(t) == 0);
    /* 64 dims is the maximum and is accepted */
    int64_t d64[64];
    for (int i = 0; i < 64; i++)
        d64[i] = 1;
    t = contiguous(d64, 64, ACL_FLOAT, ACL_FORMAT_ND, buf);
    CHECK(t != NULL);
    CHECK(aclDestroyTensor(t) == 0);
    CHECK(live_tensors() == 0);
    return failures;
}

static int run_formats(void)
{
    static const aclFormat formats[] = {
        ACL_FORMAT_UNDEFINED, ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND, ACL_FORMAT_NC1HWC0,
        ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_HWCN, ACL_FORMAT_NDHWC,
        ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NCDHW, ACL_FORMAT_NDC1HWC0, ACL_FRACTAL_Z_3D, ACL_FORMAT_NC,
        ACL_FORMAT_NCL};
    int64_t d[1] = {2};
    for (size_t i = 0; i < N_(formats); i++) {
        aclTensor *t = contiguous(d, 1, ACL_FLOAT, formats[i], NULL);
        CHECK(t != NULL);
        aclFormat f = (aclFormat)12345;
        CHECK(aclGetFormat(t, &f) == 0 && f == formats[i]);
        CHECK(aclDestroyTensor(t) == 0);
    }
    CHECK(live_tensors() == 0);
    return failures;
}

static int run_dtypes(void)
{
    static const aclDataType ok[] = {
        ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_INT32, ACL_UINT8, ACL_INT16, ACL_UINT16, ACL_UINT32,
        ACL_INT64, ACL_UINT64, ACL_DOUBLE, ACL_BOOL, ACL_COMPLEX64, ACL_COMPLEX128, ACL_BF16,
        ACL_COMPLEX32, ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E8M0};
    int64_t d[2] = {3, 5};
    for (size_t i = 0; i < N_(ok); i++) {
        aclTensor *t = contiguous(d, 2, ok[i], ACL_FORMAT_ND, NULL);
        CHECK(t != NULL);
        aclDataType got = ACL_DT_UNDEFINED;
        CHECK(aclGetDataType(t, &got) == 0 && got == ok[i]);
        CHECK(aclDestroyTensor(t) == 0);
    }
    CHECK(live_tensors() == 0);
    return failures;
}

static int run_getters(void)
{
    int64_t d[1] = {2};
    aclTensor *t = contiguous(d, 1, ACL_FLOAT, ACL_FORMAT_NCHW, NULL);
    aclDataType dt;
    aclFormat f;
    int64_t off;
    CHECK(aclGetDataType(NULL, &dt) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(strstr(last_msg(), "aclGetDataType") != NULL);
    CHECK(aclGetDataType(t, NULL) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(aclGetFormat(NULL, &f) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(aclGetFormat(t, NULL) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(strstr(last_msg(), "aclGetFormat") != NULL);
    CHECK(aclGetViewOffset(NULL, &off) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(aclGetViewOffset(t, NULL) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(strstr(last_msg(), "aclGetViewOffset") != NULL);
    CHECK(aclDestroyTensor(t) == 0);
    /* A destroyed handle is recognised without being read (valgrind stays quiet). */
    CHECK(aclGetDataType(t, &dt) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclGetFormat(t, &f) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclGetViewOffset(t, &off) == ACLNN_ERR_PARAM_INVALID);
    return failures;
}

static int run_destroy(void)
{
    CHECK(aclDestroyTensor(NULL) == ACLNN_SUCCESS);
    int64_t d[1] = {2};
    aclTensor *t = contiguous(d, 1, ACL_FLOAT, ACL_FORMAT_ND, NULL);
    CHECK(live_tensors() == 1);
    CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
    CHECK(live_tensors() == 0);
    CHECK(aclDestroyTensor(t) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strstr(last_msg(), "aclDestroyTensor: ") == last_msg());
    int dummy;
    CHECK(aclDestroyTensor((const aclTensor *)(void *)&dummy) == ACLNN_ERR_PARAM_INVALID);
    CHECK(live_tensors() == 0);
    /* Many live tensors at once, freed in an interleaved order. */
    enum { N = 5000 };
    static aclTensor *many[N];
    for (int i = 0; i < N; i++) {
        many[i] = contiguous(d, 1, ACL_FLOAT, ACL_FORMAT_ND, NULL);
        if (!many[i]) {
            CHECK(many[i] != NULL);
            return failures;
        }
    }
    CHECK(live_tensors() == N);
    for (int step = 0; step < 7; step++)
        for (int i = step; i < N; i += 7)
            CHECK(aclDestroyTensor(many[i]) == ACLNN_SUCCESS);
    CHECK(live_tensors() == 0);
    CHECK(aclnnInit(NULL) == 0);
    CHECK(aclnnFinalize() == 0);
    return failures;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s rank N | bad CASE | views | formats | dtypes | getters | destroy\n", argv[0]);
        return 2;
    }
    int rc;
    if (!strcmp(argv[1], "rank") && argc > 2)
        rc = run_rank(atoi(argv[2]));
    else if (!strcmp(argv[1], "bad") && argc > 2)
        return run_bad(argv[2]);
    else if (!strcmp(argv[1], "views"))
        rc = run_views();
    else if (!strcmp(argv[1], "formats"))
        rc = run_formats();
    else if (!strcmp(argv[1], "dtypes"))
        rc = run_dtypes();
    else if (!strcmp(argv[1], "getters"))
        rc = run_getters();
    else if (!strcmp(argv[1], "destroy"))
        rc = run_destroy();
    else {
        fprintf(stderr, "unknown command %s\n", argv[1]);
        return 2;
    }
    if (rc == 0)
        printf("OK\n");
    return rc ? 1 : 0;
}
