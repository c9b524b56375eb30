/*
 * aclTensor: one allocation holding the struct and its int64 arrays.
 *
 * Descriptor rules (every violation returns NULL and names the argument):
 *  - viewDimsNum and storageDimsNum at most NB_MAX_DIMS (64); operators stop at 8
 *    themselves, so 9-d and larger descriptors are created fine;
 *  - viewDims may be NULL only when viewDimsNum is 0 (a 0-d tensor, numel 1), storageDims
 *    only when storageDimsNum is 0 (storage of one element);
 *  - a NULL stride means the contiguous strides of viewDims, as CANN's opbase derives them
 *    (ToContiguousStrides): stride[n-1] = 1, stride[i] = viewDims[i+1] * stride[i+1], so a
 *    zero dim gives zero strides before it; those must fit in int64 (they do whenever the
 *    element count is not 0);
 *  - no negative dim, stride or offset (zero strides, i.e. broadcast views, are fine);
 *  - dataType must have a whole-byte element size: ACL_DT_UNDEFINED, ACL_STRING and
 *    the sub-byte ACL_INT4 / ACL_UINT1 are refused, as are values outside aclDataType;
 *  - format must be a value of aclFormat (ACL_FORMAT_UNDEFINED included);
 *  - element counts and byte sizes must fit in int64;
 *  - a non-empty view must lie inside its storage:
 *    offset + sum((viewDims[i]-1)*stride[i]) < product(storageDims),
 *    so no kernel can be sent past the allocation the descriptor names.
 * tensorData may be NULL (descriptors of empty tensors, shape-only use).
 *
 * Destroy calls are lenient about NULL (return 0) as CANN is in practice; a pointer
 * that is not a live tensor gives ACLNN_ERR_PARAM_INVALID without being read.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hg_internal.h"
#include "nb_private.h"

static const char *const kCreate = "aclCreateTensor";

static bool nb_format_known(aclFormat format)
{
    switch (format) {
    case ACL_FORMAT_UNDEFINED:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NC1HWC0:
    case ACL_FORMAT_FRACTAL_Z:
    case ACL_FORMAT_NC1HWC0_C04:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NDC1HWC0:
    case ACL_FRACTAL_Z_3D:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
        return true;
    default:
        return false;
    }
}

/* The contiguous strides of dims into strides (n >= 1); false on int64 overflow. */
static bool nb_contiguous_strides(const int64_t *dims, uint64_t n, int64_t *strides)
{
    strides[n - 1] = 1;
    for (uint64_t i = n - 1; i-- > 0;)
        if (__builtin_mul_overflow(dims[i + 1], strides[i + 1], &strides[i]))
            return false;
    return true;
}

/* Product of dims into *out; false on int64 overflow.  A zero dim makes the product
 * 0 whatever the other dims are. */
static bool nb_product(const int64_t *dims, uint64_t n, int64_t *out)
{
    for (uint64_t i = 0; i < n; i++) {
        if (dims[i] == 0) {
            *out = 0;
            return true;
        }
    }
    int64_t p = 1;
    for (uint64_t i = 0; i < n; i++)
        if (__builtin_mul_overflow(p, dims[i], &p))
            return false;
    *out = p;
    return true;
}

