/* DLPack capsules: exporting a tensor's memory to another library and opening another library's
 * capsule (the Python side is pyacl_hardgrad/_dlpack.py).
 *
 * The structures below follow the DLPack specification (version 1.x): a DLTensor describes the
 * memory (data pointer, device, dtype, shape and strides in elements, byte offset); a
 * DLManagedTensor ("dltensor" capsule, the legacy form) or DLManagedTensorVersioned
 * ("dltensor_versioned" capsule, DLPack >= 1.0) adds the producer's context and the deleter the
 * consumer calls when it no longer needs the memory.  The consumer takes the structure out of the
 * capsule and renames the capsule to "used_dltensor[_versioned]"; a capsule destroyed without
 * being consumed calls the deleter itself.
 *
 * What keeps the memory alive: an export holds one reference to an object of the binding's handle
 * layer (the tensor's storage: its device memory or the owner of a foreign pointer) and/or a
 * Python object (a host copy).  The deleter lets go of both, from whichever thread the consumer
 * calls it on, with or without the GIL.  Closing the Tensor only drops the Tensor's own
 * reference, so the memory outlives it until the consumer lets go. */
#include "fastcall.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- the DLPack ABI ------------------------------------------------------------------------- */
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef struct {
    int32_t device_type;      /* DLDeviceType: kDLCPU = 1, kDLExtDev = 12, ... */
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;             /* DLDataTypeCode: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLComplex 5, kDLBool 6 */
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;         /* in elements; NULL means compact row-major */
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;           /* DLPACK_FLAG_BITMASK_* */
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#define HG_DLPACK_MAJOR 1
#define HG_DLPACK_MINOR 0

static const char NAME_LEGACY[] = "dltensor";
static const char NAME_LEGACY_USED[] = "used_dltensor";
static const char NAME_VERSIONED[] = "dltensor_versioned";
static const char NAME_VERSIONED_USED[] = "used_dltensor_versioned";
static const char NAME_IMPORT[] = "pyacl_hardgrad.dlpack_import";

/* --- export --------------------------------------------------------------------------------- */
typedef int64_t (*obj_release_fn)(void *obj);
static obj_release_fn g_release;      /* hgb_obj_release */

static FC_TRACED_PATH void release_traced(void *owner)
{
    unsigned long long t0 = fc_now_ns();
    int64_t left;
    Py_BEGIN_ALLOW_THREADS
    left = g_release(owner);
    Py_END_ALLOW_THREADS
    fc_trace_report("hgb_obj_release", "p", Py_BuildValue("(N)", PyLong_FromVoidPtr(owner)),
                    PyLong_FromLongLong((long long)left), fc_now_ns() - t0);
}

/* hgb_obj_release(owner) with the GIL held: released around the call, traced when the trace is
 * on.  (A consumer's deleter running without the GIL calls g_release itself: not traced.) */
static void release_owner(void *owner)
{
    if (fc_tracer != NULL) {
        release_traced(owner);
        return;
    }
    Py_BEGIN_ALLOW_THREADS
    (void)g_release(owner);
    Py_END_ALLOW_THREADS
}

/* One export: the managed structure (legacy or versioned), what keeps the memory alive, and the
 * shape and strides the DLTensor points at; one allocation, freed by the deleter. */
typedef struct {
    union {
        DLManagedTensor legacy;
        DLManagedTensorVersioned versioned;
    } m;
    void *owner;              /* a handle-layer object reference (hgb_obj *), or NULL */
    PyObject *keep;           /* a Python object reference, or NULL */
    int64_t dims[];           /* shape[ndim], then strides[ndim] */
} hg_export;

static void export_free(hg_export *e)
{
    if (e->owner != NULL && g_release != NULL) {
        void *owner = e->owner;
        e->owner = NULL;
        /* The release may run the handle layer's destroy (device memory back to the allocator,
         * or the Python layer's release of a foreign owner, which takes the GIL itself). */
        if (Py_IsInitialized() && PyGILState_Check()) {
            release_owner(owner);
        } else {
            (void)g_release(owner);
        }
    }
    if (e->keep != NULL) {
        if (Py_IsInitialized()) {      /* after finalization the object is gone with the interpreter */
            PyGILState_STATE g = PyGILState_Ensure();
            Py_DECREF(e->keep);
            PyGILState_Release(g);
        }
        e->keep = NULL;
    }
    free(e);
}

static void delete_legacy(DLManagedTensor *self)
{
    if (self != NULL)
        export_free((hg_export *)self->manager_ctx);
}

static void delete_versioned(DLManagedTensorVersioned *self)
{
    if (self != NULL)
        export_free((hg_export *)self->manager_ctx);
}

/* Call the deleter of the structure capsule (named name) points at -- versioned or legacy; < 0: the
 * capsule's context says (non-NULL: versioned) -- with the exception state saved around it: capsule
 * destructors run wherever the last reference goes, maybe while an exception is being raised. */
static void call_deleter(PyObject *capsule, const char *name, int versioned)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
#endif
    void *p = PyCapsule_GetPointer(capsule, name);
    if (versioned < 0)
        versioned = PyCapsule_GetContext(capsule) != NULL;
    if (p == NULL) {
        PyErr_WriteUnraisable(capsule);
    } else if (versioned) {
        DLManagedTensorVersioned *m = p;
        if (m->deleter != NULL)
            m->deleter(m);
    } else {
        DLManagedTensor *m = p;
        if (m->deleter != NULL)
            m->deleter(m);
    }
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exc);
#else
    PyErr_Restore(type, value, tb);
