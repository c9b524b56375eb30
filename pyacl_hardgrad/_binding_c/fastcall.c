/* pyacl_hardgrad._fastcall: the Python layer's entry points whose cost is the call itself.
 *
 * A call through cffi converts its arguments from a tuple and checks each cdata's type; for a
 * repeatable plan's run that conversion costs as much as the run.  This module is a CPython
 * extension whose callables take the vectorcall path, read the handle layer's object addresses
 * from the objects they were given, and call the binding's functions through pointers the Python
 * layer hands over once (setup()), so it adds no second copy of the binding.  Like a cffi call,
 * each releases the GIL around the C call.
 *
 * PlanRunner is a plan's phase 2: `plan.run` is the runner's bound `run`.  The runner holds what a
 * run needs in C fields (the plan's object and its cdata, which keeps that object alive, the
 * plan's open flag, its device state and `out`) and nothing that holds the plan, so a plan
 * without other references is released at once, as before.  The fast case is workspace None,
 * a Stream (or None: the device's default stream) and a status of 0; every other case, and every
 * failure, is handed to the Python functions given to the runner, which raise the errors.
 *
 * OpCall is an operator's fused call (hold, phase 1, phase 2, hand-over) with its arguments in
 * an array: op(stream, flags, *args) converts each argument by its code and calls the
 * operator's hgb_callv_<name>, returning the status (the thread's call record says the rest).
 * Codes: 'P' a handle argument (its object's address, None for NULL), 'd' float or double,
 * '?' bool, and struct's integer codes b B h H i I q Q, range-checked. */
#include "fastcall.h"

#include <structmember.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* --- the call trace (fastcall.h) --------------------------------------------------------- */

PyObject *fc_tracer;

unsigned long long fc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

void fc_trace_report(const char *name, const char *codes, PyObject *args, PyObject *result, unsigned long long ns)
{
    PyObject *tracer = fc_tracer;
    if (args == NULL || result == NULL || tracer == NULL) {
        if (args == NULL || result == NULL)
            PyErr_Clear();    /* out of memory building the record: the call itself went through */
        Py_XDECREF(args);
        Py_XDECREF(result);
        return;
    }
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    Py_INCREF(tracer);
    PyObject *r = PyObject_CallFunction(tracer, "ssOOK", name, codes, args, result, ns);
    if (r == NULL)
        PyErr_WriteUnraisable(tracer);
    Py_XDECREF(r);
    Py_DECREF(tracer);
    Py_DECREF(args);
    Py_DECREF(result);
    PyErr_Restore(et, ev, tb);
}

/* set_tracer(callable or None): the tracer every call of this module reports to (None: off). */
static PyObject *fc_set_tracer(PyObject *module, PyObject *tracer)
{
    (void)module;
    if (tracer != Py_None && !PyCallable_Check(tracer)) {
        PyErr_Format(PyExc_TypeError, "set_tracer() takes a callable or None, not %s", Py_TYPE(tracer)->tp_name);
        return NULL;
    }
    PyObject *old = fc_tracer;
    if (tracer == Py_None) {
        fc_tracer = NULL;
    } else {
        Py_INCREF(tracer);
        fc_tracer = tracer;
    }
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

typedef int (*plan_run_fn)(void *plan, void *stream, int flags);

static plan_run_fn g_plan_run;        /* hgb_plan_run */
static int g_wait_flag;               /* HGB_WAIT */
static PyTypeObject *g_stream_type;   /* pyacl_hardgrad.stream.Stream (exact type) */
static Py_ssize_t g_stream_slot = -1; /* address_slot(g_stream_type) */
static PyObject *g_str_a;             /* "_a": a handle's object address as an int */
static PyObject *g_str_default;       /* "get_default_stream" */
static PyObject *g_str_device_state;  /* "_device_state" */
static PyObject *g_kw_workspace, *g_kw_stream, *g_kw_sync;

typedef struct {
    PyObject_HEAD
    void *plan;              /* the handle layer's plan object (hgb_obj *) */
    PyObject *o;             /* the plan's cdata: while it lives, so does the object above */
    PyObject *live;          /* the plan's one-item open flag (a list) */
    PyObject *state;         /* the device state: get_default_stream() */
    PyObject *out;           /* what run() returns */
    PyObject *name;          /* the plan class's name, for messages */
    PyObject *general;       /* general(runner, workspace, stream, sync): every other case */
    PyObject *failed;        /* failed(runner, status, stream, workspace): raises */
    unsigned long long workspace_size;
    long long runs;
} PlanRunner;

void *fc_address(PyObject *v, const char *what)
{
    void *p = PyLong_AsVoidPtr(v);
    if (p == NULL && !PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "%s must not be 0", what);
    return p;
}

/* An object's "_a" attribute as a pointer; NULL with an exception set when it has none. */
static void *address_of(PyObject *obj)
{
    PyObject *a = PyObject_GetAttr(obj, g_str_a);
    if (a == NULL)
        return NULL;
    void *p = PyLong_AsVoidPtr(a);
    Py_DECREF(a);
    return p;
}

/* Where instances of `type` keep `_a` when the class declares it in __slots__ (its member
 * descriptor's offset), else -1.  Callers check the exact type before reading at the offset. */
static Py_ssize_t address_slot(PyTypeObject *type)
{
    PyObject *d = PyDict_GetItemWithError(type->tp_dict, g_str_a);
    if (d != NULL && Py_TYPE(d) == &PyMemberDescr_Type) {
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type == T_OBJECT_EX)
            return m->offset;
    }
    PyErr_Clear();
    return -1;
}

