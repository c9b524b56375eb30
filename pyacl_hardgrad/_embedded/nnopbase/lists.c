/*
 * Tensor-base containers of the aclnn API: int, float and bool arrays, tensor lists and
 * scalar lists (CANN's aclCreateIntArray ... aclDestroyScalarList), the view and storage
 * getters that hand out arrays, and the tensor address setters.
 *
 *  - Creators copy the values (arrays) or the element pointers (lists).  A NULL value
 *    pointer or a size of 0 gives an empty, non-NULL container; NULL only when memory
 *    runs out (with the reason in aclGetRecentErrMsg()).
 *  - A list owns its elements: destroying it destroys every tensor or scalar in it.
 *  - Destroys accept NULL (0); an unknown or already destroyed container gives 161002.
 *  - The getters aclGetViewShape / aclGetViewStrides / aclGetStorageShape return an array
 *    from C++'s operator new[], which the caller releases with delete[] as CANN documents.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hg_internal.h"
#include "nb_private.h"

typedef enum { KIND_INT = 1, KIND_FLOAT, KIND_BOOL, KIND_TENSORS, KIND_SCALARS } nb_kind;

static const char *const kind_names[] = {"", "aclIntArray", "aclFloatArray", "aclBoolArray", "aclTensorList",
                                         "aclScalarList"};

/* One layout for all five: a header and the values (or pointers) after it. */
typedef struct nb_list {
    uint32_t magic;
    nb_kind kind;
    uint64_t size;
    _Alignas(8) unsigned char values[];
} nb_list;

#define NB_LIST_MAGIC 0x4c474841u /* "AHGL" */

struct aclIntArray { nb_list l; };
struct aclFloatArray { nb_list l; };
struct aclBoolArray { nb_list l; };
struct aclTensorList { nb_list l; };
struct aclScalarList { nb_list l; };

static size_t elem_size(nb_kind kind)
{
    switch (kind) {
    case KIND_INT: return sizeof(int64_t);
    case KIND_FLOAT: return sizeof(float);
    case KIND_BOOL: return sizeof(bool);
    default: return sizeof(void *);
    }
}

static hg_obj_kind obj_kind(nb_kind kind)
{
    switch (kind) {
    case KIND_INT: return HG_OBJ_INT_ARRAY;
    case KIND_FLOAT: return HG_OBJ_FLOAT_ARRAY;
    case KIND_BOOL: return HG_OBJ_BOOL_ARRAY;
    case KIND_TENSORS: return HG_OBJ_TENSOR_LIST;
    default: return HG_OBJ_SCALAR_LIST;
    }
}

static nb_list *list_new(const char *func, nb_kind kind, const void *value, uint64_t size)
{
    if (!value)
        size = 0;
    size_t esz = elem_size(kind);
    if (size > (SIZE_MAX - sizeof(nb_list)) / esz) {
        hg_set_error(func, "size (%" PRIu64 ") is too large", size);
        return NULL;
    }
    nb_list *l = malloc(sizeof *l + (size_t)size * esz);
    if (!l) {
        hg_set_error(func, "out of memory for %" PRIu64 " elements", size);
        return NULL;
    }
    l->magic = NB_LIST_MAGIC;
    l->kind = kind;
    l->size = size;
    if (size)
        memcpy(l->values, value, (size_t)size * esz);
    nb_lock(&nb_lists);
    int rc = nb_ptrset_insert(&nb_lists.set, l);
    nb_unlock(&nb_lists);
    if (rc != 0) {
        free(l);
        hg_set_error(func, "out of memory registering the %s", kind_names[kind]);
        return NULL;
    }
    if (HG_CHECKING()) {
        hg_check_object(obj_kind(kind), l, 1, func, NULL);
        /* a list owns its elements from now on: their leak is the list's */
        for (uint64_t i = 0; i < size && (kind == KIND_TENSORS || kind == KIND_SCALARS); ++i) {
            const void *e;
            memcpy(&e, l->values + i * sizeof e, sizeof e);
            hg_check_object(kind == KIND_TENSORS ? HG_OBJ_TENSOR : HG_OBJ_SCALAR, e, 0, func, NULL);
        }
    }
    return l;
}

