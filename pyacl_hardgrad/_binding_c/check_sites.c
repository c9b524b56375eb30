/* Checking mode's Python sites, as a C profile function (PyEval_SetProfile).
 *
 * Checking mode names the user's file:line in its findings: whenever code outside the package enters
 * it -- a Python function of the package or a C function of its binding -- the caller's file:line is
 * handed to the runtime (hgCheckSetSite).  A profile function sees every call of the program, so it
 * must cost next to nothing on the calls it ignores: here a call event costs a dictionary lookup of
 * the code's file name, a C call event a lookup of the method's definition in a small pointer table;
 * the Python predicates (what is "the package", what is "the binding") run once per file and once
 * per C function.  Everything runs with the GIL held. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fastcall.h"

typedef int (*set_site_fn)(const char *where);

static set_site_fn g_set_site;
static PyObject *g_in_package;   /* callable(filename) -> bool */
static PyObject *g_is_binding;   /* callable(c function) -> bool */
static PyObject *g_files;        /* filename -> True / False */

/* C functions seen: key (PyMethodDef * or type) -> 1 binding, 2 not; open addressing, grows at half. */
typedef struct {
    const void *key;
    int value;
} cf_entry;
static cf_entry *g_cf;
static size_t g_cf_cap, g_cf_used;