/* address_of for an object of a type whose address_slot() is `slot`. */
static void *address_at(PyObject *obj, Py_ssize_t slot)
{
    if (slot < 0)
        return address_of(obj);
    PyObject *a = *(PyObject **)((char *)obj + slot);
    if (a == NULL) {
        PyErr_Format(PyExc_AttributeError, "%s object has no address (_a)", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return PyLong_AsVoidPtr(a);
}

static int runner_init(PlanRunner *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"o", "address", "live", "state", "out", "name", "workspace_size",
                             "general", "failed", NULL};
    PyObject *o, *addr, *live, *state, *out, *name, *general, *failed;
    unsigned long long ws;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO!OOUKOO:PlanRunner", kwlist, &o, &addr,
                                     &PyList_Type, &live, &state, &out, &name, &ws, &general, &failed))
        return -1;
    if (self->general != NULL) {   /* a run in another thread may be using what it holds */
        PyErr_SetString(PyExc_TypeError, "PlanRunner is initialised once");
        return -1;
    }
    if (PyList_GET_SIZE(live) != 1) {
        PyErr_SetString(PyExc_ValueError, "live must be a one-item list");
        return -1;
    }
    if (!PyCallable_Check(general) || !PyCallable_Check(failed)) {
        PyErr_SetString(PyExc_TypeError, "general and failed must be callable");
        return -1;
    }
    void *p = fc_address(addr, "address");
    if (p == NULL)
        return -1;
    self->plan = p;
    Py_INCREF(o); Py_XSETREF(self->o, o);
    Py_INCREF(live); Py_XSETREF(self->live, live);
    Py_INCREF(state); Py_XSETREF(self->state, state);
    Py_INCREF(out); Py_XSETREF(self->out, out);
    Py_INCREF(name); Py_XSETREF(self->name, name);
    Py_INCREF(general); Py_XSETREF(self->general, general);
    Py_INCREF(failed); Py_XSETREF(self->failed, failed);
    self->workspace_size = ws;
    self->runs = 0;
    return 0;
}

static int runner_traverse(PlanRunner *self, visitproc visit, void *arg)
{
    Py_VISIT(self->o);
    Py_VISIT(self->live);
    Py_VISIT(self->state);
    Py_VISIT(self->out);
    Py_VISIT(self->general);
    Py_VISIT(self->failed);
    return 0;
}

static int runner_clear(PlanRunner *self)
{
    Py_CLEAR(self->live);
    Py_CLEAR(self->state);
    Py_CLEAR(self->out);
    Py_CLEAR(self->name);
    Py_CLEAR(self->general);
    Py_CLEAR(self->failed);
    Py_CLEAR(self->o);            /* last: the plan object goes with it */
    self->plan = NULL;
    return 0;
}

