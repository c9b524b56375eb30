/*
 * Hardtanh's element math (ops-math conversion/clip_by_value_v2: op_kernel/arch35/
 * clip_by_value_v2_dag.h and the AI CPU kernel), shared by its scalar kernels and the scalar
 * tails of its SIMD kernels.  Both bounds are converted to self's dtype at phase 1, then
 * out = min(max(x, lo), hi) in that dtype (fp16/bf16 compared widened, which is exact):
 *   r = x < lo ? lo : x;  r = r > hi ? hi : r
 * so a NaN x stays NaN; a NaN bound gives NaN everywhere (p->u[0] = 1, the NaN in p->f[2], or
 * in p->d[0] for FLOAT64).  Parameters: fp32/fp16/bf16 bounds p->f[0], p->f[1] (exact values of
 * the dtype, as fp32); FLOAT64 p->d[0], p->d[1]; integers p->i[0], p->i[1] (values of the dtype).
 */
#ifndef PYACL_HARDGRAD_OPS_HARDTANH_H_
#define PYACL_HARDGRAD_OPS_HARDTANH_H_

#include "hg_elem.h"

#define HG_HTANH_NAN_BOUND(p) ((p)->u[0] != 0)

static inline float hg_htanh_f(float x, float lo, float hi)
{
    float r = x < lo ? lo : x;
    return r > hi ? hi : r;
}

#endif /* PYACL_HARDGRAD_OPS_HARDTANH_H_ */
