/*
 * aclCreateScalar / aclDestroyScalar and the white-box helpers hg_scalar_to_float,
 * hg_dtype_size, hg_dtype_name (declared in hg_internal.h, exported by libnnopbase).
 *   nnopbase_scalar roundtrip    every accepted dtype, exact fp32 bits expected
 *   nnopbase_scalar fp16_all     all 65536 fp16 patterns against an ldexp reference
 *   nnopbase_scalar reject <dt>  refused dtype -> NULL, prints "MSG:<text>"
 *   nnopbase_scalar misc         NULL value, copy semantics, destroy rules, dtype table
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hg_internal.h"

#include "check_count.h"

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static int64_t live_scalars(void)
{
    hgLiveCounts c;
    return hgGetLiveCounts(&c) == 0 ? c.scalars : -1;
}

/* Create a scalar from the raw bytes at value, convert, compare the fp32 bits. */
static void expect(const char *what, const void *value, aclDataType dt, uint32_t want)
{
    aclScalar *s = aclCreateScalar((void *)value, dt);
    if (s == NULL) {
        printf("FAIL %s: aclCreateScalar returned NULL (%s)\n", what, last_msg());
        failures++;
        return;
    }
    float f = -12345.0f;
    aclnnStatus rc = hg_scalar_to_float(s, &f);
    if (rc != ACLNN_SUCCESS || bits_of(f) != want) {
        printf("FAIL %s: rc=%d bits=0x%08x want 0x%08x\n", what, (int)rc, (unsigned)bits_of(f), (unsigned)want);
        failures++;
    }
    if (aclDestroyScalar(s) != ACLNN_SUCCESS) {
        printf("FAIL %s: destroy\n", what);
        failures++;
    }
}

static int run_roundtrip(void)
{
    float f32 = 1.2f;                     expect("float", &f32, ACL_FLOAT, 0x3f99999au);
    float fnan;  uint32_t nb = 0x7fc12345u; memcpy(&fnan, &nb, 4);
    expect("float nan payload", &fnan, ACL_FLOAT, 0x7fc12345u);
    double d = 0.1;                       expect("double 0.1", &d, ACL_DOUBLE, 0x3dcccccdu);
    d = 2.4;                              expect("double 2.4", &d, ACL_DOUBLE, 0x4019999au);
    d = 1e300;                            expect("double overflow", &d, ACL_DOUBLE, 0x7f800000u);
    d = -1e300;                           expect("double -overflow", &d, ACL_DOUBLE, 0xff800000u);
    d = 1e-50;                            expect("double underflow", &d, ACL_DOUBLE, 0x00000000u);
    d = 1.0 + ldexp(1.0, -24);            expect("double tie to even", &d, ACL_DOUBLE, 0x3f800000u);
    d = 1.0 + 3 * ldexp(1.0, -24);        expect("double tie up", &d, ACL_DOUBLE, 0x3f800002u);
    uint16_t h;
    h = 0x3C00; expect("fp16 1", &h, ACL_FLOAT16, 0x3f800000u);
    h = 0x3CCD; expect("fp16 1.2", &h, ACL_FLOAT16, 0x3f99a000u);
    h = 0x0001; expect("fp16 min subnormal", &h, ACL_FLOAT16, 0x33800000u);
    h = 0x03FF; expect("fp16 max subnormal", &h, ACL_FLOAT16, 0x387fc000u);
    h = 0x0400; expect("fp16 min normal", &h, ACL_FLOAT16, 0x38800000u);
    h = 0x7BFF; expect("fp16 max", &h, ACL_FLOAT16, 0x477fe000u);
    h = 0x8000; expect("fp16 -0", &h, ACL_FLOAT16, 0x80000000u);
    h = 0x8001; expect("fp16 -min subnormal", &h, ACL_FLOAT16, 0xb3800000u);
    h = 0x7C00; expect("fp16 inf", &h, ACL_FLOAT16, 0x7f800000u);
    h = 0xFC00; expect("fp16 -inf", &h, ACL_FLOAT16, 0xff800000u);
    h = 0x7E00; expect("fp16 qnan", &h, ACL_FLOAT16, 0x7fc00000u);
    h = 0x7C01; expect("fp16 snan payload", &h, ACL_FLOAT16, 0x7f802000u);
    h = 0x3F80; expect("bf16 1", &h, ACL_BF16, 0x3f800000u);
    h = 0x3F9A; expect("bf16 1.203125", &h, ACL_BF16, 0x3f9a0000u);
    h = 0xFF80; expect("bf16 -inf", &h, ACL_BF16, 0xff800000u);
    h = 0x7FC1; expect("bf16 nan", &h, ACL_BF16, 0x7fc10000u);
    h = 0x0001; expect("bf16 subnormal", &h, ACL_BF16, 0x00010000u);
    int8_t i8 = -128;                     expect("int8", &i8, ACL_INT8, 0xc3000000u);
    uint8_t u8 = 255;                     expect("uint8", &u8, ACL_UINT8, 0x437f0000u);
    int16_t i16 = -32768;                 expect("int16", &i16, ACL_INT16, 0xc7000000u);
    uint16_t u16 = 65535;                 expect("uint16", &u16, ACL_UINT16, 0x477fff00u);
    int32_t i32 = 16777217;               expect("int32 tie to even", &i32, ACL_INT32, 0x4b800000u);
    i32 = 16777219;                       expect("int32 tie up", &i32, ACL_INT32, 0x4b800002u);
    i32 = INT32_MIN;                      expect("int32 min", &i32, ACL_INT32, 0xcf000000u);
    uint32_t u32 = UINT32_MAX;            expect("uint32 max", &u32, ACL_UINT32, 0x4f800000u);
    int64_t i64 = INT64_MAX;              expect("int64 max", &i64, ACL_INT64, 0x5f000000u);
    i64 = -3;                             expect("int64 -3", &i64, ACL_INT64, 0xc0400000u);
    i64 = (INT64_C(1) << 40) + (INT64_C(1) << 16) + 1;  /* just above a tie: rounds up */
    expect("int64 nearest", &i64, ACL_INT64, 0x53800001u);
    uint64_t u64 = UINT64_MAX;            expect("uint64 max", &u64, ACL_UINT64, 0x5f800000u);
    uint8_t b = 1;                        expect("bool 1", &b, ACL_BOOL, 0x3f800000u);
    b = 0;                                expect("bool 0", &b, ACL_BOOL, 0x00000000u);
    b = 2;                                expect("bool 2", &b, ACL_BOOL, 0x3f800000u);
    CHECK(live_scalars() == 0);
    return failures;
}