static void runner_dealloc(PlanRunner *self)
{
    PyObject_GC_UnTrack(self);
    runner_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Which parameter a keyword names: 0 workspace, 1 stream, 2 sync, -1 none. */
static int keyword_index(PyObject *kw)
{
    if (kw == g_kw_sync) return 2;          /* interned at the call site, as a rule */
    if (kw == g_kw_stream) return 1;
    if (kw == g_kw_workspace) return 0;
    if (PyUnicode_Check(kw)) {
        if (PyUnicode_Compare(kw, g_kw_sync) == 0) return 2;
        if (PyUnicode_Compare(kw, g_kw_stream) == 0) return 1;
        if (PyUnicode_Compare(kw, g_kw_workspace) == 0) return 0;
    }
    return -1;
}

static PyObject *call_general(PlanRunner *self, PyObject *workspace, PyObject *stream, PyObject *sync)
{
    PyObject *args[4] = {(PyObject *)self, workspace, stream, sync};
    return PyObject_Vectorcall(self->general, args, 4, NULL);
}

static FC_TRACED_PATH int plan_run_traced(void *plan, void *sp, int flags)
{
    unsigned long long t0 = fc_now_ns();
    int st;
    Py_BEGIN_ALLOW_THREADS
    st = g_plan_run(plan, sp, flags);
    Py_END_ALLOW_THREADS
    fc_trace_report("hgb_plan_run", "ppi", Py_BuildValue("(NNi)", PyLong_FromVoidPtr(plan), PyLong_FromVoidPtr(sp), flags),
                    PyLong_FromLong(st), fc_now_ns() - t0);
    return st;
}

/* run(workspace=None, stream=None, *, sync=False) */
static PyObject *runner_run(PlanRunner *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *v[3] = {Py_None, Py_None, Py_False};
    if (self->general == NULL) {
        PyErr_SetString(PyExc_TypeError, "PlanRunner was not initialised");
        return NULL;
    }
    int given[3] = {0, 0, 0};
    if (nargs > 2) {
        PyErr_Format(PyExc_TypeError, "run() takes at most 2 positional arguments (%zd given)", nargs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        v[i] = args[i];
        given[i] = 1;
    }
    if (kwnames != NULL) {
        Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t i = 0; i < nk; i++) {
            PyObject *kw = PyTuple_GET_ITEM(kwnames, i);
            int k = keyword_index(kw);
            if (k < 0) {
                PyErr_Format(PyExc_TypeError, "run() got an unexpected keyword argument '%S'", kw);
                return NULL;
            }
            if (given[k]) {
                PyErr_Format(PyExc_TypeError, "run() got multiple values for argument '%S'", kw);
                return NULL;
            }
            v[k] = args[nargs + i];
            given[k] = 1;
        }
    }
    PyObject *workspace = v[0], *stream = v[1], *sync = v[2];
    if (self->live == NULL || PyList_GET_ITEM(self->live, 0) != Py_True || workspace != Py_None)
        return call_general(self, workspace, stream, sync);
    int wait = PyObject_IsTrue(sync);
    if (wait < 0)
        return NULL;
    PyObject *s;
    if (stream == Py_None) {
        s = PyObject_CallMethodNoArgs(self->state, g_str_default);
        if (s == NULL)
            return NULL;
    } else {
        s = stream;
        Py_INCREF(s);
    }
    if (Py_TYPE(s) != g_stream_type) {
        Py_DECREF(s);
        return call_general(self, workspace, stream, sync);
    }
    void *sp = address_at(s, g_stream_slot);
    if (sp == NULL) {
        Py_DECREF(s);
        return NULL;
    }
    int st;
    void *plan = self->plan;
    int flags = wait ? g_wait_flag : 0;
    if (fc_tracer != NULL) {
        st = plan_run_traced(plan, sp, flags);
    } else {
        Py_BEGIN_ALLOW_THREADS
        st = g_plan_run(plan, sp, flags);
        Py_END_ALLOW_THREADS
    }
    if (st != 0) {
        PyObject *fargs[4] = {(PyObject *)self, NULL, s, Py_None};
        PyObject *code = PyLong_FromLong(st);
        PyObject *r = NULL;
        if (code != NULL) {
            fargs[1] = code;
            r = PyObject_Vectorcall(self->failed, fargs, 4, NULL);
            Py_DECREF(code);
        }
        Py_DECREF(s);
        return r;
    }
    Py_DECREF(s);
    self->runs++;
    Py_INCREF(self->out);
    return self->out;
}

static PyMethodDef runner_methods[] = {
    {"run", (PyCFunction)(void (*)(void))runner_run, METH_FASTCALL | METH_KEYWORDS,
     "run(workspace=None, stream=None, *, sync=False): phase 2 of the plan (see Plan.run)."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef runner_members[] = {
    {"o", T_OBJECT, offsetof(PlanRunner, o), READONLY, "the plan's cdata"},
    {"live", T_OBJECT, offsetof(PlanRunner, live), READONLY, "the plan's open flag"},
    {"state", T_OBJECT, offsetof(PlanRunner, state), READONLY, "the plan's device state"},
    {"out", T_OBJECT, offsetof(PlanRunner, out), READONLY, "what run() returns"},
    {"name", T_OBJECT, offsetof(PlanRunner, name), READONLY, "the plan class's name"},
    {"workspace_size", T_ULONGLONG, offsetof(PlanRunner, workspace_size), READONLY, "bytes"},
    {"runs", T_LONGLONG, offsetof(PlanRunner, runs), 0, "runs launched"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject PlanRunnerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyacl_hardgrad._fastcall.PlanRunner",
    .tp_basicsize = sizeof(PlanRunner),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Phase 2 of one plan: its bound run() is the plan's run.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)runner_init,
    .tp_dealloc = (destructor)runner_dealloc,
    .tp_traverse = (traverseproc)runner_traverse,
    .tp_clear = (inquiry)runner_clear,
    .tp_methods = runner_methods,
    .tp_members = runner_members,
};

/* setup(stream_type, plan_run_address, wait_flag): once, from the Python layer. */
static PyObject *fc_setup(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *type, *run;
    int wait;
    if (!PyArg_ParseTuple(args, "O!Oi:setup", &PyType_Type, &type, &run, &wait))
        return NULL;
    void *p = fc_address(run, "plan_run_address");
    if (p == NULL)
        return NULL;
    Py_INCREF(type);
    Py_XSETREF(g_stream_type, (PyTypeObject *)type);
    g_stream_slot = address_slot(g_stream_type);
    g_plan_run = (plan_run_fn)(uintptr_t)p;
    g_wait_flag = wait;
    Py_RETURN_NONE;
}

/* --- OpCall ------------------------------------------------------------------------------- */

typedef union {          /* the layout of the binding's hgb_arg (fused_calls.h) */
    void *o;
    int64_t i;
    uint64_t u;
    double d;
} fc_arg;

typedef int (*callv_fn)(void *stream, int flags, const fc_arg *v);

#define FC_MAX_ARGS 32   /* HGB_MAX_ARGS */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    callv_fn fn;
    Py_ssize_t n;
    char codes[FC_MAX_ARGS + 1];
    PyObject *names;     /* the parameters' names, for messages */
    PyObject *op;        /* the operator's name */
    char cname[128];     /* the C function's name, for the call trace */
    /* front(): set by set_front() */
    char roles[FC_MAX_ARGS + 1];
    Py_ssize_t anchor;   /* the tensor input whose device's default stream a call without one uses */
    Py_ssize_t results[FC_MAX_ARGS];
    Py_ssize_t nresults;
    PyTypeObject *tensor_type, *scalar_type;
    Py_ssize_t tensor_slot, scalar_slot;   /* their address_slot() */
    int tensor_native;   /* tensor_type is a TensorBase: its fields are read directly */
    PyObject *float_cache; /* float -> its cached Scalar */
    PyObject *failed;    /* failed(status, handles, args, made) -> raises, or returns `no` */
    PyObject *no;        /* what front() returns for a call it leaves to the Python path */
    /* outputs left out (None): made here when the tensor type is a TensorBase and `layout` is set */
    PyObject *layout;    /* layout(*inputs) -> the output layout (the Python layer's rule) */
    Py_ssize_t inputs[FC_MAX_ARGS];       /* the tensor inputs the layout is derived from */
    Py_ssize_t ninputs;
    PyObject *memo[2 * FC_MAX_ARGS];      /* the inputs' shapes and dtypes of the last layout */
    PyObject *memo_lay;                   /* and that layout (owned, with the keys) */
} OpCall;

static int opcall_init(OpCall *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"address", "codes", "names", "op", "cname", NULL};
    PyObject *addr, *names, *op;
    const char *codes, *cname = NULL;
    Py_ssize_t n;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "Os#O!U|z:OpCall", kwlist, &addr, &codes, &n,
                                     &PyTuple_Type, &names, &op, &cname))
        return -1;
    if (self->fn != NULL) {        /* a call in another thread may be using its names and codes */
        PyErr_SetString(PyExc_TypeError, "OpCall is initialised once");
        return -1;
    }
    if (n > FC_MAX_ARGS || PyTuple_GET_SIZE(names) != n) {
        PyErr_Format(PyExc_ValueError, "OpCall: %zd codes and %zd names (at most %d)", n,
                     PyTuple_GET_SIZE(names), FC_MAX_ARGS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (strchr("Pd?bBhHiIqQ", codes[i]) == NULL || codes[i] == '\0') {
            PyErr_Format(PyExc_ValueError, "OpCall: unknown argument code '%c'", codes[i]);
            return -1;
        }
    }
    void *p = fc_address(addr, "address");
    if (p == NULL)
        return -1;
    self->fn = (callv_fn)(uintptr_t)p;
    if (cname != NULL)
        snprintf(self->cname, sizeof self->cname, "%s", cname);
    else
        snprintf(self->cname, sizeof self->cname, "hgb_callv (%s)", PyUnicode_AsUTF8(op) ? PyUnicode_AsUTF8(op) : "?");
    PyErr_Clear();
    self->n = n;
    memcpy(self->codes, codes, (size_t)n);
    self->codes[n] = '\0';
    Py_INCREF(names); Py_XSETREF(self->names, names);
    Py_INCREF(op); Py_XSETREF(self->op, op);
    return 0;
}

static void opcall_dealloc(OpCall *self)
{
    Py_CLEAR(self->names);
    Py_CLEAR(self->op);
    Py_CLEAR(self->tensor_type);
    Py_CLEAR(self->scalar_type);
    Py_CLEAR(self->float_cache);
    Py_CLEAR(self->failed);
    Py_CLEAR(self->no);
    Py_CLEAR(self->layout);
    Py_CLEAR(self->memo_lay);
    for (Py_ssize_t i = 0; i < 2 * FC_MAX_ARGS; i++)
        Py_CLEAR(self->memo[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The call trace's record of one call: stream, flags and each argument by its code. */
static FC_TRACED_PATH void trace_callv(OpCall *self, void *stream, int flags, const fc_arg *v, int st, unsigned long long ns)
{
    char codes[FC_MAX_ARGS + 3];
    PyObject *args = PyTuple_New(self->n + 2);
    if (args == NULL) {
        PyErr_Clear();
        return;
    }
    codes[0] = 'p';
    codes[1] = 'i';
    PyTuple_SET_ITEM(args, 0, PyLong_FromVoidPtr(stream));
    PyTuple_SET_ITEM(args, 1, PyLong_FromLong(flags));
    for (Py_ssize_t i = 0; i < self->n; i++) {
        PyObject *x;
        char c = self->codes[i];
        switch (c) {
        case 'P': x = PyLong_FromVoidPtr(v[i].o); codes[i + 2] = 'p'; break;
        case 'd': x = PyFloat_FromDouble(v[i].d); codes[i + 2] = 'd'; break;
        case '?': x = PyBool_FromLong((long)v[i].i); codes[i + 2] = '?'; break;
        case 'Q': x = PyLong_FromUnsignedLongLong(v[i].u); codes[i + 2] = 'i'; break;
        default: x = PyLong_FromLongLong(v[i].i); codes[i + 2] = 'i'; break;
        }
        PyTuple_SET_ITEM(args, i + 2, x);
        if (x == NULL) {
            Py_DECREF(args);
            PyErr_Clear();
            return;
        }
    }
    codes[self->n + 2] = '\0';
    fc_trace_report(self->cname, codes, args, PyLong_FromLong(st), ns);
}

static FC_TRACED_PATH int opcall_invoke_traced(OpCall *self, void *stream, int flags, const fc_arg *v)
{
    unsigned long long t0 = fc_now_ns();
    int st;
    callv_fn fn = self->fn;
    Py_BEGIN_ALLOW_THREADS
    st = fn(stream, flags, v);
    Py_END_ALLOW_THREADS
    trace_callv(self, stream, flags, v, st, fc_now_ns() - t0);
    return st;
}

/* The operator's fused call through its pointer, the GIL released (and traced when on). */
static int opcall_invoke(OpCall *self, void *stream, int flags, const fc_arg *v)
{
    int st;
    callv_fn fn = self->fn;
    if (fc_tracer != NULL)
        return opcall_invoke_traced(self, stream, flags, v);
    Py_BEGIN_ALLOW_THREADS
    st = fn(stream, flags, v);
    Py_END_ALLOW_THREADS
    return st;
}

/* An integer argument in [lo, hi]; -1 with OverflowError naming the parameter otherwise. */
static int int_arg(OpCall *self, Py_ssize_t i, PyObject *v, long long lo, long long hi, fc_arg *out)
{
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (overflow != 0 || x < lo || x > hi) {
        PyErr_Format(PyExc_OverflowError, "%U: %U=%R is out of range [%lld, %lld]", self->op,
                     PyTuple_GET_ITEM(self->names, i), v, lo, hi);
        return -1;
    }
    out->i = x;
    return 0;
}

static int convert_arg(OpCall *self, Py_ssize_t i, PyObject *v, fc_arg *out)
{
    switch (self->codes[i]) {
    case 'P':
        out->o = v == Py_None ? NULL : PyLong_AsVoidPtr(v);
        return out->o == NULL && PyErr_Occurred() ? -1 : 0;
    case 'd':
        out->d = PyFloat_AsDouble(v);
        return out->d == -1.0 && PyErr_Occurred() ? -1 : 0;
    case '?': {
        int t = PyObject_IsTrue(v);
        out->i = t;
        return t < 0 ? -1 : 0;
    }
    case 'b': return int_arg(self, i, v, INT8_MIN, INT8_MAX, out);
    case 'B': return int_arg(self, i, v, 0, UINT8_MAX, out);
    case 'h': return int_arg(self, i, v, INT16_MIN, INT16_MAX, out);
    case 'H': return int_arg(self, i, v, 0, UINT16_MAX, out);
    case 'i': return int_arg(self, i, v, INT32_MIN, INT32_MAX, out);
    case 'I': return int_arg(self, i, v, 0, UINT32_MAX, out);
    case 'q': return int_arg(self, i, v, INT64_MIN, INT64_MAX, out);
    case 'Q':
        out->u = PyLong_AsUnsignedLongLong(v);
        if (out->u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_OverflowError, "%U: %U=%R is out of range [0, %llu]", self->op,
                         PyTuple_GET_ITEM(self->names, i), v, (unsigned long long)UINT64_MAX);
            return -1;
        }
        return 0;
    default:
        PyErr_SetString(PyExc_SystemError, "OpCall: bad code");
        return -1;
    }
}

/* op(stream, flags, *args) -> status */
static PyObject *opcall_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    OpCall *self = (OpCall *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (self->fn == NULL) {
        PyErr_SetString(PyExc_TypeError, "OpCall was not initialised");
        return NULL;
    }
    if ((kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0) || nargs != self->n + 2) {
        PyErr_Format(PyExc_TypeError, "%U's OpCall takes (stream, flags, %zd arguments), positionally",
                     self->op, self->n);
        return NULL;
    }
    void *stream = args[0] == Py_None ? NULL : PyLong_AsVoidPtr(args[0]);
    if (stream == NULL && PyErr_Occurred())
        return NULL;
    int overflow = 0;
    long flags = PyLong_AsLongAndOverflow(args[1], &overflow);
    if (flags == -1 && PyErr_Occurred())
        return NULL;
    if (overflow != 0 || flags < INT_MIN || flags > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "flags out of range");
        return NULL;
    }
    fc_arg v[FC_MAX_ARGS + 1];
    for (Py_ssize_t i = 0; i < self->n; i++) {
        if (convert_arg(self, i, args[i + 2], &v[i]) < 0)
            return NULL;
    }
    return PyLong_FromLong(opcall_invoke(self, stream, (int)flags, v));
}

/* set_front(roles, anchor, results, tensor_type, scalar_type, float_cache, failed, no,
 *           layout=None, inputs=()).
 * roles, one per parameter: 't' a tensor input, 'x' a tensor both read and written, 'o' an
 * output tensor, 's' a scalar (a float with a cached Scalar, or a Scalar), 'v' a value parameter
 * (an int, a float or int, a bool: as its code).  An output given as None is made here, with the
 * layout `layout(*tensors)` returns for the tensor inputs at the indices `inputs` (memoised by
 * their shapes' and dtypes' identity), on the first one's device; without `layout` (or when the
 * tensor type is not a TensorBase) such a call is left to the Python path. */
static PyObject *opcall_set_front(OpCall *self, PyObject *args)
{
    const char *roles;
    Py_ssize_t nroles, anchor;
    PyObject *results, *tensor_type, *scalar_type, *cache, *failed, *no, *layout = Py_None, *inputs = NULL;
    if (!PyArg_ParseTuple(args, "s#nO!O!O!O!OO|OO!:set_front", &roles, &nroles, &anchor, &PyTuple_Type,
                          &results, &PyType_Type, &tensor_type, &PyType_Type, &scalar_type,
                          &PyDict_Type, &cache, &failed, &no, &layout, &PyTuple_Type, &inputs))
        return NULL;
    if (self->fn == NULL || nroles != self->n || anchor < 0 || anchor >= self->n ||
        PyTuple_GET_SIZE(results) > self->n) {
        PyErr_SetString(PyExc_ValueError, "set_front: one role per parameter, an anchor and results among them");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nroles; i++) {
        if (strchr("txosv", roles[i]) == NULL || roles[i] == '\0' ||
            ((roles[i] == 'v') == (self->codes[i] == 'P'))) {
            PyErr_Format(PyExc_ValueError, "set_front: role '%c' of parameter %zd does not fit its code '%c'",
                         roles[i], i, self->codes[i]);
            return NULL;
        }
    }
    if (roles[anchor] != 't' && roles[anchor] != 'x') {
        PyErr_SetString(PyExc_ValueError, "set_front: the anchor must be a tensor input");
        return NULL;
    }
    Py_ssize_t nr = PyTuple_GET_SIZE(results);
    for (Py_ssize_t i = 0; i < nr; i++) {
        Py_ssize_t k = PyLong_AsSsize_t(PyTuple_GET_ITEM(results, i));
        if (k < 0 || k >= self->n) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "set_front: a result index out of range");
            return NULL;
        }
        self->results[i] = k;
    }
    Py_ssize_t ni = inputs == NULL ? 0 : PyTuple_GET_SIZE(inputs);
    if (layout != Py_None && (!PyCallable_Check(layout) || ni == 0)) {
        PyErr_SetString(PyExc_ValueError, "set_front: layout is a callable over at least one tensor input");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < ni; i++) {
        Py_ssize_t k = PyLong_AsSsize_t(PyTuple_GET_ITEM(inputs, i));
        if (k < 0 || k >= self->n || roles[k] != 't') {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "set_front: inputs are indices of tensor inputs");
            return NULL;
        }
        self->inputs[i] = k;
    }
    self->ninputs = ni;
    self->nresults = nr;
    memcpy(self->roles, roles, (size_t)nroles);
    self->roles[nroles] = '\0';
    self->anchor = anchor;
    Py_INCREF(tensor_type); Py_XSETREF(self->tensor_type, (PyTypeObject *)tensor_type);
    Py_INCREF(scalar_type); Py_XSETREF(self->scalar_type, (PyTypeObject *)scalar_type);
    self->tensor_slot = address_slot(self->tensor_type);
    self->tensor_native = PyType_IsSubtype(self->tensor_type, &fc_TensorBaseType);
    self->scalar_slot = address_slot(self->scalar_type);
    Py_INCREF(cache); Py_XSETREF(self->float_cache, cache);
    Py_INCREF(failed); Py_XSETREF(self->failed, failed);
    Py_INCREF(no); Py_XSETREF(self->no, no);
    if (layout != Py_None && self->tensor_native) {
        Py_INCREF(layout);
        Py_XSETREF(self->layout, layout);
    } else {
        Py_CLEAR(self->layout);
    }
    Py_RETURN_NONE;
}

