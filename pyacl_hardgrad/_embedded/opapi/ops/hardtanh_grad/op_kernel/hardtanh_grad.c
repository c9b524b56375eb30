/*
 * HardtanhBackward's portable kernels, one per dtype (gradOutput, self and out share it);
 * fp16/bf16 handled as raw 16-bit words.
 */
#include "hardtanh_grad.h"

#define HT_SCALAR(T, W, LD)                                                                        \
    static void ht_##T(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                              \
        const W *g = in[0];                                                                        \
        const W *s = in[1];                                                                        \
        W *o = out;                                                                                \
        for (size_t i = begin; i < end; i++) {                                                     \
            o[i] = (W)(g[i] & hg_ht_keep_mask(LD(s[i]), p->f[0], p->f[1]));                        \
        }                                                                                          \
    }

HT_SCALAR(F32, uint32_t, hg_bits_f32)
HT_SCALAR(F16, uint16_t, hg_f16_to_f32)
HT_SCALAR(BF16, uint16_t, hg_bf16_to_f32)

const hg_kernel_entry hg_hardtanh_grad_scalar[] = {
    HG_ROW2(F32, F32, F32, ht_F32),
    HG_ROW2(F16, F16, F16, ht_F16),
    HG_ROW2(BF16, BF16, BF16, ht_BF16),
    HG_ROW_END,
};