static int run_fp16_all(void)
{
    for (uint32_t v = 0; v <= 0xFFFF; v++) {
        uint16_t h = (uint16_t)v;
        aclScalar *s = aclCreateScalar(&h, ACL_FLOAT16);
        float f;
        if (!s || hg_scalar_to_float(s, &f) != 0) {
            printf("FAIL 0x%04x: create/convert\n", (unsigned)v);
            return 1;
        }
        aclDestroyScalar(s);
        int sign = (v >> 15) & 1, e = (v >> 10) & 0x1F, m = v & 0x3FF;
        uint32_t want;
        if (e == 0x1F)
            want = ((uint32_t)sign << 31) | 0x7f800000u | ((uint32_t)m << 13);
        else {
            float ref = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(1024 + m), e - 25);
            want = bits_of(sign ? -ref : ref);
        }
        if (bits_of(f) != want) {
            printf("FAIL 0x%04x: got 0x%08x want 0x%08x\n", (unsigned)v, (unsigned)bits_of(f), (unsigned)want);
            failures++;
        }
    }
    CHECK(live_scalars() == 0);
    return failures;
}

static int run_reject(const char *name)
{
    static const struct { const char *name; aclDataType dt; } table[] = {
        {"complex64", ACL_COMPLEX64}, {"complex128", ACL_COMPLEX128}, {"complex32", ACL_COMPLEX32},
        {"string", ACL_STRING}, {"undefined", ACL_DT_UNDEFINED}, {"int4", ACL_INT4}, {"uint1", ACL_UINT1},
        {"fp8_e5m2", ACL_FLOAT8_E5M2}, {"fp8_e4m3fn", ACL_FLOAT8_E4M3FN}, {"fp8_e8m0", ACL_FLOAT8_E8M0},
        {"unknown", (aclDataType)999}, {"gap", (aclDataType)5}};
    unsigned char value[16] = {0};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, name) != 0)
            continue;
        aclScalar *s = aclCreateScalar(value, table[i].dt);
        if (s != NULL) {
            printf("CREATED: dtype was accepted\n");
            return 1;
        }
        CHECK(live_scalars() == 0);
        printf("MSG:%s\n", last_msg());
        return failures;
    }
    printf("unknown case %s\n", name);
    return 2;
}

