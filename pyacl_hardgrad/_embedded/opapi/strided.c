/*
 * Copies between a strided view and a contiguous buffer: the Contiguous step before
 * a kernel (gather) and the ViewCopy step after it (scatter).  The innermost collapsed
 * dimension is copied as one run; only the outer dimensions use an index counter.
 */
#include <stdint.h>
#include <string.h>

#include "opapi_common.h"

/* One run of n elements: strided (step in elements) <-> packed. */
static void run_gather(const char *src, int64_t step, char *dst, int64_t n, size_t elsize)
{
    if (step == 1) {
        memcpy(dst, src, (size_t)n * elsize);
        return;
    }
    switch (elsize) {
    case 2: {
        const uint16_t *s = (const uint16_t *)src;
        uint16_t *d = (uint16_t *)dst;
        for (int64_t i = 0; i < n; i++) {
            d[i] = s[i * step];
        }
        break;
    }
    case 4: {
        const uint32_t *s = (const uint32_t *)src;
        uint32_t *d = (uint32_t *)dst;
        for (int64_t i = 0; i < n; i++) {
            d[i] = s[i * step];
        }
        break;
    }
    default:
        for (int64_t i = 0; i < n; i++) {
            memcpy(dst + (size_t)i * elsize, src + i * step * (int64_t)elsize, elsize);
        }
        break;
    }
}

static void run_scatter(char *dst, int64_t step, const char *src, int64_t n, size_t elsize)
{
    if (step == 1) {
        memmove(dst, src, (size_t)n * elsize);
        return;
    }
    switch (elsize) {
    case 2: {
        uint16_t *d = (uint16_t *)dst;
        const uint16_t *s = (const uint16_t *)src;
        for (int64_t i = 0; i < n; i++) {
            d[i * step] = s[i];
        }
        break;
    }
    case 4: {
        uint32_t *d = (uint32_t *)dst;
        const uint32_t *s = (const uint32_t *)src;
        for (int64_t i = 0; i < n; i++) {
            d[i * step] = s[i];
        }
        break;
    }
    default:
        for (int64_t i = 0; i < n; i++) {
            memcpy(dst + i * step * (int64_t)elsize, src + (size_t)i * elsize, elsize);
        }
        break;
    }
}

/* Copy logical elements [begin, end) of v to/from packed[begin, end): the first and
 * last runs may be partial; the outer collapsed dims use an index counter. */
static void strided_walk(const hg_view *v, char *packed, int to_view, size_t begin, size_t end)
{
    char *base = hg_view_base(v);
    const int64_t es = (int64_t)v->elsize;
    if (v->numel <= 0 || end > (size_t)v->numel) {
        end = v->numel > 0 ? (size_t)v->numel : 0;
    }
    if (begin >= end) {
        return;
    }
    if (v->cndim == 0) {                     /* a single element */
        if (to_view) {
            memmove(base, packed, v->elsize);
        } else {
            memcpy(packed, base, v->elsize);
        }
        return;
    }
    const int inner = v->cndim - 1;
    const int64_t run = v->cshape[inner];
    const int64_t step = v->cstrides[inner];
    /* Position of logical element `begin`: run number -> outer indices, offset in the run. */
    int64_t idx[HG_MAX_DIMS] = {0};
    int64_t pos = 0;                         /* element offset of the current run */
    int64_t r = (int64_t)(begin / (size_t)run);
    int64_t j = (int64_t)(begin % (size_t)run);
    for (int d = inner - 1; d >= 0; d--) {
        idx[d] = r % v->cshape[d];
        r /= v->cshape[d];
        pos += idx[d] * v->cstrides[d];
    }
    int64_t left = (int64_t)(end - begin);
    packed += (int64_t)begin * es;
    for (;;) {
        int64_t len = run - j < left ? run - j : left;
        if (to_view) {
            run_scatter(base + (pos + j * step) * es, step, packed, len, v->elsize);
        } else {
            run_gather(base + (pos + j * step) * es, step, packed, len, v->elsize);
        }
        packed += len * es;
        left -= len;
        j = 0;
        if (left <= 0) {
            return;
        }
        int d = inner - 1;
        for (; d >= 0; d--) {
            idx[d]++;
            pos += v->cstrides[d];
            if (idx[d] < v->cshape[d]) {
                break;
            }
            pos -= v->cstrides[d] * v->cshape[d];
            idx[d] = 0;
        }
        if (d < 0) {
            return;
        }
    }
}

void hg_strided_gather(const hg_view *v, void *dst)
{
    strided_walk(v, (char *)dst, 0, 0, SIZE_MAX);
}

void hg_strided_scatter(const hg_view *v, const void *src)
{
    strided_walk(v, (char *)src, 1, 0, SIZE_MAX);
}

void hg_strided_gather_range(const hg_view *v, void *dst, size_t begin, size_t end)
{
    strided_walk(v, (char *)dst, 0, begin, end);
}

void hg_strided_scatter_range(const hg_view *v, const void *src, size_t begin, size_t end)
{
    strided_walk(v, (char *)src, 1, begin, end);
}