/* Whether a value parameter's argument has the type the Python path's fast case takes. */
static int value_fits(char code, PyObject *v)
{
    if (code == '?')
        return PyBool_Check(v);
    if (code == 'd')
        return PyFloat_CheckExact(v) || PyLong_CheckExact(v);
    return PyLong_CheckExact(v);
}

static PyObject *front_result(OpCall *self, PyObject *const *args, PyObject *const *objs, const char *made);
static PyObject *front_failed(OpCall *self, int st, PyObject *const *args, PyObject *const *objs,
                              const char *made);

/* The layout of the outputs a call makes: the memo when the tensor inputs' shapes and dtypes
 * are the objects it was made for, else layout(*inputs) (memoised in turn).  A new reference,
 * or NULL with an exception. */
static PyObject *output_layout(OpCall *self, PyObject *const *objs)
{
    PyObject *keys[2 * FC_MAX_ARGS], *tensors[FC_MAX_ARGS];
    Py_ssize_t ni = self->ninputs, nk = 0, i;
    PyObject *lay = NULL;
    int hit = self->memo_lay != NULL;
    for (i = 0; i < ni; i++) {         /* (the inputs are TensorBases: see set_front) */
        fc_tensor *t = (fc_tensor *)(tensors[i] = objs[self->inputs[i]]);
        if ((keys[nk] = fc_tensor_field((PyObject *)t, &t->shape, "shape")) == NULL)
            goto done;
        nk++;
        if ((keys[nk] = fc_tensor_field((PyObject *)t, &t->dtype, "dtype")) == NULL)
            goto done;
        nk++;
        hit = hit && keys[nk - 2] == self->memo[nk - 2] && keys[nk - 1] == self->memo[nk - 1];
    }
    if (hit) {
        lay = self->memo_lay;
        Py_INCREF(lay);
        goto done;
    }
    lay = PyObject_Vectorcall(self->layout, tensors, (size_t)ni, NULL);
    if (lay == NULL)
        goto done;
    for (i = 0; i < nk; i++) {          /* the memo takes the keys' references */
        Py_XSETREF(self->memo[i], keys[i]);
        keys[i] = NULL;
    }
    Py_INCREF(lay);
    Py_XSETREF(self->memo_lay, lay);
done:
    for (i = 0; i < nk; i++)
        Py_XDECREF(keys[i]);
    return lay;
}

