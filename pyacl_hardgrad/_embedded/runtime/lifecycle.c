/* aclInitCallbackRegister / aclFinalizeCallbackRegister and their UnRegister calls: callbacks
 * aclInit and aclFinalize run, registered per aclRegisterCallbackType.  As CANN's runtime: a
 * type other than ACL_REG_TYPE_OTHER holds one callback (a second registration fails with
 * ACL_ERROR_INTERNAL_ERROR); an init callback registered while the runtime is initialised runs
 * at once (its result ignored); unregistering a callback that is not registered fails with
 * ACL_ERROR_INTERNAL_ERROR; a NULL callback is ACL_ERROR_INVALID_PARAM.  Callbacks run without
 * the registry's lock held, so they may register and unregister others. */
#include <stdlib.h>
#include <string.h>

#include "lifecycle.h"
#include "rt_internal.h"

typedef struct hg_lifecycle_cb {
    aclRegisterCallbackType type;
    void (*fn)(void);  /* aclInitCallbackFunc or aclFinalizeCallbackFunc */
    void *user;
} hg_lifecycle_cb;

typedef struct hg_cb_list {
    hg_lifecycle_cb *items;
    size_t n, cap;
} hg_cb_list;

static pthread_mutex_t cb_mu = PTHREAD_MUTEX_INITIALIZER;
static hg_cb_list init_cbs, fini_cbs;
static char *init_config;     /* the configuration text of the live aclInit, NULL when not live */
static size_t init_config_len;

