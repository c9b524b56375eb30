/* Pointer sets behind the handle registries (see nb_private.h). */
#include <stdlib.h>

#include "nb_private.h"

nb_registry nb_tensors = NB_REGISTRY_INIT;
nb_registry nb_scalars = NB_REGISTRY_INIT;
nb_registry nb_executors = NB_REGISTRY_INIT;
nb_registry nb_lists = NB_REGISTRY_INIT;

static size_t nb_slot_of(uintptr_t key, size_t cap)
{
    /* Heap pointers share their low bits; a multiplicative mix spreads them. */
    uint64_t h = (uint64_t)(key >> 4) * UINT64_C(0x9E3779B97F4A7C15);
    h ^= h >> 29;
    return (size_t)h & (cap - 1);
}

static void nb_place(uintptr_t *slots, size_t cap, uintptr_t key)
{
    size_t i = nb_slot_of(key, cap);
    while (slots[i] != 0)
        i = (i + 1) & (cap - 1);
    slots[i] = key;
}

static int nb_grow(nb_ptrset *set)
{
    size_t new_cap = set->cap ? set->cap * 2 : 64;
    if (new_cap < set->cap)
        return -1;
    uintptr_t *slots = calloc(new_cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < set->cap; i++)
        if (set->slots[i] != 0)
            nb_place(slots, new_cap, set->slots[i]);
    free(set->slots);
    set->slots = slots;
    set->cap = new_cap;
    return 0;
}

int nb_ptrset_insert(nb_ptrset *set, const void *p)
{
    uintptr_t key = (uintptr_t)p;
    if (key == 0)
        return -1;
    if (nb_ptrset_contains(set, p))
        return 0;
    /* Keep the load at most one half so probe runs stay short. */
    if ((set->count + 1) * 2 > set->cap && nb_grow(set) != 0)
        return -1;
    nb_place(set->slots, set->cap, key);
    set->count++;
    return 0;
}

bool nb_ptrset_contains(const nb_ptrset *set, const void *p)
{
    uintptr_t key = (uintptr_t)p;
    if (set->cap == 0 || key == 0)
        return false;
    for (size_t i = nb_slot_of(key, set->cap);; i = (i + 1) & (set->cap - 1)) {
        if (set->slots[i] == key)
            return true;
        if (set->slots[i] == 0)
            return false;
    }
}

bool nb_ptrset_remove(nb_ptrset *set, const void *p)
{
    uintptr_t key = (uintptr_t)p;
    if (set->cap == 0 || key == 0)
        return false;
    size_t mask = set->cap - 1;
    size_t i = nb_slot_of(key, set->cap);
    while (set->slots[i] != key) {
        if (set->slots[i] == 0)
            return false;
        i = (i + 1) & mask;
    }
    /* Backward-shift deletion: pull later members of the probe run into the hole so
     * lookups never need tombstones. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; set->slots[j] != 0; j = (j + 1) & mask) {
        size_t home = nb_slot_of(set->slots[j], set->cap);
        /* j may move to hole only if its home is not cyclically within (hole, j]. */
        bool home_in_range = (hole <= j) ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!home_in_range) {
            set->slots[hole] = set->slots[j];
            hole = j;
        }
    }
    set->slots[hole] = 0;
    set->count--;
    return true;
}