/* Is l a live container of that kind?  Caller holds nb_lists. */
static bool live_locked(const nb_list *l, nb_kind kind)
{
    return nb_ptrset_contains(&nb_lists.set, l) && l->kind == kind;
}

static aclnnStatus list_destroy(const char *func, const nb_list *l, nb_kind kind)
{
    if (!l)
        return ACLNN_SUCCESS;
    nb_lock(&nb_lists);
    bool live = live_locked(l, kind);
    if (live)
        nb_ptrset_remove(&nb_lists.set, l);
    nb_unlock(&nb_lists);
    if (!live) {
        hg_set_error(func, "%p is not a live %s (already destroyed, or not made by aclCreate%s)", (const void *)l,
                     kind_names[kind], kind_names[kind] + 3);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (HG_CHECKING())
        hg_check_object(obj_kind(kind), l, 0, func, NULL);
    nb_list *m = (nb_list *)l;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (uint64_t i = 0; i < m->size && (kind == KIND_TENSORS || kind == KIND_SCALARS); ++i) {
        void *e;
        memcpy(&e, m->values + i * sizeof e, sizeof e);
        aclnnStatus erc = kind == KIND_TENSORS ? aclDestroyTensor(e) : aclDestroyScalar(e);
        if (erc && !rc)
            rc = erc; /* keep going: the other elements are still owned by the list */
    }
    m->magic = 0;
    free(m);
    return rc;
}

static aclnnStatus list_size(const char *func, const nb_list *l, nb_kind kind, uint64_t *size)
{
    if (!l || !size) {
        hg_set_error(func, "%s is NULL", !l ? kind_names[kind] + 3 : "size");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    nb_lock(&nb_lists);
    bool live = live_locked(l, kind);
    if (live)
        *size = l->size;
    nb_unlock(&nb_lists);
    if (!live) {
        hg_set_error(func, "%p is not a live %s", (const void *)l, kind_names[kind]);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
    return (aclIntArray *)list_new("aclCreateIntArray", KIND_INT, value, size);
}

ACL_FUNC_VISIBILITY aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size)
{
    return (aclFloatArray *)list_new("aclCreateFloatArray", KIND_FLOAT, value, size);
}

ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size)
{
    return (aclBoolArray *)list_new("aclCreateBoolArray", KIND_BOOL, value, size);
}

ACL_FUNC_VISIBILITY aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
    return (aclTensorList *)list_new("aclCreateTensorList", KIND_TENSORS, value, size);
}