#endif
}

/* The destructors of our capsules: a capsule the consumer took (renamed) is the consumer's business;
 * one still under its first name was never consumed, so its structure is deleted here. */
static void capsule_legacy_destructor(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, NAME_LEGACY))
        call_deleter(capsule, NAME_LEGACY, 0);
}

static void capsule_versioned_destructor(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, NAME_VERSIONED))
        call_deleter(capsule, NAME_VERSIONED, 1);
}

/* An int tuple as int64 values into out[n]; -1 with an exception naming `what` otherwise. */
static int read_dims(PyObject *seq, Py_ssize_t n, int64_t *out, const char *what)
{
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s must be a tuple of %zd ints", what, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred())
            return -1;
        out[i] = (int64_t)v;
    }
    return 0;
}

/* dlpack_export(owner, (data, device_type, device_id, code, bits, shape, strides, keep, versioned,
 * flags)): a new capsule.  `owner` (an int, 0 for none) is a handle-layer object reference that
 * moves into the export whatever happens after it was read: on failure it is let go of here. */
static PyObject *fc_dlpack_export(PyObject *module, PyObject *args)
{
    (void)module;
    unsigned long long data, owner_addr, flags;
    int device_type, device_id, code, bits, versioned;
    PyObject *rest, *shape, *strides, *keep;
    if (!PyArg_ParseTuple(args, "KO!:dlpack_export", &owner_addr, &PyTuple_Type, &rest))
        return NULL;        /* no owner was read: the caller keeps its reference */
    void *owner = (void *)(uintptr_t)owner_addr;
    hg_export *e = NULL;
    if (owner != NULL && g_release == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "dlpack_export() with an owner before set_dlpack_release()");
        return NULL;
    }
    if (!PyArg_ParseTuple(rest, "KiiiiOOOpK:dlpack_export", &data, &device_type, &device_id, &code, &bits,
                          &shape, &strides, &keep, &versioned, &flags))
        goto fail;
    Py_ssize_t ndim = PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : 0;
    if (code < 0 || code > 255 || bits <= 0 || bits > 255) {
        PyErr_SetString(PyExc_ValueError, "a DLPack dtype code is in [0, 255], bits in [1, 255]");
        goto fail;
    }
    if (ndim > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "too many dimensions for DLPack");
        goto fail;
    }
    e = calloc(1, sizeof *e + (size_t)(2 * ndim) * sizeof(int64_t));
    if (e == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (read_dims(shape, ndim, e->dims, "shape") < 0 || read_dims(strides, ndim, e->dims + ndim, "strides") < 0)
        goto fail;
    DLTensor *t = versioned ? &e->m.versioned.dl_tensor : &e->m.legacy.dl_tensor;
    t->data = (void *)(uintptr_t)data;
    t->device.device_type = device_type;
    t->device.device_id = device_id;
    t->ndim = (int32_t)ndim;
    t->dtype.code = (uint8_t)code;
    t->dtype.bits = (uint8_t)bits;
    t->dtype.lanes = 1;
    t->shape = e->dims;                /* never NULL, also for 0-d (then nothing is read) */
    t->strides = e->dims + ndim;
    t->byte_offset = 0;
    if (versioned) {
        e->m.versioned.version.major = HG_DLPACK_MAJOR;
        e->m.versioned.version.minor = HG_DLPACK_MINOR;
        e->m.versioned.manager_ctx = e;
        e->m.versioned.deleter = delete_versioned;
        e->m.versioned.flags = flags;
    } else {
        e->m.legacy.manager_ctx = e;
        e->m.legacy.deleter = delete_legacy;
    }
    if (keep != Py_None) {
        Py_INCREF(keep);
        e->keep = keep;
    }
    e->owner = owner;
    owner = NULL;                      /* the export owns it from here */
    PyObject *cap = versioned ? PyCapsule_New(&e->m.versioned, NAME_VERSIONED, capsule_versioned_destructor)
                              : PyCapsule_New(&e->m.legacy, NAME_LEGACY, capsule_legacy_destructor);
    if (cap == NULL) {
        export_free(e);
        return NULL;
    }
    return cap;
fail:
    if (owner != NULL)
        release_owner(owner);
    free(e);
    return NULL;
}

