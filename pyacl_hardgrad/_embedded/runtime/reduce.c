/* aclrtReduceAsync: the SDMA engine's reduce-while-copying, `dst[i] = dst[i] (op) src[i]` over
 * `count` bytes of device memory, as a task of the stream (after the stream's earlier work,
 * before its later work).
 *
 * Kinds: ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, _MAX, _MIN (CANN documents _EQUAL as not supported:
 * 207000 here too).  Types: the ones CANN's runtime maps for SDMA reduce -- ACL_FLOAT,
 * ACL_FLOAT16, ACL_BF16, ACL_INT4 (two per byte, the first in the low nibble), ACL_INT8,
 * ACL_INT16, ACL_INT32, ACL_UINT8, ACL_UINT16, ACL_UINT32; any other type is
 * ACL_ERROR_INVALID_PARAM.  Integer sums wrap (two's complement); half-precision sums are
 * computed in float and rounded to nearest even (exactly the correctly rounded result); a NaN
 * operand of MAX / MIN gives NaN.  A float sum of finite operands that overflows its type is
 * the largest finite value of its sign in the device's saturation mode (aclrtSetDeviceSatMode),
 * inf otherwise, and sets the device's overflow status when the stream's overflow switch is on
 * (device_ext.c).  Argument checks follow CANN's: dst, src NULL or reserve not
 * NULL -> ACL_ERROR_INVALID_PARAM; count 0, a SUM of more than 4 GiB, or memory that is not
 * device memory reachable from the stream's device -> ACL_ERROR_RT_PARAM_INVALID. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device_ext.h"
#include "rt_internal.h"

#define REDUCE_SUM_MAX_BYTES (4ull << 30)

typedef struct reduce_task {
    void *dst;
    const void *src;
    size_t n;      /* elements (ACL_INT4: nibbles) */
    int kind;
    aclDataType type;
    int dev;       /* the stream's device (its overflow status) */
    bool saturate; /* the device's mode is ACL_RT_OVERFLOW_MODE_SATURATION */
    bool check;    /* the stream's overflow switch is on */
} reduce_task;

static float bf16_to_float(uint16_t v)
{
    uint32_t x = (uint32_t)v << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* NaN stays a (quiet) NaN */
    x += 0x7fffu + ((x >> 16) & 1u);          /* round to nearest, ties to even */
    return (uint16_t)(x >> 16);
}

/* IEEE binary16 from float, round to nearest even, with infinities and NaNs (aclFloatToFloat16
 * saturates them, as CANN's helper does; the SDMA engine does not). */
static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t abs = x & 0x7fffffffu;
    if (abs > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
    if (abs >= 0x477ff000u) /* 65520 and more round to inf */
        return (uint16_t)(sign | 0x7c00u);
    if (abs < 0x33000001u) /* at most half the smallest subnormal: zero (the tie goes to even 0) */
        return sign;
    int exp = (int)(abs >> 23) - 127;
    uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    int shift = exp < -14 ? 13 + (-14 - exp) : 13;
    uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u)))
        ++q;
    uint32_t h = exp < -14 ? q : ((uint32_t)(exp + 15) << 10) + (q - 0x400u);
    return (uint16_t)(sign | h);
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16, exp = ((uint32_t)h >> 10) & 0x1fu, mant = (uint32_t)h & 0x3ffu;
    uint32_t x;
    if (exp == 0x1fu) {
        x = sign | 0x7f800000u | (mant << 13);
    } else if (exp == 0) {
        float f = ldexpf((float)mant, -24); /* zero or subnormal: exact */
        return sign ? -f : f;
    } else {
        x = sign | ((exp + 112u) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

static float op_float(int kind, float a, float b)
{
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM)
        return a + b;
    if (isnan(a) || isnan(b))
        return isnan(a) ? a : b;
    /* equal operands (0 and -0) give the first, dst's */
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX)
        return a >= b ? a : b;
    return a <= b ? a : b;
}

