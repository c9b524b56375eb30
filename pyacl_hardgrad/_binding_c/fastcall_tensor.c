/* TensorBase and the tensors _fastcall makes (see fastcall.h).
 *
 * A Tensor made from Python costs a Python frame per step: the layout, the allocation through
 * cffi, a dozen attribute stores, and a finalizer (`__del__`) that lets go of the handle-layer
 * object through cffi again.  Here the handle-layer object lives in a C field of the Tensor: the
 * type's deallocator lets go of it, and make() allocates the memory and the aclTensor
 * (hgb_tensor_empty, through the pointer set_tensor_calls() was given) and fills the new Tensor
 * in one call, storing its attributes in the fields of fastcall.h. */
#include "fastcall.h"

#include <structmember.h>

#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

typedef int (*tensor_empty_fn)(void *call, void *device, void *context, int ndim, const int64_t *dims,
                               int dtype, int itemsize);
typedef void *(*thread_call_fn)(void);
typedef void (*obj_fn)(void *obj);

static tensor_empty_fn g_tensor_empty;   /* hgb_tensor_empty */
static thread_call_fn g_thread_call;     /* hgb_thread_call */
static obj_fn g_forget;                  /* hgb_obj_forget */
static obj_fn g_close;                   /* hgb_obj_close */
static Py_ssize_t g_made_at = -1, g_data_at = -1;  /* offsets of hgb_call's made and data */

static PyObject *s_alloc, *s_owns_memory, *s_memory, *s_close;
static PyObject *g_zero;
static PyObject *g_never_open;           /* [False]: the _live of a tensor never opened */
static PyObject *g_track;                /* set_tracker()'s callable while objects are tracked, else NULL */

#define FC_MAX_DIMS 64   /* larger ranks take the Python layer's path (aclCreateTensor refuses them anyway) */

static FC_TRACED_PATH void obj_call_traced(obj_fn fn, const char *name, void *obj)
{
    unsigned long long t0 = fc_now_ns();
    Py_BEGIN_ALLOW_THREADS
    fn(obj);
    Py_END_ALLOW_THREADS
    Py_INCREF(Py_None);
    fc_trace_report(name, "p", Py_BuildValue("(N)", PyLong_FromVoidPtr(obj)), Py_None, fc_now_ns() - t0);
}

/* One void call obj_fn(obj), the GIL released; reported to the call trace when it is on. */
static void obj_call(obj_fn fn, const char *name, void *obj)
{
    if (fc_tracer != NULL) {
        obj_call_traced(fn, name, obj);
        return;
    }
    Py_BEGIN_ALLOW_THREADS
    fn(obj);
    Py_END_ALLOW_THREADS
}

static void let_go(void *obj)
{
    obj_call(g_forget, "hgb_obj_forget", obj);
}

static FC_TRACED_PATH void *thread_call_traced(void)
{
    unsigned long long t0 = fc_now_ns();
    void *call = g_thread_call();
    fc_trace_report("hgb_thread_call", "", PyTuple_New(0), PyLong_FromVoidPtr(call), fc_now_ns() - t0);
    return call;
}

/* hgb_thread_call(): the calling thread's call record (traced when the trace is on). */
static void *thread_call(void)
{
    return fc_tracer == NULL ? g_thread_call() : thread_call_traced();
}

static int tensor_traverse(PyObject *self, visitproc visit, void *arg)
{
    fc_tensor *t = (fc_tensor *)self;
    Py_VISIT(t->shape);
    Py_VISIT(t->strides);
    Py_VISIT(t->offset);
    Py_VISIT(t->dtype);
    Py_VISIT(t->storage);
    Py_VISIT(t->state);
    Py_VISIT(t->live);
    return 0;
}