/* --- import --------------------------------------------------------------------------------- */
/* The owner capsule of an opened producer's capsule: its destructor calls the producer's deleter.
 * Its context says which structure it points at (non-NULL: versioned). */
static void import_destructor(PyObject *capsule)
{
    call_deleter(capsule, NAME_IMPORT, -1);
}

static PyObject *dims_tuple(const int64_t *v, int32_t n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (int32_t i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

/* dlpack_import(capsule): ((version or None, flags, data, (device_type, device_id),
 * (code, bits, lanes), shape, strides or None, byte_offset), owner).  The capsule is consumed
 * (renamed "used_..."); `owner` calls the producer's deleter when it is deallocated.  A capsule
 * already used, or of a major version other than 1 (left unconsumed: its own destructor deletes
 * it), raises BufferError. */
static PyObject *fc_dlpack_import(PyObject *module, PyObject *capsule)
{
    (void)module;
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "a DLPack capsule is a PyCapsule, got %s", Py_TYPE(capsule)->tp_name);
        return NULL;
    }
    const char *name = PyCapsule_GetName(capsule);
    if (name == NULL && PyErr_Occurred())
        return NULL;
    int versioned;
    if (name != NULL && strcmp(name, NAME_VERSIONED) == 0) {
        versioned = 1;
    } else if (name != NULL && strcmp(name, NAME_LEGACY) == 0) {
        versioned = 0;
    } else if (name != NULL && (strcmp(name, NAME_VERSIONED_USED) == 0 || strcmp(name, NAME_LEGACY_USED) == 0)) {
        PyErr_SetString(PyExc_BufferError, "the DLPack capsule was consumed already (a capsule is used once)");
        return NULL;
    } else {
        PyErr_Format(PyExc_BufferError, "not a DLPack capsule (its name is %s)", name ? name : "NULL");
        return NULL;
    }
    void *p = PyCapsule_GetPointer(capsule, name);
    if (p == NULL)
        return NULL;
    const DLTensor *t;
    PyObject *version, *flags;
    if (versioned) {
        const DLManagedTensorVersioned *m = p;
        if (m->version.major != HG_DLPACK_MAJOR) {
            PyErr_Format(PyExc_BufferError, "the DLPack capsule is of version %u.%u; version 1.x is supported",
                         (unsigned)m->version.major, (unsigned)m->version.minor);
            return NULL;
        }
        t = &m->dl_tensor;
        version = Py_BuildValue("(II)", (unsigned)m->version.major, (unsigned)m->version.minor);
        flags = PyLong_FromUnsignedLongLong(m->flags);
    } else {
        t = &((const DLManagedTensor *)p)->dl_tensor;
        Py_INCREF(Py_None);
        version = Py_None;
        flags = PyLong_FromLong(0);
    }
    if (version == NULL || flags == NULL)
        goto fail_values;
    if (t->ndim < 0 || (t->ndim > 0 && t->shape == NULL)) {
        PyErr_Format(PyExc_BufferError, "the DLPack tensor has %d dimensions and %s shape", (int)t->ndim,
                     t->shape ? "a" : "no");
        goto fail_values;
    }
    PyObject *shape = dims_tuple(t->shape, t->ndim);
    if (shape == NULL)
        goto fail_values;
    PyObject *strides;
    if (t->strides != NULL) {
        strides = dims_tuple(t->strides, t->ndim);
        if (strides == NULL) {
            Py_DECREF(shape);
            goto fail_values;
        }
    } else {
        Py_INCREF(Py_None);
        strides = Py_None;
    }
    /* "N" steals the four references, also when building fails */
    PyObject *info = Py_BuildValue("(NNK(ii)(iii)NNK)", version, flags, (unsigned long long)(uintptr_t)t->data,
                                   (int)t->device.device_type, (int)t->device.device_id, (int)t->dtype.code,
                                   (int)t->dtype.bits, (int)t->dtype.lanes, shape, strides,
                                   (unsigned long long)t->byte_offset);
    if (info == NULL)
        return NULL;
    PyObject *owner = PyCapsule_New(p, NAME_IMPORT, import_destructor);
    if (owner == NULL) {
        Py_DECREF(info);
        return NULL;
    }
    if (versioned && PyCapsule_SetContext(owner, (void *)1) < 0) {
        PyCapsule_SetDestructor(owner, NULL);
        Py_DECREF(owner);
        Py_DECREF(info);
        return NULL;
    }
    /* From here the owner deletes the structure: the capsule must not. */
    if (PyCapsule_SetName(capsule, versioned ? NAME_VERSIONED_USED : NAME_LEGACY_USED) < 0) {
        PyCapsule_SetDestructor(owner, NULL);
        Py_DECREF(owner);
        Py_DECREF(info);
        return NULL;
    }
    return Py_BuildValue("(NN)", info, owner);
fail_values:
    Py_XDECREF(version);
    Py_XDECREF(flags);
    return NULL;
}

