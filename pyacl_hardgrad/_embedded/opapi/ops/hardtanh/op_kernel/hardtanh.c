/* Hardtanh's portable kernels, one per dtype of self (= out). */
#include "hardtanh.h"

/* float dtypes: the NaN-bound case fills the output with the converted NaN */
#define HTF(T, ST)                                                                                \
    static void k_##T(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                             \
        const hg_T_##T *x = in[0];                                                                \
        hg_T_##T *o = out;                                                                        \
        if (HG_HTANH_NAN_BOUND(p)) {                                                              \
            for (size_t i = begin; i < end; i++) {                                                \
                o[i] = ST(p->f[2]);                                                               \
            }                                                                                     \
            return;                                                                               \
        }                                                                                         \
        for (size_t i = begin; i < end; i++) {                                                    \
            o[i] = ST(hg_htanh_f(HG_LD_##T(x[i]), p->f[0], p->f[1]));                             \
        }                                                                                         \
    }
HTF(F32, HG_ST_F32_RNE)
HTF(F16, HG_ST_F16_RNE)
HTF(BF16, HG_ST_BF16_RNE)

static void k_F64(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end)
{
    const double *x = in[0];
    double *o = out;
    const int nan_bound = HG_HTANH_NAN_BOUND(p);
    for (size_t i = begin; i < end; i++) {
        double r = x[i] < p->d[0] ? p->d[0] : x[i];
        r = r > p->d[1] ? p->d[1] : r;
        o[i] = nan_bound ? p->d[0] : r;
    }
}

#define HTI(T)                                                                                    \
    static void k_##T(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                             \
        const hg_T_##T *x = in[0];                                                                \
        hg_T_##T *o = out;                                                                        \
        const hg_T_##T lo = (hg_T_##T)p->i[0], hi = (hg_T_##T)p->i[1];                           \
        for (size_t i = begin; i < end; i++) {                                                    \
            hg_T_##T r = x[i] < lo ? lo : x[i];                                                   \
            o[i] = r > hi ? hi : r;                                                               \
        }                                                                                         \
    }
HTI(I8)
HTI(U8)
HTI(I16)
HTI(I32)
HTI(I64)

const hg_kernel_entry hg_hardtanh_scalar[] = {
    HG_ROW1(F32, F32, k_F32),
    HG_ROW1(F16, F16, k_F16),
    HG_ROW1(BF16, BF16, k_BF16),
    HG_ROW1(F64, F64, k_F64),
    HG_ROW1(I8, I8, k_I8),
    HG_ROW1(U8, U8, k_U8),
    HG_ROW1(I16, I16, k_I16),
    HG_ROW1(I32, I32, k_I32),
    HG_ROW1(I64, I64, k_I64),
    HG_ROW_END,
};