/* A tensor argument's _device_state (a new reference, or NULL with an exception). */
static PyObject *device_state(OpCall *self, PyObject *t)
{
    if (self->tensor_native)        /* (t is of tensor_type: the front checked) */
        return fc_tensor_field(t, &((fc_tensor *)t)->state, "_device_state");
    return PyObject_GetAttr(t, g_str_device_state);
}

/* The handle-layer object of a front argument (a Tensor or a Scalar), or NULL with an exception. */
static void *handle_of(OpCall *self, PyObject *obj)
{
    if (Py_TYPE(obj) == self->tensor_type) {
        if (self->tensor_native) {
            void *p = FC_TENSOR_OBJ(obj);
            if (p == NULL)
                PyErr_Format(PyExc_AttributeError, "%s object has no handle-layer object", Py_TYPE(obj)->tp_name);
            return p;
        }
        return address_at(obj, self->tensor_slot);
    }
    return address_at(obj, self->scalar_slot);
}

/* front(*params, stream, sync): the operator's call with Tensors (outputs: or None, made here),
 * float or Scalar scalars and a Stream or None, done here; anything else (and a failure the
 * Python path recovers from) returns `no`, and the Python function goes on with the same
 * arguments. */
static PyObject *opcall_front(OpCall *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (self->no == NULL) {
        PyErr_SetString(PyExc_TypeError, "front() before set_front()");
        return NULL;
    }
    Py_ssize_t n = self->n;
    if (nargs != n + 2) {
        PyErr_Format(PyExc_TypeError, "front() takes %zd arguments (%zd given)", n + 2, nargs);
        return NULL;
    }
    /* the tensor, or the Scalar, of each handle parameter: owned, since a cached Scalar can
     * leave the cache (release_cached_scalars) whenever code below lets another thread run */
    PyObject *objs[FC_MAX_ARGS];
    char made[FC_MAX_ARGS];       /* 1: objs[i] is an output made here (discarded on failure) */
    fc_arg v[FC_MAX_ARGS + 1];
    PyObject *s = NULL, *r = NULL;
    Py_ssize_t i, nmade = 0;
    for (i = 0; i < n; i++) {
        objs[i] = NULL;
        made[i] = 0;
    }
    for (i = 0; i < n; i++) {
        PyObject *a = args[i];
        switch (self->roles[i]) {
        case 'o':
            if (a == Py_None) {
                if (self->layout == NULL)
                    goto python;
                made[i] = 1;              /* made below, once the call is known to be for here */
                nmade++;
                break;
            }
            /* fall through */
        case 't':
        case 'x':
            if (Py_TYPE(a) != self->tensor_type)
                goto python;
            objs[i] = a;
            Py_INCREF(a);
            break;
        case 's':
            if (PyFloat_CheckExact(a)) {
                PyObject *sc = PyDict_GetItemWithError(self->float_cache, a);
                if (sc == NULL) {
                    if (PyErr_Occurred())
                        goto done;
                    goto python;          /* not cached yet (or a zero): the Python path caches it */
                }
                objs[i] = sc;
            } else if (Py_TYPE(a) == self->scalar_type) {
                objs[i] = a;
            } else {
                goto python;
            }
            Py_INCREF(objs[i]);
            break;
        default:                          /* 'v' */
            if (!value_fits(self->codes[i], a))
                goto python;
            if (convert_arg(self, i, a, &v[i]) < 0)
                goto done;
            break;
        }
    }
    int wait = PyObject_IsTrue(args[n + 1]);
    if (wait < 0)
        goto done;
    if (args[n] == Py_None) {
        PyObject *state = device_state(self, objs[self->anchor]);
        if (state == NULL)
            goto done;
        s = PyObject_CallMethodNoArgs(state, g_str_default);
        Py_DECREF(state);
        if (s == NULL)
            goto done;
    } else {
        s = args[n];
        Py_INCREF(s);
    }
    if (Py_TYPE(s) != g_stream_type)
        goto python;
    void *sp = address_at(s, g_stream_slot);
    if (sp == NULL)
        goto done;
    if (nmade) {                          /* the outputs left out, on the first input's device */
        PyObject *lay = output_layout(self, objs);
        if (lay == NULL)
            goto done;
        PyObject *state = device_state(self, objs[self->inputs[0]]);
        if (state == NULL) {
            Py_DECREF(lay);
            goto done;
        }
        int st = 0;
        for (i = 0; i < n && st == 0; i++) {
            if (made[i] && (objs[i] = fc_tensor_make(self->tensor_type, lay, state, &st)) == NULL)
                break;
        }
        Py_DECREF(state);
        Py_DECREF(lay);
        if (i < n) {
            if (PyErr_Occurred())
                goto done;
            if (st != 0) {                /* the allocation failed: its error, as the Python path's */
                r = front_failed(self, st, args, objs, made);
                goto done;
            }
            goto python;                  /* the device has no context yet: the Python path sets it */
        }
    }
    for (i = 0; i < n; i++) {
        if (objs[i] == NULL)
            continue;
        if ((v[i].o = handle_of(self, objs[i])) == NULL)
            goto done;
    }
    int st = opcall_invoke(self, sp, wait ? g_wait_flag : 0, v);
    if (st == 0) {
        r = front_result(self, args, objs, made);
        for (i = 0; i < n; i++)
            made[i] = 0;                  /* returned: no longer this call's to discard */
    } else {
        r = front_failed(self, st, args, objs, made);
    }
    goto done;
python:
    Py_INCREF(self->no);
    r = self->no;
done:
    Py_XDECREF(s);
    for (i = 0; i < n; i++) {
        if (made[i] && objs[i] != NULL)
            fc_tensor_discard(objs[i]);
        else
            Py_XDECREF(objs[i]);
    }
    return r;
}

