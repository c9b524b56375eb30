/* Handle tables: slot + generation + kind packed into the handle value, so that
 * destroyed, foreign or made-up handles are rejected by lookup alone. */
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

#if UINTPTR_MAX > 0xffffffffu
#define SLOT_BITS 24u
#define TAG_SHIFT 24u
#define GEN_SHIFT 32u
#define GEN_MASK 0xffffffffu
#else
#define SLOT_BITS 16u
#define TAG_SHIFT 16u
#define GEN_SHIFT 20u
#define GEN_MASK 0xfffu
#endif
#define SLOT_MASK ((1u << SLOT_BITS) - 1u)
#define SLOT_LIMIT (SLOT_MASK - 1u) /* slot + 1 must fit the field */

static uintptr_t encode(const hg_table *t, uint32_t slot, uint32_t gen)
{
    return ((uintptr_t)gen << GEN_SHIFT) | ((uintptr_t)(t->tag & 0xfu) << TAG_SHIFT) | (uintptr_t)(slot + 1u);
}

static bool grow(hg_table *t)
{
    uint32_t ncap = t->cap ? t->cap * 2u : 16u;
    if (ncap > SLOT_LIMIT)
        ncap = SLOT_LIMIT;
    if (ncap <= t->cap)
        return false;
    void **objs = realloc(t->objs, ncap * sizeof *objs);
    if (!objs)
        return false;
    t->objs = objs;
    uint32_t *gens = realloc(t->gens, ncap * sizeof *gens);
    if (!gens)
        return false;
    t->gens = gens;
    uint32_t *fs = realloc(t->free_slots, ncap * sizeof *fs);
    if (!fs)
        return false;
    t->free_slots = fs;
    for (uint32_t i = t->cap; i < ncap; ++i) {
        t->objs[i] = NULL;
        t->gens[i] = 0;
    }
    /* push new slots so that the lowest is handed out first */
    for (uint32_t i = ncap; i > t->cap; --i)
        t->free_slots[t->nfree++] = i - 1u;
    t->cap = ncap;
    return true;
}

uintptr_t hg_table_add(hg_table *t, void *obj)
{
    if (!obj)
        return 0;
    if (t->nfree == 0 && !grow(t))
        return 0;
    uint32_t slot = t->free_slots[--t->nfree];
    uint32_t gen = (t->next_gen + 1u) & GEN_MASK;
    if (gen == 0)
        gen = 1;
    t->next_gen = gen;
    t->objs[slot] = obj;
    t->gens[slot] = gen;
    return encode(t, slot, gen);
}

static bool decode(const hg_table *t, uintptr_t h, uint32_t *slot)
{
    uint32_t s = (uint32_t)(h & SLOT_MASK);
    if (s == 0)
        return false;
    s -= 1u;
    if (s >= t->cap || !t->objs[s] || encode(t, s, t->gens[s]) != h)
        return false; /* also rejects another kind's handle and stray bits */
    *slot = s;
    return true;
}

void *hg_table_get(const hg_table *t, uintptr_t h)
{
    uint32_t s;
    return decode(t, h, &s) ? t->objs[s] : NULL;
}

void *hg_table_remove(hg_table *t, uintptr_t h)
{
    uint32_t s;
    if (!decode(t, h, &s))
        return NULL;
    void *obj = t->objs[s];
    t->objs[s] = NULL;
    t->gens[s] = 0;
    t->free_slots[t->nfree++] = s;
    return obj;
}

uintptr_t hg_table_handle_at(const hg_table *t, uint32_t i)
{
    if (i >= t->cap || !t->objs[i])
        return 0;
    return encode(t, i, t->gens[i]);
}
