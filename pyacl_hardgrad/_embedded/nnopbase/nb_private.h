/*
 * libnnopbase private helpers: pointer registries that let every entry point decide
 * whether a handle is alive without dereferencing it (a destroyed or foreign pointer
 * is reported with a code instead of being read).
 */
#ifndef PYACL_HARDGRAD_NNOPBASE_NB_PRIVATE_H_
#define PYACL_HARDGRAD_NNOPBASE_NB_PRIVATE_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Open-addressing set of non-NULL pointers; the caller holds the owning mutex. */
typedef struct nb_ptrset {
    uintptr_t *slots;   /* 0 marks an empty slot */
    size_t cap;         /* power of two, or 0 before the first insert */
    size_t count;
} nb_ptrset;

/* Returns 0, or -1 when growing the table failed (the set is unchanged). */
int nb_ptrset_insert(nb_ptrset *set, const void *p);
bool nb_ptrset_contains(const nb_ptrset *set, const void *p);
/* Returns true when p was present.  Never shrinks, so re-inserting a pointer just
 * removed cannot fail. */
bool nb_ptrset_remove(nb_ptrset *set, const void *p);

/* A set plus the mutex that guards it. */
typedef struct nb_registry {
    pthread_mutex_t mu;
    nb_ptrset set;
} nb_registry;

#define NB_REGISTRY_INIT { PTHREAD_MUTEX_INITIALIZER, { NULL, 0, 0 } }

static inline void nb_lock(nb_registry *r) { pthread_mutex_lock(&r->mu); }
static inline void nb_unlock(nb_registry *r) { pthread_mutex_unlock(&r->mu); }

/* Handles alive in this process, one registry per kind to keep contention apart. */
extern nb_registry nb_tensors;
extern nb_registry nb_scalars;
extern nb_registry nb_executors;
extern nb_registry nb_lists;      /* int/float/bool arrays, tensor and scalar lists */

/* aclSet...TensorAddr: forward the new address to the operator's plan (executor.c). */
typedef struct aclOpExecutor aclOpExecutor;
int32_t hg_executor_rebind(const char *func, aclOpExecutor *executor, int which, size_t index, void *addr);

/* Largest rank aclCreateTensor accepts; the operators themselves stop at 8. */
#define NB_MAX_DIMS 64

#endif /* PYACL_HARDGRAD_NNOPBASE_NB_PRIVATE_H_ */