/* set_dlpack_release(address): hgb_obj_release, what an export's deleter lets go of its owner
 * with; the same address may be set again (a module reloaded), another one not. */
static PyObject *fc_set_dlpack_release(PyObject *module, PyObject *arg)
{
    (void)module;
    void *p = fc_address(arg, "the release function's address");
    if (p == NULL)
        return NULL;
    obj_release_fn fn = (obj_release_fn)(uintptr_t)p;
    if (g_release != NULL && g_release != fn) {
        PyErr_SetString(PyExc_ValueError, "set_dlpack_release() was given another function before");
        return NULL;
    }
    g_release = fn;
    Py_RETURN_NONE;
}

static PyMethodDef dlpack_methods[] = {
    {"dlpack_export", fc_dlpack_export, METH_VARARGS,
     "dlpack_export(owner, (data, device_type, device_id, code, bits, shape, strides, keep, versioned, flags))"},
    {"dlpack_import", fc_dlpack_import, METH_O,
     "dlpack_import(capsule): (info, owner); the capsule is consumed"},
    {"set_dlpack_release", fc_set_dlpack_release, METH_O, "set_dlpack_release(address of hgb_obj_release)"},
    {NULL, NULL, 0, NULL},
};

int fc_dlpack_init_module(PyObject *module)
{
    if (PyModule_AddIntConstant(module, "DLPACK_MAJOR", HG_DLPACK_MAJOR) < 0 ||
        PyModule_AddIntConstant(module, "DLPACK_MINOR", HG_DLPACK_MINOR) < 0)
        return -1;
    return PyModule_AddFunctions(module, dlpack_methods);
}