static aclError cb_add(hg_cb_list *l, const char *func, aclRegisterCallbackType type, void (*fn)(void), void *user)
{
    if (type != ACL_REG_TYPE_OTHER) {
        for (size_t i = 0; i < l->n; ++i) {
            if (l->items[i].type == type) {
                hg_set_error(func, "a callback of type %d is already registered (one per type except "
                                   "ACL_REG_TYPE_OTHER)", (int)type);
                return ACL_ERROR_INTERNAL_ERROR;
            }
        }
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        hg_lifecycle_cb *items = realloc(l->items, cap * sizeof *items);
        if (!items) {
            hg_set_error(func, "out of host memory");
            return ACL_ERROR_BAD_ALLOC;
        }
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = (hg_lifecycle_cb){type, fn, user};
    return ACL_SUCCESS;
}

static aclError cb_remove(hg_cb_list *l, const char *func, aclRegisterCallbackType type, void (*fn)(void))
{
    for (size_t i = 0; i < l->n; ++i) {
        if (l->items[i].type == type && l->items[i].fn == fn) {
            memmove(&l->items[i], &l->items[i + 1], (l->n - i - 1) * sizeof l->items[0]);
            l->n--;
            return ACL_SUCCESS;
        }
    }
    hg_set_error(func, "cbFunc is not registered with type %d", (int)type);
    return ACL_ERROR_INTERNAL_ERROR;
}

/* The callbacks of one type, copied so they run without the lock. */
static size_t cb_snapshot(const hg_cb_list *l, aclRegisterCallbackType type, hg_lifecycle_cb **out)
{
    *out = NULL;
    size_t n = 0;
    for (size_t i = 0; i < l->n; ++i)
        n += l->items[i].type == type;
    if (!n || !(*out = malloc(n * sizeof **out)))
        return 0;
    n = 0;
    for (size_t i = 0; i < l->n; ++i)
        if (l->items[i].type == type)
            (*out)[n++] = l->items[i];
    return n;
}

static aclError run_type(bool init, aclRegisterCallbackType type, const char *config, size_t len)
{
    hg_lifecycle_cb *cbs;
    pthread_mutex_lock(&cb_mu);
    size_t n = cb_snapshot(init ? &init_cbs : &fini_cbs, type, &cbs);
    pthread_mutex_unlock(&cb_mu);
    aclError rc = ACL_SUCCESS;
    for (size_t i = 0; i < n && rc == ACL_SUCCESS; ++i) {
        if (init)
            rc = ((aclInitCallbackFunc)(void (*)(void))cbs[i].fn)(config, len, cbs[i].user);
        else
            rc = ((aclFinalizeCallbackFunc)(void (*)(void))cbs[i].fn)(cbs[i].user);
        if (rc != ACL_SUCCESS)
            hg_set_error(init ? "aclInit" : "aclFinalize", "the %s callback registered with type %d failed (%d)",
                         init ? "init" : "finalize", (int)type, (int)rc);
    }
    free(cbs);
    return rc;
}

aclError hg_run_init_callbacks(const char *config, size_t len)
{
    static const aclRegisterCallbackType order[] = {ACL_REG_TYPE_ACL_MODEL, ACL_REG_TYPE_ACL_OP_EXECUTOR,
                                                    ACL_REG_TYPE_ACL_DVPP, ACL_REG_TYPE_OTHER};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; ++i) {
        aclError rc = run_type(true, order[i], config, len);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

aclError hg_run_finalize_callbacks(void)
{
    static const aclRegisterCallbackType order[] = {ACL_REG_TYPE_ACL_OP_COMPILER, ACL_REG_TYPE_ACL_MODEL,
                                                    ACL_REG_TYPE_ACL_DVPP, ACL_REG_TYPE_OTHER};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; ++i) {
        aclError rc = run_type(false, order[i], NULL, 0);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

void hg_lifecycle_initialised(const char *config, size_t len)
{
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, config, len);
        copy[len] = '\0';
    }
    pthread_mutex_lock(&cb_mu);
    free(init_config);
    init_config = copy;
    init_config_len = copy ? len : 0;
    pthread_mutex_unlock(&cb_mu);
}

void hg_lifecycle_finalized(void)
{
    pthread_mutex_lock(&cb_mu);
    free(init_config);
    init_config = NULL;
    init_config_len = 0;
    pthread_mutex_unlock(&cb_mu);
}

ACL_FUNC_VISIBILITY aclError aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc,
                                                     void *userData)
{
    if (!cbFunc) {
        hg_set_error("aclInitCallbackRegister", "cbFunc is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&cb_mu);
    aclError rc = cb_add(&init_cbs, "aclInitCallbackRegister", type, (void (*)(void))cbFunc, userData);
    char *config = NULL;
    size_t len = 0;
    bool run_now = rc == ACL_SUCCESS && init_config != NULL;
    if (run_now && (config = malloc(init_config_len + 1)) != NULL) {
        memcpy(config, init_config, init_config_len + 1);
        len = init_config_len;
    }
    pthread_mutex_unlock(&cb_mu);
    if (run_now)
        (void)cbFunc(config ? config : "", len, userData); /* the runtime is up: run at once */
    free(config);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclInitCallbackUnRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc)
{
    if (!cbFunc) {
        hg_set_error("aclInitCallbackUnRegister", "cbFunc is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&cb_mu);
    aclError rc = cb_remove(&init_cbs, "aclInitCallbackUnRegister", type, (void (*)(void))cbFunc);
    pthread_mutex_unlock(&cb_mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type,
                                                         aclFinalizeCallbackFunc cbFunc, void *userData)
{
    if (!cbFunc) {
        hg_set_error("aclFinalizeCallbackRegister", "cbFunc is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&cb_mu);
    aclError rc = cb_add(&fini_cbs, "aclFinalizeCallbackRegister", type, (void (*)(void))cbFunc, userData);
    pthread_mutex_unlock(&cb_mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type,
                                                           aclFinalizeCallbackFunc cbFunc)
{
    if (!cbFunc) {
        hg_set_error("aclFinalizeCallbackUnRegister", "cbFunc is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    pthread_mutex_lock(&cb_mu);
    aclError rc = cb_remove(&fini_cbs, "aclFinalizeCallbackUnRegister", type, (void (*)(void))cbFunc);
    pthread_mutex_unlock(&cb_mu);
    return rc;
}