static size_t cf_slot(const void *key, size_t cap)
{
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static int cf_put(const void *key, int value)
{
    if ((g_cf_used + 1) * 2 > g_cf_cap) {
        size_t cap = g_cf_cap ? g_cf_cap * 2 : 256;
        cf_entry *nv = PyMem_Calloc(cap, sizeof *nv);
        if (nv == NULL)
            return -1;
        for (size_t i = 0; i < g_cf_cap; ++i) {
            if (!g_cf[i].key)
                continue;
            size_t j = cf_slot(g_cf[i].key, cap);
            while (nv[j].key)
                j = (j + 1) & (cap - 1);
            nv[j] = g_cf[i];
        }
        PyMem_Free(g_cf);
        g_cf = nv;
        g_cf_cap = cap;
    }
    size_t j = cf_slot(key, g_cf_cap);
    while (g_cf[j].key && g_cf[j].key != key)
        j = (j + 1) & (g_cf_cap - 1);
    if (!g_cf[j].key)
        g_cf_used++;
    g_cf[j] = (cf_entry){key, value};
    return 0;
}

static int cf_get(const void *key)
{
    if (!g_cf_cap)
        return 0;
    for (size_t j = cf_slot(key, g_cf_cap); g_cf[j].key; j = (j + 1) & (g_cf_cap - 1))
        if (g_cf[j].key == key)
            return g_cf[j].value;
    return 0;
}

/* 1 when filename belongs to the package (or what runs between the user and it), 0 when not,
 * -1 on an error (cleared: a site is a nicety, never a failure of the user's call). */
static int in_package(PyObject *filename)
{
    PyObject *v = PyDict_GetItemWithError(g_files, filename);
    if (v == NULL) {
        if (PyErr_Occurred())
            goto fail;
        v = PyObject_CallOneArg(g_in_package, filename);
        if (v == NULL)
            goto fail;
        int r = PyDict_SetItem(g_files, filename, v);
        Py_DECREF(v);      /* the dictionary holds it */
        if (r < 0)
            goto fail;
    }
    return v == Py_True;
fail:
    PyErr_Clear();
    return -1;
}

/* Sites already told: (code object, instruction offset) -> "file:line", so the line table is read
 * and the text formatted once per call site, not once per call.  Entries (and the code objects they
 * hold) live as long as the process: one per distinct call site of the program. */
typedef struct {
    PyCodeObject *code;
    int lasti;
    char *where;
} site_entry;
static site_entry *g_sites;
static size_t g_sites_cap, g_sites_used;

static size_t site_slot(const PyCodeObject *code, int lasti, size_t cap)
{
    uint64_t h = ((uint64_t)(uintptr_t)code ^ ((uint64_t)(unsigned)lasti << 3)) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static const char *site_text(PyFrameObject *frame, PyCodeObject *code)
{
    int lasti = PyFrame_GetLasti(frame);
    if (g_sites_cap) {
        for (size_t j = site_slot(code, lasti, g_sites_cap); g_sites[j].code; j = (j + 1) & (g_sites_cap - 1))
            if (g_sites[j].code == code && g_sites[j].lasti == lasti)
                return g_sites[j].where;
    }
    const char *file = PyUnicode_AsUTF8(code->co_filename);
    if (file == NULL) {
        PyErr_Clear();
        return NULL;
    }
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s:%d", file, PyFrame_GetLineNumber(frame));
    if (n < 0)
        return NULL;
    if ((g_sites_used + 1) * 2 > g_sites_cap) {
        size_t cap = g_sites_cap ? g_sites_cap * 2 : 256;
        site_entry *nv = PyMem_Calloc(cap, sizeof *nv);
        if (nv == NULL)
            return NULL;
        for (size_t i = 0; i < g_sites_cap; ++i) {
            if (!g_sites[i].code)
                continue;
            size_t j = site_slot(g_sites[i].code, g_sites[i].lasti, cap);
            while (nv[j].code)
                j = (j + 1) & (cap - 1);
            nv[j] = g_sites[i];
        }
        PyMem_Free(g_sites);
        g_sites = nv;
        g_sites_cap = cap;
    }
    char *where = PyMem_Malloc(strlen(buf) + 1);
    if (where == NULL)
        return NULL;
    strcpy(where, buf);
    size_t j = site_slot(code, lasti, g_sites_cap);
    while (g_sites[j].code)
        j = (j + 1) & (g_sites_cap - 1);
    Py_INCREF(code);   /* the key stays this code object: it must not be freed and its address reused */
    g_sites[j] = (site_entry){code, lasti, where};
    g_sites_used++;
    return where;
}

static void tell(PyFrameObject *frame)
{
    PyCodeObject *code = PyFrame_GetCode(frame);
    const char *where = site_text(frame, code);
    Py_DECREF(code);
    if (where != NULL)
        g_set_site(where);
}

static int is_binding(PyObject *fn)
{
    const void *key = PyCFunction_Check(fn) ? (const void *)((PyCFunctionObject *)fn)->m_ml : (const void *)Py_TYPE(fn);
    int v = cf_get(key);
    if (v == 0) {
        PyObject *r = PyObject_CallOneArg(g_is_binding, fn);
        if (r == NULL) {
            PyErr_Clear();
            return 0;
        }
        v = r == Py_True ? 1 : 2;
        Py_DECREF(r);
        if (cf_put(key, v) < 0)
            PyErr_Clear();
    }
    return v == 1;
}

static int site_profile(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    (void)obj;
    if (what == PyTrace_CALL) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        int inside = in_package(code->co_filename);
        Py_DECREF(code);
        if (inside != 1)
            return 0;
        PyFrameObject *back = PyFrame_GetBack(frame);
        if (back == NULL)
            return 0;
        PyCodeObject *bcode = PyFrame_GetCode(back);
        if (in_package(bcode->co_filename) == 0)
            tell(back);
        Py_DECREF(bcode);
        Py_DECREF(back);
    } else if (what == PyTrace_C_CALL) {
        if (!is_binding(arg))
            return 0;
        PyCodeObject *code = PyFrame_GetCode(frame);
        int inside = in_package(code->co_filename);
        Py_DECREF(code);
        if (inside == 0)
            tell(frame);
    }
    return 0;
}

/* sites_configure(set_site_address, in_package, is_binding): what the profile function asks. */
static PyObject *fc_sites_configure(PyObject *module, PyObject *args)
{
    (void)module;
    unsigned long long addr;
    PyObject *pkg, *binding;
    if (!PyArg_ParseTuple(args, "KOO:sites_configure", &addr, &pkg, &binding))
        return NULL;
    if (addr == 0 || !PyCallable_Check(pkg) || !PyCallable_Check(binding)) {
        PyErr_SetString(PyExc_ValueError, "sites_configure: set_site_address must be nonzero and the two "
                                          "predicates callable");
        return NULL;
    }
    if (g_files == NULL && (g_files = PyDict_New()) == NULL)
        return NULL;
    Py_INCREF(pkg);
    Py_INCREF(binding);
    Py_XSETREF(g_in_package, pkg);
    Py_XSETREF(g_is_binding, binding);
    g_set_site = (set_site_fn)(uintptr_t)addr;
    Py_RETURN_NONE;
}

/* sites_profile_here(): install the profile function on the calling thread.  Its object is the
 * module's sites_thread_hook, so what sys.getprofile() answers is a callable that puts the C
 * function back: code that saves the profile function, sets its own and restores the saved one
 * (a profiler, a test) leaves the sites as they were. */
static PyObject *fc_sites_profile_here(PyObject *module, PyObject *unused)
{
    (void)unused;
    if (g_set_site == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "sites_profile_here: sites_configure was not called");
        return NULL;
    }
    PyObject *hook = PyObject_GetAttrString(module, "sites_thread_hook");
    if (hook == NULL)
        return NULL;
    PyEval_SetProfile(site_profile, hook);     /* holds its own reference */
    Py_DECREF(hook);
    Py_RETURN_NONE;
}

/* sites_thread_hook(frame, event, arg): given to threading.setprofile, it runs as a new thread's first
 * profile event and puts the C profile function in its place. */
static PyObject *fc_sites_thread_hook(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)args;
    (void)nargs;
    return fc_sites_profile_here(module, NULL);
}

static PyMethodDef sites_methods[] = {
    {"sites_configure", fc_sites_configure, METH_VARARGS,
     "sites_configure(set_site_address, in_package, is_binding): the runtime's hgCheckSetSite and the "
     "predicates the profile function asks once per file and per C function."},
    {"sites_profile_here", fc_sites_profile_here, METH_NOARGS,
     "sites_profile_here(): hand the calling thread's sites down (a C profile function)."},
    {"sites_thread_hook", (PyCFunction)(void (*)(void))fc_sites_thread_hook, METH_FASTCALL,
     "sites_thread_hook(frame, event, arg): for threading.setprofile; installs the C profile function "
     "on the new thread."},
    {NULL, NULL, 0, NULL},
};

int fc_sites_init_module(PyObject *module)
{
    return PyModule_AddFunctions(module, sites_methods);
}
