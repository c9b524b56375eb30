/*
 * Chooses the kernel path once per process: the CPU's features (cpuid + xgetbv on
 * x86_64, NEON is baseline on aarch64) limited by PYACL_HARDGRAD_KERNEL_ISA, so tests
 * can force each path and compare results.  PYACL_HARDGRAD_KERNEL_ISA_TRACE=1 prints
 * the choice to stderr once, which lets a test see which path actually ran.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hg_isa.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

static pthread_once_t isa_once = PTHREAD_ONCE_INIT;
static hg_isa isa_selected = HG_ISA_SCALAR;

static const char *isa_name(hg_isa isa)
{
    switch (isa) {
    case HG_ISA_AVX2: return "avx2";
    case HG_ISA_AVX512: return "avx512";
    case HG_ISA_NEON: return "neon";
    default: return "scalar";
    }
}

#if defined(__x86_64__)
static unsigned long long read_xcr0(void)
{
    unsigned int lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}
#endif

/* Whether the CPU (and the OS, for the register state) supports the path. */
static int isa_available(hg_isa isa)
{
    if (isa == HG_ISA_SCALAR) {
        return 1;
    }
#if defined(__x86_64__)
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) {
        return 0;
    }
    const unsigned int osxsave = 1u << 27, avx = 1u << 28, f16c = 1u << 29;
    if ((c & (osxsave | avx | f16c)) != (osxsave | avx | f16c)) {
        return 0;
    }
    unsigned long long xcr0 = read_xcr0();
    if ((xcr0 & 0x6u) != 0x6u) {                      /* SSE and AVX state */
        return 0;
    }
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        return 0;
    }
    if (isa == HG_ISA_AVX2) {
        return (b & (1u << 5)) != 0;
    }
    if (isa == HG_ISA_AVX512) {
        const unsigned int need = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);   /* F DQ BW VL */
        return (b & need) == need && (xcr0 & 0xe6u) == 0xe6u;
    }
    return 0;
#elif defined(__aarch64__)
    return isa == HG_ISA_NEON;
#else
    return 0;
#endif
}

static void isa_init(void)
{
    const char *req = getenv("PYACL_HARDGRAD_KERNEL_ISA");
    hg_isa want = HG_ISA_SCALAR;
    int forced = 0;
    if (req != NULL && *req != '\0' && strcmp(req, "auto") != 0) {
        forced = 1;
        if (strcmp(req, "avx2") == 0) {
            want = HG_ISA_AVX2;
        } else if (strcmp(req, "avx512") == 0) {
            want = HG_ISA_AVX512;
        } else if (strcmp(req, "neon") == 0) {
            want = HG_ISA_NEON;
        } else if (strcmp(req, "scalar") != 0) {
            forced = 0;                                /* unknown value: as auto, said once */
            fprintf(stderr, "pyacl_hardgrad: PYACL_HARDGRAD_KERNEL_ISA=\"%s\" is not one of auto, scalar, avx2, "
                    "avx512, neon; using auto\n", req);
        }
    }
    if (forced) {
        /* A forced path the CPU lacks falls back to scalar, never to another SIMD path. */
        isa_selected = isa_available(want) ? want : HG_ISA_SCALAR;
    } else {
        static const hg_isa order[] = {HG_ISA_AVX512, HG_ISA_AVX2, HG_ISA_NEON};
        isa_selected = HG_ISA_SCALAR;
        for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
            if (isa_available(order[i])) {
                isa_selected = order[i];
                break;
            }
        }
    }
    const char *trace = getenv("PYACL_HARDGRAD_KERNEL_ISA_TRACE");
    if (trace != NULL && strcmp(trace, "1") == 0) {
        fprintf(stderr, "pyacl_hardgrad: kernel isa %s (requested %s)\n", isa_name(isa_selected),
                req != NULL && *req != '\0' ? req : "auto");
    }
}

hg_isa hg_kernel_isa(void)
{
    pthread_once(&isa_once, isa_init);
    return isa_selected;
}

const hg_kernel_entry *hg_kernel_find(const hg_kernel_entry *table, const aclDataType *in, int nin,
                                      aclDataType out)
{
    if (table == NULL) {
        return NULL;
    }
    for (const hg_kernel_entry *e = table; e->fn != NULL; e++) {
        int match = e->out == out;
        for (int k = 0; match && k < HG_MAX_IN; k++) {
            match = e->in[k] == (k < nin ? in[k] : ACL_DT_UNDEFINED);
        }
        if (match) {
            return e;
        }
    }
    return NULL;
}