ACL_FUNC_VISIBILITY aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size)
{
    return (aclScalarList *)list_new("aclCreateScalarList", KIND_SCALARS, value, size);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
    return list_destroy("aclDestroyIntArray", (const nb_list *)array, KIND_INT);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyFloatArray(const aclFloatArray *array)
{
    return list_destroy("aclDestroyFloatArray", (const nb_list *)array, KIND_FLOAT);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray *array)
{
    return list_destroy("aclDestroyBoolArray", (const nb_list *)array, KIND_BOOL);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
    return list_destroy("aclDestroyTensorList", (const nb_list *)array, KIND_TENSORS);
}

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalarList(const aclScalarList *array)
{
    return list_destroy("aclDestroyScalarList", (const nb_list *)array, KIND_SCALARS);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size)
{
    return list_size("aclGetIntArraySize", (const nb_list *)array, KIND_INT, size);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size)
{
    return list_size("aclGetFloatArraySize", (const nb_list *)array, KIND_FLOAT, size);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size)
{
    return list_size("aclGetBoolArraySize", (const nb_list *)array, KIND_BOOL, size);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size)
{
    return list_size("aclGetTensorListSize", (const nb_list *)tensorList, KIND_TENSORS, size);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size)
{
    return list_size("aclGetScalarListSize", (const nb_list *)scalarList, KIND_SCALARS, size);
}

/* ------------------------------------------------------------------ view and storage getters */

/* C++'s nothrow operator new[](size_t, const std::nothrow_t &): the caller frees the
 * arrays below with delete[], so they must come from it.  (Itanium C++ ABI names, LP64.) */
extern void *_ZnamRKSt9nothrow_t(size_t size, const void *tag);
extern const char _ZSt7nothrow;

typedef enum { GET_VIEW_SHAPE, GET_VIEW_STRIDES, GET_STORAGE_SHAPE } nb_dims_what;

static aclnnStatus get_dims(const char *func, const aclTensor *tensor, int64_t **dims, uint64_t *num,
                            nb_dims_what what)
{
    if (!tensor || !dims || !num) {
        hg_set_error(func, "%s is NULL", !tensor ? "tensor" : !dims ? "dims" : "dimsNum");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    nb_lock(&nb_tensors);
    if (!nb_ptrset_contains(&nb_tensors.set, tensor)) {
        nb_unlock(&nb_tensors);
        hg_set_error(func, "tensor %p is not a live tensor", (const void *)tensor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    uint64_t n = what == GET_STORAGE_SHAPE ? tensor->storage_ndim : tensor->ndim;
    const int64_t *src = what == GET_VIEW_SHAPE ? tensor->shape
                         : what == GET_VIEW_STRIDES ? tensor->strides : tensor->storage_shape;
    /* new[] of 0 elements still gives a pointer the caller may delete[] */
    int64_t *out = _ZnamRKSt9nothrow_t((size_t)n * sizeof(int64_t), &_ZSt7nothrow);
    if (out && n)
        memcpy(out, src, (size_t)n * sizeof(int64_t));
    nb_unlock(&nb_tensors);
    if (!out) {
        hg_set_error(func, "out of memory for %" PRIu64 " dims", n);
        return ACLNN_ERR_INNER_NULLPTR;
    }
    *dims = out;
    *num = n;
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum)
{
    return get_dims("aclGetViewShape", tensor, viewDims, viewDimsNum, GET_VIEW_SHAPE);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
                                                  uint64_t *stridesNum)
{
    return get_dims("aclGetViewStrides", tensor, stridesValue, stridesNum, GET_VIEW_STRIDES);
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
                                                   uint64_t *storageDimsNum)
{
    return get_dims("aclGetStorageShape", tensor, storageDims, storageDimsNum, GET_STORAGE_SHAPE);
}

/* ------------------------------------------------------------------ tensor addresses */

ACL_FUNC_VISIBILITY aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr)
{
    if (!tensor) {
        hg_set_error("aclSetRawTensorAddr", "tensor is NULL");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    nb_lock(&nb_tensors);
    bool live = nb_ptrset_contains(&nb_tensors.set, tensor);
    if (live) {
        tensor->data = addr;
        tensor->device = hg_memory_device(addr, 1);
    }
    nb_unlock(&nb_tensors);
    if (!live) {
        hg_set_error("aclSetRawTensorAddr", "tensor %p is not a live tensor", (const void *)tensor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

ACL_FUNC_VISIBILITY aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr)
{
    if (!tensor || !addr) {
        hg_set_error("aclGetRawTensorAddr", "%s is NULL", !tensor ? "tensor" : "addr");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    nb_lock(&nb_tensors);
    bool live = nb_ptrset_contains(&nb_tensors.set, tensor);
    if (live)
        *addr = tensor->data;
    nb_unlock(&nb_tensors);
    if (!live) {
        hg_set_error("aclGetRawTensorAddr", "tensor %p is not a live tensor", (const void *)tensor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

/* The element of a tensor list at relIndex (for the dynamic setters). */
static aclnnStatus list_tensor(const char *func, aclTensorList *tensors, size_t relIndex, aclTensor **out)
{
    if (!tensors) {
        hg_set_error(func, "tensors is NULL");
        return ACLNN_ERR_INNER_NULLPTR;
    }
    nb_lock(&nb_lists);
    bool live = live_locked(&tensors->l, KIND_TENSORS);
    uint64_t size = live ? tensors->l.size : 0;
    if (live && relIndex < size)
        memcpy(out, tensors->l.values + relIndex * sizeof *out, sizeof *out);
    nb_unlock(&nb_lists);
    if (!live) {
        hg_set_error(func, "tensors (%p) is not a live aclTensorList", (void *)tensors);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (relIndex >= size) {
        hg_set_error(func, "relativeIndex (%zu) is not below the list's size (%" PRIu64 ")", relIndex, size);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

/* which: 0 any tensor, 1 inputs, 2 outputs; index counts within that group. */
static aclnnStatus set_addr(const char *func, aclOpExecutor *executor, int which, size_t index, aclTensor *tensor,
                            void *addr)
{
    if (!executor || !tensor) {
        hg_set_error(func, "%s is NULL", !executor ? "executor" : "tensor");
        return ACLNN_ERR_INNER_NULLPTR;
    }
    aclnnStatus rc = hg_executor_rebind(func, executor, which, index, addr);
    if (rc == ACLNN_SUCCESS)
        rc = aclSetRawTensorAddr(tensor, addr);
    return rc;
}

static aclnnStatus set_dynamic_addr(const char *func, aclOpExecutor *executor, int which, size_t irIndex,
                                    size_t relIndex, aclTensorList *tensors, void *addr)
{
    aclTensor *t = NULL;
    aclnnStatus rc = list_tensor(func, tensors, relIndex, &t);
    if (rc)
        return rc;
    return set_addr(func, executor, which, irIndex + relIndex, t, addr);
}

#define NB_SETTERS(prefix)                                                                                     \
    ACL_FUNC_VISIBILITY aclnnStatus prefix##SetInputTensorAddr(aclOpExecutor *executor, const size_t index,    \
                                                               aclTensor *tensor, void *addr)                  \
    {                                                                                                          \
        return set_addr(#prefix "SetInputTensorAddr", executor, 1, index, tensor, addr);                      \
    }                                                                                                          \
    ACL_FUNC_VISIBILITY aclnnStatus prefix##SetOutputTensorAddr(aclOpExecutor *executor, const size_t index,   \
                                                                aclTensor *tensor, void *addr)                 \
    {                                                                                                          \
        return set_addr(#prefix "SetOutputTensorAddr", executor, 2, index, tensor, addr);                     \
    }                                                                                                          \
    ACL_FUNC_VISIBILITY aclnnStatus prefix##SetTensorAddr(aclOpExecutor *executor, const size_t index,         \
                                                          aclTensor *tensor, void *addr)                       \
    {                                                                                                          \
        return set_addr(#prefix "SetTensorAddr", executor, 0, index, tensor, addr);                           \
    }                                                                                                          \
    ACL_FUNC_VISIBILITY aclnnStatus prefix##SetDynamicInputTensorAddr(                                         \
        aclOpExecutor *executor, size_t irIndex, const size_t relativeIndex, aclTensorList *tensors, void *addr) \
    {                                                                                                          \
        return set_dynamic_addr(#prefix "SetDynamicInputTensorAddr", executor, 1, irIndex, relativeIndex,     \
                                tensors, addr);                                                                \
    }                                                                                                          \
    ACL_FUNC_VISIBILITY aclnnStatus prefix##SetDynamicOutputTensorAddr(                                        \
        aclOpExecutor *executor, size_t irIndex, const size_t relativeIndex, aclTensorList *tensors, void *addr) \
    {                                                                                                          \
        return set_dynamic_addr(#prefix "SetDynamicOutputTensorAddr", executor, 2, irIndex, relativeIndex,    \
                                tensors, addr);                                                                \
    }                                                                                                          \
    ACL_FUNC_VISIBILITY aclnnStatus prefix##SetDynamicTensorAddr(                                              \
        aclOpExecutor *executor, size_t irIndex, const size_t relativeIndex, aclTensorList *tensors, void *addr) \
    {                                                                                                          \
        return set_dynamic_addr(#prefix "SetDynamicTensorAddr", executor, 0, irIndex, relativeIndex, tensors,  \
                                addr);                                                                         \
    }

/* CANN exports every setter under two spellings, acl... and Acl... */
NB_SETTERS(acl)
NB_SETTERS(Acl)
