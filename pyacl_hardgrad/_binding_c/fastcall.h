/* pyacl_hardgrad._fastcall's internal header: what its C files share. */
#ifndef PYACL_HARDGRAD_FASTCALL_H
#define PYACL_HARDGRAD_FASTCALL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* TensorBase: the C part of every Tensor.  It owns the tensor's reference to its handle-layer
 * object (an hgb_obj, wrapped by this Python object) and lets go of it when the Tensor is
 * deallocated, so no Python finalizer runs per tensor.  `data` is the device address of a tensor
 * this module made (0 for the others, whose Python side keeps it).  The attributes every tensor
 * has are fields too (Python reads and writes them as attributes): a tensor made here needs no
 * instance dict. */
typedef struct {
    PyObject_HEAD
    void *obj;
    void *data;
    PyObject *shape, *strides, *offset, *dtype, *storage;
    PyObject *state;     /* _device_state */
    PyObject *live;      /* _live: the one-item open flag (NULL: never opened) */
} fc_tensor;

extern PyTypeObject fc_TensorBaseType;

#define FC_TENSOR_OBJ(op) (((fc_tensor *)(op))->obj)

/* A TensorBase field (a new reference), or NULL with AttributeError naming it when unset. */
PyObject *fc_tensor_field(PyObject *t, PyObject *const *field, const char *name);

/* A new row-major tensor of `type` (a TensorBase subtype) with layout `lay`, the Python layer's
 * tuple (shape, strides, numpy dtype, aclDataType, itemsize, ...), over new device memory of the
 * device whose state is `state` (its `_alloc`: (device object, context) as integers).
 * Returns the tensor; NULL with an exception on an error; NULL without one when it made nothing
 * and the Python layer's path must do it (no `_alloc` yet, or the allocation's status, stored in
 * *status, which that path turns into the right error or recovers from). */
PyObject *fc_tensor_make(PyTypeObject *type, PyObject *lay, PyObject *state, int *status);

/* Close a tensor fc_tensor_make made and drop the reference to it (its memory goes back). */
void fc_tensor_discard(PyObject *t);

/* An int argument as a non-NULL address; NULL with an exception (ValueError naming `what` for 0). */
void *fc_address(PyObject *v, const char *what);

/* The call trace (pyacl_hardgrad._trace): the tracer set by set_tracer(), NULL while the trace is
 * off.  Each call this module makes into the binding checks it once (a load and a branch) and,
 * when set, times the call and reports it: tracer(name, codes, args, result, duration_ns), where
 * codes has one letter per argument ('p' an address, 'i' an integer, 'd' a float, '?' a bool) and
 * result is the returned status (None for a function returning nothing). */
extern PyObject *fc_tracer;
/* The traced variants live out of the hot paths' way. */
#if defined(__GNUC__) || defined(__clang__)
#define FC_TRACED_PATH __attribute__((noinline, cold))
#else
#define FC_TRACED_PATH
#endif
unsigned long long fc_now_ns(void);
/* Report one call (args: a new tuple, stolen; NULL reports nothing).  Keeps a pending exception;
 * an error of the tracer itself is reported as unraisable. */
void fc_trace_report(const char *name, const char *codes, PyObject *args, PyObject *result, unsigned long long ns);

/* Set up by the module's init: 0, or -1 with an exception. */
int fc_tensor_init_module(PyObject *module);

/* DLPack capsules (dlpack.c): set up by the module's init, 0 or -1 with an exception. */
int fc_dlpack_init_module(PyObject *module);
/* Checking mode's Python sites (check_sites.c): the sites_* functions, 0 or -1 with an exception. */
int fc_sites_init_module(PyObject *module);

#endif