static int tensor_clear(PyObject *self)
{
    fc_tensor *t = (fc_tensor *)self;
    Py_CLEAR(t->shape);
    Py_CLEAR(t->strides);
    Py_CLEAR(t->offset);
    Py_CLEAR(t->dtype);
    Py_CLEAR(t->storage);
    Py_CLEAR(t->state);
    Py_CLEAR(t->live);
    return 0;
}

static void tensor_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    tensor_clear(self);
    void *obj = FC_TENSOR_OBJ(self);
    FC_TENSOR_OBJ(self) = NULL;
    if (obj != NULL && g_forget != NULL)
        let_go(obj);
    Py_TYPE(self)->tp_free(self);
}

/* _a: the handle-layer object's address (0 before one is set).  Setting it hands the object's
 * reference to this tensor, once: a second owner would let go of it twice. */
static PyObject *tensor_get_a(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(FC_TENSOR_OBJ(self));
}

static int tensor_set_a(PyObject *self, PyObject *value, void *closure)
{
    (void)closure;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_a cannot be deleted");
        return -1;
    }
    if (FC_TENSOR_OBJ(self) != NULL) {
        PyErr_SetString(PyExc_AttributeError, "_a is set once (the tensor owns that object)");
        return -1;
    }
    void *p = fc_address(value, "_a");
    if (p == NULL)
        return -1;
    FC_TENSOR_OBJ(self) = p;
    return 0;
}

static PyObject *tensor_get_d(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((fc_tensor *)self)->data);
}

/* close(): the handle's close.  The open flag turns False and the reference the tensor holds is
 * dropped once (what still uses the tensor, views and queued work, keeps it); a DeviceMemory
 * handle the tensor made of its memory (`_owns_memory`, see Tensor.memory) is closed with it. */
static PyObject *tensor_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    fc_tensor *t = (fc_tensor *)self;
    if (t->live != NULL && PyList_GET_SIZE(t->live) > 0 && PyList_GET_ITEM(t->live, 0) != Py_False) {
        PyObject *old = PyList_GET_ITEM(t->live, 0);
        Py_INCREF(Py_False);
        PyList_SET_ITEM(t->live, 0, Py_False);
        Py_DECREF(old);
    }
    void *obj = FC_TENSOR_OBJ(self);
    if (obj != NULL && g_close != NULL)
        obj_call(g_close, "hgb_obj_close", obj);
    PyObject *owns = PyObject_GetAttr(self, s_owns_memory);
    if (owns == NULL)
        return NULL;
    int yes = PyObject_IsTrue(owns);
    Py_DECREF(owns);
    if (yes < 0)
        return NULL;
    if (yes) {
        PyObject *mem = PyObject_GetAttr(self, s_memory);
        if (mem == NULL)
            return NULL;
        PyObject *r = PyObject_CallMethodNoArgs(mem, s_close);
        Py_DECREF(mem);
        if (r == NULL)
            return NULL;
        Py_DECREF(r);
    }
    Py_RETURN_NONE;
}

/* _live: a tensor never opened reads as closed (a shared [False], as Handle's class default) */
static PyObject *tensor_get_live(PyObject *self, void *closure)
{
    (void)closure;
    PyObject *live = ((fc_tensor *)self)->live;
    if (live == NULL)
        live = g_never_open;
    Py_INCREF(live);
    return live;
}

static int tensor_set_live(PyObject *self, PyObject *value, void *closure)
{
    (void)closure;
    if (value == NULL || !PyList_CheckExact(value) || PyList_GET_SIZE(value) != 1) {
        PyErr_SetString(PyExc_TypeError, "_live is a one-item list");
        return -1;
    }
    Py_INCREF(value);
    Py_XSETREF(((fc_tensor *)self)->live, value);
    return 0;
}

