/* Profiling: an operator's tensors as the timeline shows them (msprof's task args: input and
 * output shapes and data types, ';' between tensors, ',' between dimensions) and the bytes
 * they hold. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hg_internal.h"

typedef struct buf {
    char *p;
    size_t n, cap;
    int failed;
} buf;

static void put(buf *b, const char *fmt, ...) HG_PRINTF(2, 3);

static void put(buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->failed = 1;
            return;
        }
        if (b->p && (size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = (b->cap ? b->cap * 2u : 256u) + (size_t)k;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
}

/* "Input Shapes":"4,2;4,2","Input Data Types":"DT_FLOAT;DT_FLOAT" for one side. */
static uint64_t side(buf *b, const char *label, const aclTensor *const *ts, int n)
{
    uint64_t bytes = 0;
    put(b, "\"%s Shapes\":\"", label);
    for (int i = 0; i < n; ++i) {
        if (i)
            put(b, ";");
        const aclTensor *t = ts[i];
        if (!t)
            continue;
        for (uint64_t d = 0; d < t->ndim; ++d)
            put(b, d ? ",%" PRId64 : "%" PRId64, t->shape[d]);
        bytes += (uint64_t)(t->numel > 0 ? t->numel : 0) * hg_dtype_size(t->dtype);
    }
    put(b, "\",\"%s Data Types\":\"", label);
    for (int i = 0; i < n; ++i)
        put(b, "%s%s", i ? ";" : "", ts[i] ? hg_dtype_name(ts[i]->dtype) : "");
    put(b, "\"");
    return bytes;
}

char *hg_prof_describe_tensors(const aclTensor *const *in, int nin, const aclTensor *const *out, int nout)
{
    buf b = {NULL, 0, 0, 0};
    uint64_t bytes = side(&b, "Input", in, nin);
    put(&b, ",");
    bytes += side(&b, "Output", out, nout);
    put(&b, ",\"bytes\":%" PRIu64, bytes);
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    return b.p;
}