static int run_misc(void)
{
    CHECK(aclCreateScalar(NULL, ACL_FLOAT) == NULL);
    CHECK(strcmp(last_msg(), "aclCreateScalar: value is NULL") == 0);
    /* The scalar keeps its own copy. */
    float v = 3.5f;
    aclScalar *s = aclCreateScalar(&v, ACL_FLOAT);
    CHECK(s != NULL);
    CHECK(live_scalars() == 1);
    v = -1.0f;
    float got = 0.0f;
    CHECK(hg_scalar_to_float(s, &got) == 0 && got == 3.5f);
    CHECK(hg_scalar_to_float(s, NULL) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(hg_scalar_to_float(NULL, &got) == ACLNN_ERR_PARAM_NULLPTR);
    /* Only the dtype's bytes are read: a lone int8 at the end of a heap block. */
    int8_t *one = malloc(1);
    *one = 7;
    aclScalar *s8 = aclCreateScalar(one, ACL_INT8);
    free(one);
    CHECK(s8 != NULL && hg_scalar_to_float(s8, &got) == 0 && got == 7.0f);
    CHECK(aclDestroyScalar(s8) == 0);
    CHECK(aclDestroyScalar(s) == ACLNN_SUCCESS);
    CHECK(live_scalars() == 0);
    CHECK(aclDestroyScalar(s) == ACLNN_ERR_PARAM_INVALID);
    CHECK(strncmp(last_msg(), "aclDestroyScalar: ", 18) == 0);
    CHECK(hg_scalar_to_float(s, &got) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclDestroyScalar(NULL) == ACLNN_SUCCESS);
    CHECK(live_scalars() == 0);

    /* dtype table */
    CHECK(hg_dtype_size(ACL_FLOAT) == 4 && hg_dtype_size(ACL_FLOAT16) == 2 && hg_dtype_size(ACL_BF16) == 2);
    CHECK(hg_dtype_size(ACL_DOUBLE) == 8 && hg_dtype_size(ACL_INT64) == 8 && hg_dtype_size(ACL_BOOL) == 1);
    CHECK(hg_dtype_size(ACL_COMPLEX64) == 8 && hg_dtype_size(ACL_COMPLEX128) == 16);
    CHECK(hg_dtype_size(ACL_COMPLEX32) == 4 && hg_dtype_size(ACL_FLOAT8_E4M3FN) == 1);
    CHECK(hg_dtype_size(ACL_DT_UNDEFINED) == 0 && hg_dtype_size(ACL_STRING) == 0);
    CHECK(hg_dtype_size(ACL_INT4) == 0 && hg_dtype_size(ACL_UINT1) == 0);
    CHECK(hg_dtype_size((aclDataType)5) == 0 && hg_dtype_size((aclDataType)-7) == 0);
    CHECK(strcmp(hg_dtype_name(ACL_FLOAT), "DT_FLOAT") == 0);
    CHECK(strcmp(hg_dtype_name(ACL_FLOAT16), "DT_FLOAT16") == 0);
    CHECK(strcmp(hg_dtype_name(ACL_BF16), "DT_BF16") == 0);
    CHECK(strcmp(hg_dtype_name(ACL_INT8), "DT_INT8") == 0);
    CHECK(strcmp(hg_dtype_name(ACL_UINT64), "DT_UINT64") == 0);
    CHECK(strcmp(hg_dtype_name(ACL_BOOL), "DT_BOOL") == 0);
    CHECK(strcmp(hg_dtype_name(ACL_COMPLEX64), "DT_COMPLEX64") == 0);
    CHECK(strcmp(hg_dtype_name((aclDataType)5), "UNKNOWN") == 0);
    CHECK(strcmp(hg_dtype_name((aclDataType)100000), "UNKNOWN") == 0);
    return failures;
}

int main(int argc, char **argv)
{
    int rc;
    if (argc < 2) {
        fprintf(stderr, "usage: %s roundtrip | fp16_all | reject DT | misc\n", argv[0]);
        return 2;
    }
    if (!strcmp(argv[1], "roundtrip"))
        rc = run_roundtrip();
    else if (!strcmp(argv[1], "fp16_all"))
        rc = run_fp16_all();
    else if (!strcmp(argv[1], "reject") && argc > 2)
        return run_reject(argv[2]);
    else if (!strcmp(argv[1], "misc"))
        rc = run_misc();
    else {
        fprintf(stderr, "unknown command %s\n", argv[1]);
        return 2;
    }
    if (rc == 0)
        printf("OK\n");
    return rc ? 1 : 0;
}