/* Integers: sums wrap; max / min compare the values. */
#define REDUCE_INT(T, UT)                                                            \
    do {                                                                             \
        T *d = t->dst;                                                               \
        const T *s = t->src;                                                         \
        for (size_t i = 0; i < t->n; ++i) {                                          \
            if (t->kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM)                          \
                d[i] = (T)(UT)((UT)d[i] + (UT)s[i]);                                 \
            else if (t->kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX)                     \
                d[i] = d[i] > s[i] ? d[i] : s[i];                                    \
            else                                                                     \
                d[i] = d[i] < s[i] ? d[i] : s[i];                                    \
        }                                                                            \
    } while (0)

static int int4_at(const uint8_t *p, size_t i)
{
    int v = (p[i / 2] >> (4 * (i % 2))) & 0xf;
    return v >= 8 ? v - 16 : v;
}

/* A float result that left the finite range of its type although both operands were finite: an
 * overflow.  It is recorded (overflow check on) and, in saturation mode, replaced by the largest
 * finite value of its sign. */
static bool overflowed(float a, float b, bool result_inf)
{
    return result_inf && isfinite(a) && isfinite(b);
}

static void run_reduce(const reduce_task *t)
{
    bool over = false;
    switch ((int)t->type) {
    case ACL_FLOAT: {
        float *d = t->dst;
        const float *s = t->src;
        for (size_t i = 0; i < t->n; ++i) {
            float r = op_float(t->kind, d[i], s[i]);
            if (overflowed(d[i], s[i], isinf(r))) {
                over = true;
                if (t->saturate)
                    r = r > 0 ? FLT_MAX : -FLT_MAX;
            }
            d[i] = r;
        }
        break;
    }
    case ACL_FLOAT16: {
        aclFloat16 *d = t->dst;
        const aclFloat16 *s = t->src;
        for (size_t i = 0; i < t->n; ++i) {
            float a = half_to_float(d[i]), b = half_to_float(s[i]);
            aclFloat16 r = float_to_half(op_float(t->kind, a, b));
            if (overflowed(a, b, (r & 0x7fffu) == 0x7c00u)) {
                over = true;
                if (t->saturate)
                    r = (aclFloat16)((r & 0x8000u) | 0x7bffu);
            }
            d[i] = r;
        }
        break;
    }
    case ACL_BF16: {
        uint16_t *d = t->dst;
        const uint16_t *s = t->src;
        for (size_t i = 0; i < t->n; ++i) {
            float a = bf16_to_float(d[i]), b = bf16_to_float(s[i]);
            uint16_t r = float_to_bf16(op_float(t->kind, a, b));
            if (overflowed(a, b, (r & 0x7fffu) == 0x7f80u)) {
                over = true;
                if (t->saturate)
                    r = (uint16_t)((r & 0x8000u) | 0x7f7fu);
            }
            d[i] = r;
        }
        break;
    }
    case ACL_INT4: {
        uint8_t *d = t->dst;
        const uint8_t *s = t->src;
        for (size_t i = 0; i < t->n; ++i) {
            int a = int4_at(d, i), b = int4_at(s, i), r;
            if (t->kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM)
                r = a + b;
            else if (t->kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX)
                r = a > b ? a : b;
            else
                r = a < b ? a : b;
            unsigned shift = 4u * (unsigned)(i % 2);
            d[i / 2] = (uint8_t)((d[i / 2] & ~(0xfu << shift)) | (((unsigned)r & 0xfu) << shift));
        }
        break;
    }
    case ACL_INT8:
        REDUCE_INT(int8_t, uint8_t);
        break;
    case ACL_INT16:
        REDUCE_INT(int16_t, uint16_t);
        break;
    case ACL_INT32:
        REDUCE_INT(int32_t, uint32_t);
        break;
    case ACL_UINT8:
        REDUCE_INT(uint8_t, uint8_t);
        break;
    case ACL_UINT16:
        REDUCE_INT(uint16_t, uint16_t);
        break;
    case ACL_UINT32:
        REDUCE_INT(uint32_t, uint32_t);
        break;
    default:
        break;
    }
    if (over && t->check)
        hg_overflow_raise(t->dev);
}

static void reduce_task_fn(void *arg)
{
    run_reduce(arg);
    free(arg);
}

/* Bytes per element, 0 for a type SDMA reduce does not take (ACL_INT4: 1, two per byte). */
static size_t reduce_type_size(aclDataType type)
{
    switch ((int)type) {
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
        return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
        return 2;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_INT4:
        return 1;
    default:
        return 0;
    }
}

