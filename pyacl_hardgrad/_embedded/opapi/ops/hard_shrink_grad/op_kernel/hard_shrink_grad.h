/*
 * HardshrinkBackward's element math (op_kernel/arch35/hard_shrink_grad.h of ops-nn), shared by
 * its scalar kernels and the scalar tails of its SIMD kernels: in the promoted dtype P of
 * (gradOutput, self), gradInput = 0 where |self| <= lambd, else gradOutput; then the Cast to
 * gradInput's dtype.  fp32 and fp16 compare natively (fp16 against lambd converted to half,
 * p->f[1] holds it widened); bf16 compares widened to fp32 with the fp32 lambd (p->f[0]).
 * When gradOutput, self and gradInput share one dtype the selected words are copied bit for bit.
 */
#ifndef PYACL_HARDGRAD_OPS_HARD_SHRINK_GRAD_H_
#define PYACL_HARDGRAD_OPS_HARD_SHRINK_GRAD_H_

#include "hg_elem.h"

/* The lambd a kernel of promoted dtype P compares with. */
#define HSG_LAMBD_F32(p) ((p)->f[0])
#define HSG_LAMBD_BF16(p) ((p)->f[0])
#define HSG_LAMBD_F16(p) ((p)->f[1])

static inline int hg_hsg_keep(float x, float lambd)
{
    return !(fabsf(x) <= lambd);
}

#endif /* PYACL_HARDGRAD_OPS_HARD_SHRINK_GRAD_H_ */