static bool nb_check_dims(const char *what, const int64_t *dims, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        if (dims[i] < 0) {
            hg_set_error(kCreate, "%s[%" PRIu64 "] = %" PRId64 " must not be negative", what, i, dims[i]);
            return false;
        }
    }
    return true;
}

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData)
{
    if (viewDimsNum > NB_MAX_DIMS) {
        hg_set_error(kCreate, "viewDimsNum %" PRIu64 " exceeds the maximum of %d dimensions",
                     viewDimsNum, NB_MAX_DIMS);
        return NULL;
    }
    if (storageDimsNum > NB_MAX_DIMS) {
        hg_set_error(kCreate, "storageDimsNum %" PRIu64 " exceeds the maximum of %d dimensions",
                     storageDimsNum, NB_MAX_DIMS);
        return NULL;
    }
    if (viewDimsNum > 0 && viewDims == NULL) {
        hg_set_error(kCreate, "viewDims is NULL while viewDimsNum is %" PRIu64, viewDimsNum);
        return NULL;
    }
    if (storageDimsNum > 0 && storageDims == NULL) {
        hg_set_error(kCreate, "storageDims is NULL while storageDimsNum is %" PRIu64, storageDimsNum);
        return NULL;
    }
    size_t esize = hg_dtype_size(dataType);
    if (esize == 0) {
        hg_set_error(kCreate, "dataType %d (%s) is not supported: it has no whole-byte element size",
                     (int)dataType, hg_dtype_name(dataType));
        return NULL;
    }
    if (!nb_format_known(format)) {
        hg_set_error(kCreate, "format %d is not a value of aclFormat", (int)format);
        return NULL;
    }
    if (offset < 0) {
        hg_set_error(kCreate, "offset %" PRId64 " must not be negative", offset);
        return NULL;
    }
    if (!nb_check_dims("viewDims", viewDims, viewDimsNum) || !nb_check_dims("storageDims", storageDims, storageDimsNum))
        return NULL;
    int64_t derived[NB_MAX_DIMS];
    if (stride == NULL && viewDimsNum > 0) {
        if (!nb_contiguous_strides(viewDims, viewDimsNum, derived)) {
            hg_set_error(kCreate, "stride is NULL and the contiguous strides of viewDims overflow int64");
            return NULL;
        }
        stride = derived;
    } else if (!nb_check_dims("stride", stride, viewDimsNum)) {
        return NULL;
    }

    int64_t numel, storage_numel, bytes;
    if (!nb_product(viewDims, viewDimsNum, &numel) ||
        __builtin_mul_overflow(numel, (int64_t)esize, &bytes)) {
        hg_set_error(kCreate, "viewDims describe too many elements: the element count or byte size overflows int64");
        return NULL;
    }
    if (!nb_product(storageDims, storageDimsNum, &storage_numel) ||
        __builtin_mul_overflow(storage_numel, (int64_t)esize, &bytes)) {
        hg_set_error(kCreate, "storageDims describe too many elements: the element count or byte size overflows int64");
        return NULL;
    }
    if (numel > 0) {
        /* Largest element index the view touches; all terms are non-negative. */
        int64_t last = offset;
        bool overflow = false;
        for (uint64_t i = 0; i < viewDimsNum && !overflow; i++) {
            int64_t term;
            overflow = __builtin_mul_overflow(viewDims[i] - 1, stride[i], &term) ||
                       __builtin_add_overflow(last, term, &last);
        }
        if (overflow || last >= storage_numel) {
            if (overflow)
                hg_set_error(kCreate, "view does not fit in storage: offset + sum((viewDims[i]-1)*stride[i]) "
                             "overflows int64 (storage holds %" PRId64 " elements)", storage_numel);
            else
                hg_set_error(kCreate, "view does not fit in storage: offset + sum((viewDims[i]-1)*stride[i]) "
                             "= %" PRId64 " must be less than the storage element count %" PRId64
                             " (product of storageDims)", last, storage_numel);
            return NULL;
        }
    }

    size_t n_values = (size_t)(2 * viewDimsNum + storageDimsNum);
    struct aclTensor *t = malloc(sizeof *t + n_values * sizeof(int64_t));
    if (!t) {
        hg_set_error(kCreate, "out of memory for a %" PRIu64 "-d tensor descriptor", viewDimsNum);
        return NULL;
    }
    int64_t *values = (int64_t *)(void *)(t + 1);
    if (viewDimsNum > 0) {
        memcpy(values, viewDims, (size_t)viewDimsNum * sizeof(int64_t));
        memcpy(values + viewDimsNum, stride, (size_t)viewDimsNum * sizeof(int64_t));
    }
    if (storageDimsNum > 0)
        memcpy(values + 2 * viewDimsNum, storageDims, (size_t)storageDimsNum * sizeof(int64_t));
    t->magic = HG_TENSOR_MAGIC;
    t->dtype = dataType;
    t->format = format;
    t->ndim = viewDimsNum;
    t->storage_ndim = storageDimsNum;
    t->offset = offset;
    t->numel = numel;
    t->data = tensorData;
    t->shape = values;
    t->strides = values + viewDimsNum;
    t->storage_shape = values + 2 * viewDimsNum;
    t->device = hg_memory_device(tensorData, 1);

    nb_lock(&nb_tensors);
    int rc = nb_ptrset_insert(&nb_tensors.set, t);
    nb_unlock(&nb_tensors);
    if (rc != 0) {
        free(t);
        hg_set_error(kCreate, "out of memory registering the tensor");
        return NULL;
    }
    hg_count_add(HG_COUNT_TENSOR, +1);
    if (HG_CHECKING())
        hg_check_object(HG_OBJ_TENSOR, t, 1, kCreate, hg_dtype_name(dataType));
    HG_LOG(HG_LOG_OP, HG_LOG_DEBUG, kCreate, "tensor %p: %" PRIu64 "-d %s over %p", (void *)t, viewDimsNum,
           hg_dtype_name(dataType), tensorData);
    return t;
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    if (tensor == NULL)
        return ACLNN_SUCCESS;
    nb_lock(&nb_tensors);
    bool live = nb_ptrset_remove(&nb_tensors.set, tensor);
    nb_unlock(&nb_tensors);
    if (!live) {
        hg_set_error("aclDestroyTensor", "tensor %p is not a live tensor (already destroyed, or not made "
                     "by aclCreateTensor)", (const void *)tensor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    struct aclTensor *t = (struct aclTensor *)tensor;
    HG_LOG(HG_LOG_OP, HG_LOG_DEBUG, "aclDestroyTensor", "tensor %p destroyed", (const void *)tensor);
    if (HG_CHECKING())
        hg_check_object(HG_OBJ_TENSOR, tensor, 0, "aclDestroyTensor", NULL);
    t->magic = 0;
    free(t);
    hg_count_add(HG_COUNT_TENSOR, -1);
    return ACLNN_SUCCESS;
}

/* Common front of the getters: NULL -> 161001, not a live tensor -> 161002.  On
 * success the tensor registry stays locked so a concurrent destroy cannot free the
 * tensor while it is read. */
static aclnnStatus nb_getter_enter(const char *func, const aclTensor *tensor, const void *out, const char *out_name)
{
    if (tensor == NULL) {
        hg_set_error(func, "tensor is NULL");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (out == NULL) {
        hg_set_error(func, "%s is NULL", out_name);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    nb_lock(&nb_tensors);
    if (!nb_ptrset_contains(&nb_tensors.set, tensor)) {
        nb_unlock(&nb_tensors);
        hg_set_error(func, "tensor %p is not a live tensor", (const void *)tensor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType)
{
    aclnnStatus rc = nb_getter_enter("aclGetDataType", tensor, dataType, "dataType");
    if (rc != ACLNN_SUCCESS)
        return rc;
    *dataType = tensor->dtype;
    nb_unlock(&nb_tensors);
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format)
{
    aclnnStatus rc = nb_getter_enter("aclGetFormat", tensor, format, "format");
    if (rc != ACLNN_SUCCESS)
        return rc;
    *format = tensor->format;
    nb_unlock(&nb_tensors);
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset)
{
    aclnnStatus rc = nb_getter_enter("aclGetViewOffset", tensor, offset, "offset");
    if (rc != ACLNN_SUCCESS)
        return rc;
    *offset = tensor->offset;
    nb_unlock(&nb_tensors);
    return ACLNN_SUCCESS;
}