/* A failed call: `failed(status, handles, args, made)` raises the error (or returns `no`);
 * `made`: the outputs made for the call, which it closes. */
static PyObject *front_failed(OpCall *self, int st, PyObject *const *args, PyObject *const *objs,
                              const char *made)
{
    Py_ssize_t n = self->n, nh = 0, nm = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        nh += objs[i] != NULL;
        nm += made[i] && objs[i] != NULL;
    }
    PyObject *handles = PyTuple_New(nh), *given = PyTuple_New(n), *outs = PyTuple_New(nm);
    PyObject *code = PyLong_FromLong(st), *r = NULL;
    if (handles != NULL && given != NULL && outs != NULL && code != NULL) {
        for (Py_ssize_t i = 0, k = 0, m = 0; i < n; i++) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(given, i, args[i]);
            if (objs[i] != NULL) {
                Py_INCREF(objs[i]);
                PyTuple_SET_ITEM(handles, k++, objs[i]);
            }
            if (made[i] && objs[i] != NULL) {
                Py_INCREF(objs[i]);
                PyTuple_SET_ITEM(outs, m++, objs[i]);
            }
        }
        PyObject *fargs[4] = {code, handles, given, outs};
        r = PyObject_Vectorcall(self->failed, fargs, 4, NULL);
    }
    Py_XDECREF(handles);
    Py_XDECREF(given);
    Py_XDECREF(outs);
    Py_XDECREF(code);
    return r;
}