#define FC_FIELD(name, field, doc) {name, T_OBJECT_EX, offsetof(fc_tensor, field), 0, doc}
static PyMemberDef tensor_members[] = {
    FC_FIELD("shape", shape, "dims (a tuple)"),
    FC_FIELD("strides", strides, "strides in elements (a tuple)"),
    FC_FIELD("offset", offset, "the view's first element in its storage"),
    FC_FIELD("dtype", dtype, "the numpy dtype"),
    FC_FIELD("_storage", storage, "the storage dims aclCreateTensor was given"),
    FC_FIELD("_device_state", state, "the device's shared state"),
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef tensor_getset[] = {
    {"_a", tensor_get_a, tensor_set_a, "the handle-layer object's address (set once)", NULL},
    {"_live", tensor_get_live, tensor_set_live, "the one-item open flag", NULL},
    {"_d", tensor_get_d, NULL, "the device address of a tensor _fastcall made (else 0)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef tensor_methods[] = {
    {"close", tensor_close, METH_NOARGS,
     "Destroy the aclTensor; memory this tensor allocated goes back to the allocator once no view "
     "(and no queued work) uses it.  Safe to call any number of times."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject fc_TensorBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyacl_hardgrad._fastcall.TensorBase",
    .tp_basicsize = sizeof(fc_tensor),
    .tp_dealloc = tensor_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = tensor_traverse,
    .tp_clear = tensor_clear,
    .tp_members = tensor_members,
    .tp_free = PyObject_GC_Del,
    .tp_doc = "The C part of a Tensor: its handle-layer object, let go of when it is deallocated.",
    .tp_getset = tensor_getset,
    .tp_methods = tensor_methods,
    .tp_new = PyType_GenericNew,
};

static void *read_pointer(void *base, Py_ssize_t at)
{
    void *p;
    memcpy(&p, (char *)base + at, sizeof p);
    return p;
}

static FC_TRACED_PATH int tensor_empty_traced(void *call, void *device, void *context, int ndim, const int64_t *dims,
                                              PyObject *shape, int dtype, int itemsize)
{
    unsigned long long t0 = fc_now_ns();
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = g_tensor_empty(call, device, context, ndim, ndim ? dims : NULL, dtype, itemsize);
    Py_END_ALLOW_THREADS
    PyObject *shape_arg = ndim ? shape : Py_None;    /* the dims (the Python layer passes an int64_t[]) */
    Py_INCREF(shape_arg);
    fc_trace_report("hgb_tensor_empty", "pppiOii",
                    Py_BuildValue("(NNNiNii)", PyLong_FromVoidPtr(call), PyLong_FromVoidPtr(device),
                                  PyLong_FromVoidPtr(context), ndim, shape_arg, dtype, itemsize),
                    PyLong_FromLong(st), fc_now_ns() - t0);
    return st;
}

/* Hand a tensor just made to the tracker (hg.track_objects: it records where it was made); the
 * tracker is held across the call, which may run other threads that replace it. */
static int track_made(PyObject *t)
{
    PyObject *track = g_track;
    Py_INCREF(track);
    PyObject *r = PyObject_Vectorcall(track, &t, 1, NULL);
    Py_DECREF(track);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

PyObject *fc_tensor_make(PyTypeObject *type, PyObject *lay, PyObject *state, int *status)
{
    *status = 0;
    if (g_tensor_empty == NULL) {
        PyErr_SetString(PyExc_TypeError, "make() before set_tensor_calls()");
        return NULL;
    }
    if (!PyType_IsSubtype(type, &fc_TensorBaseType)) {
        PyErr_Format(PyExc_TypeError, "%s is not a TensorBase type", type->tp_name);
        return NULL;
    }
    if (!PyTuple_Check(lay) || PyTuple_GET_SIZE(lay) < 5 || !PyTuple_Check(PyTuple_GET_ITEM(lay, 0))) {
        PyErr_SetString(PyExc_TypeError, "a layout is (shape, strides, dtype, aclDataType, itemsize, ...)");
        return NULL;
    }
    PyObject *shape = PyTuple_GET_ITEM(lay, 0);
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    PyObject *where = PyObject_GetAttr(state, s_alloc);
    if (where == NULL)
        return NULL;
    if (where == Py_None || ndim > FC_MAX_DIMS) {   /* no context yet: the Python path sets it */
        Py_DECREF(where);
        return NULL;
    }
    void *device = NULL, *context = NULL;
    if (PyTuple_Check(where) && PyTuple_GET_SIZE(where) == 2) {
        device = PyLong_AsVoidPtr(PyTuple_GET_ITEM(where, 0));
        context = PyLong_AsVoidPtr(PyTuple_GET_ITEM(where, 1));
    }
    Py_DECREF(where);
    if (PyErr_Occurred())
        return NULL;
    if (device == NULL) {
        PyErr_SetString(PyExc_TypeError, "a device state's _alloc is (device object, context)");
        return NULL;
    }
    int64_t dims[FC_MAX_DIMS];
    for (Py_ssize_t i = 0; i < ndim; i++) {
        dims[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
        if (dims[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    long dtype = PyLong_AsLong(PyTuple_GET_ITEM(lay, 3));
    long itemsize = PyLong_AsLong(PyTuple_GET_ITEM(lay, 4));
    if ((dtype == -1 || itemsize == -1) && PyErr_Occurred())
        return NULL;
    if (dtype < INT_MIN || dtype > INT_MAX || itemsize <= 0 || itemsize > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "a layout's aclDataType or itemsize is out of range");
        return NULL;
    }
    void *call = thread_call();
    int st;
    if (fc_tracer != NULL) {
        st = tensor_empty_traced(call, device, context, (int)ndim, dims, shape, (int)dtype, (int)itemsize);
    } else {
        Py_BEGIN_ALLOW_THREADS
        st = g_tensor_empty(call, device, context, (int)ndim, ndim ? dims : NULL, (int)dtype, (int)itemsize);
        Py_END_ALLOW_THREADS
    }
    if (st != 0) {
        *status = st;
        return NULL;
    }
    void *obj = read_pointer(call, g_made_at), *data = read_pointer(call, g_data_at);
    PyObject *t = type->tp_alloc(type, 0);
    if (t == NULL) {
        let_go(obj);
        return NULL;
    }
    fc_tensor *f = (fc_tensor *)t;
    f->obj = obj;                     /* from here the tensor's deallocation lets go of it */
    f->data = data;
    if ((f->live = PyList_New(1)) == NULL) {
        Py_DECREF(t);
        return NULL;
    }
    Py_INCREF(Py_True);
    PyList_SET_ITEM(f->live, 0, Py_True);
    Py_INCREF(shape);
    f->shape = shape;
    Py_INCREF(shape);
    f->storage = shape;
    f->strides = PyTuple_GET_ITEM(lay, 1);
    Py_INCREF(f->strides);
    f->dtype = PyTuple_GET_ITEM(lay, 2);
    Py_INCREF(f->dtype);
    Py_INCREF(g_zero);
    f->offset = g_zero;
    Py_INCREF(state);
    f->state = state;
    if (g_track != NULL && track_made(t) < 0) {
        fc_tensor_discard(t);
        return NULL;
    }
    return t;
}

PyObject *fc_tensor_field(PyObject *t, PyObject *const *field, const char *name)
{
    PyObject *v = *field;
    if (v == NULL) {
        PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute '%s'", Py_TYPE(t)->tp_name, name);
        return NULL;
    }
    Py_INCREF(v);
    return v;
}

void fc_tensor_discard(PyObject *t)
{
    void *obj = FC_TENSOR_OBJ(t);
    if (obj != NULL)
        obj_call(g_close, "hgb_obj_close", obj);
    Py_DECREF(t);
}

/* make(type, layout, state): a new tensor, or the allocation's status (an int) when it failed,
 * or None when the Python layer's path must make it (see fc_tensor_make). */
static PyObject *fc_make(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyType_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "make(type, layout, state)");
        return NULL;
    }
    int st;
    PyObject *t = fc_tensor_make((PyTypeObject *)args[0], args[1], args[2], &st);
    if (t != NULL || PyErr_Occurred())
        return t;
    if (st != 0)
        return PyLong_FromLong(st);
    Py_RETURN_NONE;
}

/* set_tensor_calls(tensor_empty, thread_call, forget, close, made_offset, data_offset): the
 * binding's functions (addresses) and where hgb_call keeps `made` and `data`; once. */
static PyObject *fc_set_tensor_calls(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *a[4];
    Py_ssize_t made_at, data_at;
    if (!PyArg_ParseTuple(args, "OOOOnn:set_tensor_calls", &a[0], &a[1], &a[2], &a[3], &made_at, &data_at))
        return NULL;
    if (g_tensor_empty != NULL) {     /* a tensor being made in another thread may be using them */
        PyErr_SetString(PyExc_TypeError, "set_tensor_calls() is called once");
        return NULL;
    }
    void *p[4];
    for (int i = 0; i < 4; i++) {
        if ((p[i] = fc_address(a[i], "a function address")) == NULL)
            return NULL;
    }
    if (made_at < 0 || data_at < 0) {
        PyErr_SetString(PyExc_ValueError, "offsets must not be negative");
        return NULL;
    }
    g_thread_call = (thread_call_fn)(uintptr_t)p[1];
    g_forget = (obj_fn)(uintptr_t)p[2];
    g_close = (obj_fn)(uintptr_t)p[3];
    g_made_at = made_at;
    g_data_at = data_at;
    g_tensor_empty = (tensor_empty_fn)(uintptr_t)p[0];
    Py_RETURN_NONE;
}

/* set_tracker(fn or None): fn(tensor) is called with every tensor make() (and OpCall.front)
 * makes from then on; None stops it.  Off, the only cost is one test of a static pointer. */
static PyObject *fc_set_tracker(PyObject *module, PyObject *fn)
{
    (void)module;
    if (fn != Py_None && !PyCallable_Check(fn)) {
        PyErr_Format(PyExc_TypeError, "set_tracker() takes a callable or None, not %s", Py_TYPE(fn)->tp_name);
        return NULL;
    }
    PyObject *old = g_track;
    if (fn == Py_None) {
        g_track = NULL;
    } else {
        Py_INCREF(fn);
        g_track = fn;
    }
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyMethodDef tensor_module_methods[] = {
    {"make", (PyCFunction)(void (*)(void))fc_make, METH_FASTCALL,
     "make(type, layout, state): a new row-major tensor (or a status, or None: see the C file)."},
    {"set_tensor_calls", fc_set_tensor_calls, METH_VARARGS,
     "set_tensor_calls(tensor_empty, thread_call, forget, close, made_offset, data_offset)"},
    {"set_tracker", fc_set_tracker, METH_O,
     "set_tracker(fn or None): fn(tensor) for every tensor made here (object tracking)"},
    {NULL, NULL, 0, NULL},
};

int fc_tensor_init_module(PyObject *module)
{
    if ((s_alloc = PyUnicode_InternFromString("_alloc")) == NULL ||
        (s_owns_memory = PyUnicode_InternFromString("_owns_memory")) == NULL ||
        (s_memory = PyUnicode_InternFromString("_memory")) == NULL ||
        (s_close = PyUnicode_InternFromString("close")) == NULL || (g_zero = PyLong_FromLong(0)) == NULL ||
        (g_never_open = Py_BuildValue("[O]", Py_False)) == NULL)
        return -1;
    if (PyType_Ready(&fc_TensorBaseType) < 0)
        return -1;
    Py_INCREF(&fc_TensorBaseType);
    if (PyModule_AddObject(module, "TensorBase", (PyObject *)&fc_TensorBaseType) < 0) {
        Py_DECREF(&fc_TensorBaseType);
        return -1;
    }
    return PyModule_AddFunctions(module, tensor_module_methods);
}
