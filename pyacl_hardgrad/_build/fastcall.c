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
 * failure, is handed to the Python functions given to the runner, which raise the errors. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>

typedef int (*plan_run_fn)(void *plan, void *stream, int flags);

static plan_run_fn g_plan_run;        /* hgb_plan_run */
static int g_wait_flag;               /* HGB_WAIT */
static PyTypeObject *g_stream_type;   /* pyacl_hardgrad.stream.Stream (exact type) */
static PyObject *g_str_a;             /* "_a": a handle's object address as an int */
static PyObject *g_str_default;       /* "get_default_stream" */
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

static int runner_init(PlanRunner *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"o", "address", "live", "state", "out", "name", "workspace_size",
                             "general", "failed", NULL};
    PyObject *o, *addr, *live, *state, *out, *name, *general, *failed;
    unsigned long long ws;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO!OOUKOO:PlanRunner", kwlist, &o, &addr,
                                     &PyList_Type, &live, &state, &out, &name, &ws, &general, &failed))
        return -1;
    if (PyList_GET_SIZE(live) != 1) {
        PyErr_SetString(PyExc_ValueError, "live must be a one-item list");
        return -1;
    }
    if (!PyCallable_Check(general) || !PyCallable_Check(failed)) {
        PyErr_SetString(PyExc_TypeError, "general and failed must be callable");
        return -1;
    }
    void *p = PyLong_AsVoidPtr(addr);
    if (p == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "address must not be 0");
        return -1;
    }
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

/* run(workspace=None, stream=None, *, sync=False) */
static PyObject *runner_run(PlanRunner *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *v[3] = {Py_None, Py_None, Py_False};
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
    void *sp = address_of(s);
    if (sp == NULL) {
        Py_DECREF(s);
        return NULL;
    }
    int st;
    void *plan = self->plan;
    int flags = wait ? g_wait_flag : 0;
    Py_BEGIN_ALLOW_THREADS
    st = g_plan_run(plan, sp, flags);
    Py_END_ALLOW_THREADS
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
    void *p = PyLong_AsVoidPtr(run);
    if (p == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "plan_run_address must not be 0");
        return NULL;
    }
    Py_INCREF(type);
    Py_XSETREF(g_stream_type, (PyTypeObject *)type);
    g_plan_run = (plan_run_fn)(uintptr_t)p;
    g_wait_flag = wait;
    Py_RETURN_NONE;
}

static PyMethodDef fc_methods[] = {
    {"setup", fc_setup, METH_VARARGS,
     "setup(stream_type, plan_run_address, wait_flag): the Stream class and hgb_plan_run."},
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
    g_kw_workspace = PyUnicode_InternFromString("workspace");
    g_kw_stream = PyUnicode_InternFromString("stream");
    g_kw_sync = PyUnicode_InternFromString("sync");
    if (!g_str_a || !g_str_default || !g_kw_workspace || !g_kw_stream || !g_kw_sync)
        return NULL;
    if (PyType_Ready(&PlanRunnerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&fc_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&PlanRunnerType);
    if (PyModule_AddObject(m, "PlanRunner", (PyObject *)&PlanRunnerType) < 0) {
        Py_DECREF(&PlanRunnerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
