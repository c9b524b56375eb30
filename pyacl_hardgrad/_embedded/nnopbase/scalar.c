/*
 * aclScalar: a copy of one value of a real (non-complex) numeric dtype.
 *
 * Accepted: ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8/16/32/64,
 * ACL_UINT8/16/32/64, ACL_BOOL.  Refused with NULL and a message: complex, string,
 * undefined, sub-byte and fp8 dtypes, and values outside aclDataType.
 * Destroy is lenient about NULL (returns 0); a pointer that is not a live scalar gives
 * ACLNN_ERR_PARAM_INVALID without being read.
 */
#include <stdlib.h>
#include <string.h>

#include "hg_internal.h"
#include "nb_private.h"

static bool nb_scalar_dtype_ok(aclDataType dtype)
{
    switch (dtype) {
    case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: case ACL_DOUBLE:
    case ACL_INT8: case ACL_INT16: case ACL_INT32: case ACL_INT64:
    case ACL_UINT8: case ACL_UINT16: case ACL_UINT32: case ACL_UINT64:
    case ACL_BOOL:
        return true;
    default:
        return false;
    }
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
    if (value == NULL) {
        hg_set_error("aclCreateScalar", "value is NULL");
        return NULL;
    }
    if (!nb_scalar_dtype_ok(dataType)) {
        hg_set_error("aclCreateScalar", "dataType %d (%s) is not supported for a scalar", (int)dataType,
                     hg_dtype_name(dataType));
        return NULL;
    }
    struct aclScalar *s = calloc(1, sizeof *s);
    if (!s) {
        hg_set_error("aclCreateScalar", "out of memory");
        return NULL;
    }
    s->magic = HG_SCALAR_MAGIC;
    s->dtype = dataType;
    /* Read exactly the dtype's bytes: the caller's object may be no larger. */
    memcpy(s->value.bytes, value, hg_dtype_size(dataType));

    nb_lock(&nb_scalars);
    int rc = nb_ptrset_insert(&nb_scalars.set, s);
    nb_unlock(&nb_scalars);
    if (rc != 0) {
        free(s);
        hg_set_error("aclCreateScalar", "out of memory registering the scalar");
        return NULL;
    }
    hg_count_add(HG_COUNT_SCALAR, +1);
    if (HG_CHECKING())
        hg_check_object(HG_OBJ_SCALAR, s, 1, "aclCreateScalar", NULL);
    return s;
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
    if (scalar == NULL)
        return ACLNN_SUCCESS;
    nb_lock(&nb_scalars);
    bool live = nb_ptrset_remove(&nb_scalars.set, scalar);
    nb_unlock(&nb_scalars);
    if (!live) {
        hg_set_error("aclDestroyScalar", "scalar %p is not a live scalar (already destroyed, or not made "
                     "by aclCreateScalar)", (const void *)scalar);
        return ACLNN_ERR_PARAM_INVALID;
    }
    struct aclScalar *s = (struct aclScalar *)scalar;
    if (HG_CHECKING())
        hg_check_object(HG_OBJ_SCALAR, scalar, 0, "aclDestroyScalar", NULL);
    s->magic = 0;
    free(s);
    hg_count_add(HG_COUNT_SCALAR, -1);
    return ACLNN_SUCCESS;
}

static float nb_bits_to_float(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* IEEE binary16 -> binary32; exact, so no rounding question arises. */
static float nb_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    uint32_t bits;
    if (exp == 0x1Fu) {
        bits = sign | 0x7F800000u | (mant << 13);       /* inf, NaN keeps its payload */
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (mant << 13); /* rebias 15 -> 127 */
    } else if (mant == 0) {
        bits = sign;                                    /* signed zero */
    } else {
        /* Subnormal: mant * 2^-24.  Shift the leading one up to bit 10 and lower the
         * exponent once per shift. */
        uint32_t e = 113u;                              /* exponent of 2^-14, biased 127 */
        while ((mant & 0x400u) == 0) {
            mant <<= 1;
            e--;
        }
        bits = sign | (e << 23) | ((mant & 0x3FFu) << 13);
    }
    return nb_bits_to_float(bits);
}

aclnnStatus hg_scalar_to_float(const aclScalar *scalar, float *value)
{
    if (scalar == NULL || value == NULL) {
        hg_set_error("hg_scalar_to_float", "%s is NULL", scalar == NULL ? "scalar" : "value");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    nb_lock(&nb_scalars);
    bool live = nb_ptrset_contains(&nb_scalars.set, scalar);
    unsigned char b[sizeof scalar->value.bytes];
    aclDataType dtype = ACL_DT_UNDEFINED;
    if (live) {
        /* Copied under the lock so a concurrent destroy cannot free it mid-read. */
        memcpy(b, scalar->value.bytes, sizeof b);
        dtype = scalar->dtype;
    }
    nb_unlock(&nb_scalars);
    if (!live) {
        hg_set_error("hg_scalar_to_float", "scalar %p is not a live scalar", (const void *)scalar);
        return ACLNN_ERR_PARAM_INVALID;
    }
    switch (dtype) {
    case ACL_FLOAT: { float v; memcpy(&v, b, 4); *value = v; break; }
    case ACL_DOUBLE: { double v; memcpy(&v, b, 8); *value = (float)v; break; }
    case ACL_FLOAT16: { uint16_t v; memcpy(&v, b, 2); *value = nb_half_to_float(v); break; }
    case ACL_BF16: { uint16_t v; memcpy(&v, b, 2); *value = nb_bits_to_float((uint32_t)v << 16); break; }
    case ACL_INT8: { int8_t v; memcpy(&v, b, 1); *value = (float)v; break; }
    case ACL_INT16: { int16_t v; memcpy(&v, b, 2); *value = (float)v; break; }
    case ACL_INT32: { int32_t v; memcpy(&v, b, 4); *value = (float)v; break; }
    case ACL_INT64: { int64_t v; memcpy(&v, b, 8); *value = (float)v; break; }
    case ACL_UINT8: { uint8_t v; memcpy(&v, b, 1); *value = (float)v; break; }
    case ACL_UINT16: { uint16_t v; memcpy(&v, b, 2); *value = (float)v; break; }
    case ACL_UINT32: { uint32_t v; memcpy(&v, b, 4); *value = (float)v; break; }
    case ACL_UINT64: { uint64_t v; memcpy(&v, b, 8); *value = (float)v; break; }
    case ACL_BOOL: *value = b[0] != 0 ? 1.0f : 0.0f; break;
    default:
        hg_set_error("hg_scalar_to_float", "scalar dtype %d (%s) has no fp32 value", (int)dtype,
                     hg_dtype_name(dtype));
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