/* dst or src: inside one device allocation the stream's device may reach. */
static aclError reduce_side(const char *func, const char *what, const void *p, size_t n, int issuer, int *dev)
{
    if (HG_CHECKING())
        hg_chk_bounds(func, what, p, n);
    *dev = hg_memory_device(p, n);
    if (*dev == -2) {
        hg_set_error(func, "%s (%p) with count (%zu) runs past the end of its device allocation", what, p, n);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (*dev < 0) {
        hg_set_error(func, "%s (%p) is not device memory: the SDMA engine reduces device memory only", what, p);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    if (*dev != issuer && !hg_peer_enabled(issuer, *dev)) {
        hg_set_error(func, "%s is memory of device %d but the stream runs on device %d and peer access from device "
                     "%d to device %d is not enabled (aclrtDeviceEnablePeerAccess)", what, *dev, issuer, issuer, *dev);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind,
                                              aclDataType type, aclrtStream stream, void *reserve)
{
    const char *func = "aclrtReduceAsync";
    aclError rc = hg_check_init(func);
    if (rc)
        return hg_rt_ret(rc);
    if (!dst || !src) {
        hg_set_error(func, "%s is NULL", !dst ? "dst" : "src");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (reserve) {
        hg_set_error(func, "reserve is a reserved parameter and must be NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    size_t esize = reduce_type_size(type);
    if (!esize) {
        hg_set_error(func, "type (%d) is not a data type SDMA reduce takes (ACL_FLOAT, ACL_FLOAT16, ACL_BF16, "
                     "ACL_INT4, ACL_INT8, ACL_INT16, ACL_INT32, ACL_UINT8, ACL_UINT16, ACL_UINT32)", (int)type);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (count == 0) {
        hg_set_error(func, "count is 0");
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    if ((int)kind < ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM || (int)kind > ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL) {
        hg_set_error(func, "kind (%d) is not an aclrtReduceKind value (10..13)", (int)kind);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL) {
        hg_set_error(func, "kind ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL is not supported (CANN documents it as not "
                     "supported yet)");
        return hg_rt_ret(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM && count > REDUCE_SUM_MAX_BYTES) {
        hg_set_error(func, "count (%llu) exceeds 4 GiB, the most a SUM reduce takes", (unsigned long long)count);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    if (count > SIZE_MAX || count % esize != 0) {
        hg_set_error(func, "count (%llu bytes) is not a whole number of elements of type %d (%zu bytes each)",
                     (unsigned long long)count, (int)type, esize);
        return hg_rt_ret(ACL_ERROR_RT_PARAM_INVALID);
    }
    int issuer = hg_stream_device(stream, func, &rc);
    if (rc)
        return hg_rt_ret(rc);
    int dd, sd;
    if ((rc = reduce_side(func, "dst", dst, (size_t)count, issuer, &dd)) != ACL_SUCCESS ||
        (rc = reduce_side(func, "src", src, (size_t)count, issuer, &sd)) != ACL_SUCCESS)
        return hg_rt_ret(rc);
    reduce_task *t = malloc(sizeof *t);
    if (!t) {
        hg_set_error(func, "out of host memory");
        return hg_rt_ret(ACL_ERROR_RT_MEMORY_ALLOCATION);
    }
    bool check = hg_stream_overflow_switch(stream, func, &rc);
    if (rc) {
        free(t);
        return hg_rt_ret(rc);
    }
    *t = (reduce_task){dst, src, type == ACL_INT4 ? (size_t)count * 2 : (size_t)count / esize, (int)kind, type,
                       issuer, hg_sat_mode(issuer) == ACL_RT_OVERFLOW_MODE_SATURATION, check};
    if (HG_CHECKING()) {
        uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
        hg_access acc[3] = {
            {src, s, s + (size_t)count, 0, 1, "src"},
            {dst, d, d + (size_t)count, 0, 1, "dst"},
            {dst, d, d + (size_t)count, 1, 1, "dst"},
        };
        hg_check_pending(acc, 3);
    }
    rc = hg_stream_submit(stream, func, reduce_task_fn, t);
    if (HG_CHECKING())
        hg_check_pending(NULL, 0);
    if (rc)
        free(t);
    return hg_rt_ret(rc);
}