/* The call's results: the arguments at the result indices, or the outputs made for them. */
static PyObject *front_result(OpCall *self, PyObject *const *args, PyObject *const *objs, const char *made)
{
    PyObject *out = NULL;
    if (self->nresults != 1 && (out = PyTuple_New(self->nresults)) == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < self->nresults; i++) {
        Py_ssize_t k = self->results[i];
        PyObject *x = made[k] ? objs[k] : args[k];
        Py_INCREF(x);
        if (out == NULL)
            return x;
        PyTuple_SET_ITEM(out, i, x);
    }
    return out;
}

/* op.call(stream, flags, *args): the same as op(...), as a method (profilers see its calls) */
static PyObject *opcall_call_method(OpCall *self, PyObject *const *args, Py_ssize_t nargs)
{
    return opcall_vectorcall((PyObject *)self, args, (size_t)nargs, NULL);
}

static PyMethodDef opcall_methods[] = {
    {"call", (PyCFunction)(void (*)(void))opcall_call_method, METH_FASTCALL,
     "call(stream, flags, *args) -> status: the operator's fused call"},
    {"set_front", (PyCFunction)opcall_set_front, METH_VARARGS,
     "set_front(roles, anchor, results, tensor_type, scalar_type, float_cache, failed, no)"},
    {"front", (PyCFunction)(void (*)(void))opcall_front, METH_FASTCALL,
     "front(*params, stream, sync): the common call done here, else `no`"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef opcall_members[] = {
    {"op", T_OBJECT, offsetof(OpCall, op), READONLY, "the operator's name"},
    {"names", T_OBJECT, offsetof(OpCall, names), READONLY, "the parameters' names"},
    {NULL, 0, 0, 0, NULL},
};

static PyObject *opcall_codes(OpCall *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromStringAndSize(self->codes, self->n);
}

static PyGetSetDef opcall_getset[] = {
    {"codes", (getter)opcall_codes, NULL, "the argument codes", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *opcall_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    OpCall *self = (OpCall *)PyType_GenericNew(type, args, kwds);
    if (self != NULL)
        self->vectorcall = opcall_vectorcall;
    return (PyObject *)self;
}

static PyTypeObject OpCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyacl_hardgrad._fastcall.OpCall",
    .tp_basicsize = sizeof(OpCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "An operator's fused call with its arguments in an array: op(stream, flags, *args).",
    .tp_new = opcall_new,
    .tp_init = (initproc)opcall_init,
    .tp_dealloc = (destructor)opcall_dealloc,
    .tp_vectorcall_offset = offsetof(OpCall, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_members = opcall_members,
    .tp_getset = opcall_getset,
    .tp_methods = opcall_methods,
};

static PyMethodDef fc_methods[] = {
    {"setup", fc_setup, METH_VARARGS,
     "setup(stream_type, plan_run_address, wait_flag): the Stream class and hgb_plan_run."},
    {"set_tracer", fc_set_tracer, METH_O,
     "set_tracer(tracer or None): report every call into the binding to tracer(name, codes, args, "
     "result, duration_ns) (None: the trace is off)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fc_module = {
    PyModuleDef_HEAD_INIT, "pyacl_hardgrad._fastcall",
    "Vectorcall entry points into the binding for calls whose cost is the call itself.", -1,
    fc_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fastcall(void)
{
    g_str_a = PyUnicode_InternFromString("_a");
    g_str_default = PyUnicode_InternFromString("get_default_stream");
    g_str_device_state = PyUnicode_InternFromString("_device_state");
    g_kw_workspace = PyUnicode_InternFromString("workspace");
    g_kw_stream = PyUnicode_InternFromString("stream");
    g_kw_sync = PyUnicode_InternFromString("sync");
    if (!g_str_a || !g_str_default || !g_str_device_state || !g_kw_workspace || !g_kw_stream || !g_kw_sync)
        return NULL;
    if (PyType_Ready(&PlanRunnerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&fc_module);
    if (m == NULL)
        return NULL;
    if (PyType_Ready(&OpCallType) < 0)
        return NULL;
    Py_INCREF(&PlanRunnerType);
    if (PyModule_AddObject(m, "PlanRunner", (PyObject *)&PlanRunnerType) < 0) {
        Py_DECREF(&PlanRunnerType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&OpCallType);
    if (PyModule_AddObject(m, "OpCall", (PyObject *)&OpCallType) < 0) {
        Py_DECREF(&OpCallType);
        Py_DECREF(m);
        return NULL;
    }
    if (fc_tensor_init_module(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    if (fc_sites_init_module(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    if (fc_dlpack_init_module(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
