/*
 * out sharing memory with an input.  In place (out is exactly gradOutput or self) the
 * result equals the one with a separate out, on the SIMD path and split across threads.
 * A partial overlap (out shifted by a few elements inside gradOutput's buffer) runs the
 * whole tensor in element order on one thread, so the result equals a sequential loop.
 * Prints "ok" and exits 0 on success.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_hardsigmoid_backward.h"
#include "aclnnop/aclnn_hardtanh_backward.h"

#define N 200003
#define SHIFT 3

static aclrtStream stream;

static aclTensor *vec(void *base, int64_t n, int64_t offset, int64_t storage, aclDataType dt)
{
    int64_t shape[1] = {n}, strides[1] = {1}, st[1] = {storage};
    return aclCreateTensor(shape, 1, dt, strides, offset, ACL_FORMAT_ND, st, 1, base);
}

static int run_ht(aclTensor *g, aclTensor *s, aclTensor *o)
{
    float lo = -1.0f, hi = 1.0f;
    aclScalar *sl = aclCreateScalar(&lo, ACL_FLOAT), *sh = aclCreateScalar(&hi, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *exe = NULL;
    int rc = aclnnHardtanhBackwardGetWorkspaceSize(g, s, sl, sh, o, &ws, &exe);
    if (rc == 0) rc = aclnnHardtanhBackward(NULL, 0, exe, stream);
    if (rc == 0) rc = aclrtSynchronizeStream(stream);
    aclDestroyScalar(sl);
    aclDestroyScalar(sh);
    return rc;
}

static int run_hs(aclTensor *g, aclTensor *s, aclTensor *o)
{
    uint64_t ws = 0;
    aclOpExecutor *exe = NULL;
    int rc = aclnnHardsigmoidBackwardGetWorkspaceSize(g, s, o, &ws, &exe);
    if (rc == 0) rc = aclnnHardsigmoidBackward(NULL, 0, exe, stream);
    if (rc == 0) rc = aclrtSynchronizeStream(stream);
    return rc;
}

static float value(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return ((float)(*state >> 8) * 0x1p-24f - 0.5f) * 8.0f;
}

int main(void)
{
    if (aclInit(NULL) != 0 || aclrtSetDevice(0) != 0 || aclrtCreateStream(&stream) != 0) return 4;
    const size_t bytes = (N + SHIFT) * sizeof(float);
    float *g, *s, *o, *g2;
    if (aclrtMalloc((void **)&g, bytes, ACL_MEM_MALLOC_HUGE_FIRST) || aclrtMalloc((void **)&s, bytes, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc((void **)&o, bytes, ACL_MEM_MALLOC_HUGE_FIRST) || aclrtMalloc((void **)&g2, bytes, ACL_MEM_MALLOC_HUGE_FIRST))
        return 4;
    uint32_t st = 12345u;
    for (size_t i = 0; i < N + SHIFT; i++) {
        g[i] = value(&st);
        s[i] = value(&st);
    }
    int bad = 0;
    for (int op = 0; op < 2; op++) {
        /* separate out */
        aclTensor *tg = vec(g, N, 0, N + SHIFT, ACL_FLOAT), *ts = vec(s, N, 0, N + SHIFT, ACL_FLOAT);
        aclTensor *to = vec(o, N, 0, N + SHIFT, ACL_FLOAT);
        if ((op ? run_hs(tg, ts, to) : run_ht(tg, ts, to)) != 0) return 1;
        /* in place: out is gradOutput itself */
        memcpy(g2, g, bytes);
        aclTensor *tg2 = vec(g2, N, 0, N + SHIFT, ACL_FLOAT), *to2 = vec(g2, N, 0, N + SHIFT, ACL_FLOAT);
        if ((op ? run_hs(tg2, ts, to2) : run_ht(tg2, ts, to2)) != 0) return 1;
        if (memcmp(g2, o, N * sizeof(float)) != 0) {
            fprintf(stderr, "op %d: in-place result differs\n", op);
            bad = 1;
        }
        aclDestroyTensor(tg2);
        aclDestroyTensor(to2);
        /* partial overlap: out starts SHIFT elements into gradOutput's buffer */
        memcpy(g2, g, bytes);
        tg2 = vec(g2, N, 0, N + SHIFT, ACL_FLOAT);
        to2 = vec(g2, N, SHIFT, N + SHIFT, ACL_FLOAT);
        if ((op ? run_hs(tg2, ts, to2) : run_ht(tg2, ts, to2)) != 0) return 1;
        float *ref = malloc(bytes);
        memcpy(ref, g, bytes);
        for (size_t i = 0; i < N; i++) {   /* element order, each read sees earlier writes */
            float gi = ref[i], si = s[i], r;
            if (op) {
                float t = si * (1.0f / 6.0f);
                t = t + 0.5f;
                r = (t > 0.0f && t < 1.0f) ? gi * (1.0f / 6.0f) : 0.0f;
            } else {
                r = (si > -1.0f && si < 1.0f) ? gi : 0.0f;
            }
            ref[i + SHIFT] = r;
        }
        if (memcmp(g2, ref, bytes) != 0) {
            fprintf(stderr, "op %d: overlapping out is not the element-order result\n", op);
            bad = 1;
        }
        free(ref);
        aclDestroyTensor(tg2);
        aclDestroyTensor(to2);
        aclDestroyTensor(tg);
        aclDestroyTensor(ts);
        aclDestroyTensor(to);
    }
    aclrtFree(g);
    aclrtFree(s);
    aclrtFree(o);
    aclrtFree(g2);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (!bad) printf("ok\n");
    return bad;
}
