/* aclrtDestroyStream while another thread synchronizes the same stream: the synchronize
 * either waits for the stream's work (returns 0 with the work done) or, when the destroy
 * completed first, reports the handle as gone (107017) — it never returns 0 early. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "acl/acl.h"

typedef void (*hg_task_fn)(void *arg);
extern aclError hg_stream_submit(aclrtStream stream, const char *caller, hg_task_fn fn, void *arg);

static atomic_int g_done;
static atomic_int g_go;
static aclrtStream g_stream;

static void slow_task(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    atomic_store(&g_done, 1);
}

static void *syncer(void *arg)
{
    int *result = arg;
    aclrtSetDevice(0);
    while (!atomic_load(&g_go))
        ;
    aclError rc = aclrtSynchronizeStream(g_stream);
    int done = atomic_load(&g_done);
    *result = rc == ACL_SUCCESS ? (done ? 1 : -1) : (rc == ACL_ERROR_RT_INVALID_HANDLE ? 2 : -2);
    aclrtResetDevice(0);
    return NULL;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        printf("FAIL setup\n");
        return 1;
    }
    int waited = 0, gone = 0;
    for (int r = 0; r < rounds; ++r) {
        atomic_store(&g_done, 0);
        atomic_store(&g_go, 0);
        if (aclrtCreateStream(&g_stream) != ACL_SUCCESS ||
            hg_stream_submit(g_stream, "stream_destroy_race", slow_task, NULL) != ACL_SUCCESS) {
            printf("FAIL create/submit\n");
            return 1;
        }
        int result = 0;
        pthread_t t;
        pthread_create(&t, NULL, syncer, &result);
        atomic_store(&g_go, 1);
        aclError rc = aclrtDestroyStream(g_stream);
        pthread_join(t, NULL);
        if (rc != ACL_SUCCESS || !atomic_load(&g_done)) {
            printf("FAIL destroy = %d, work done = %d\n", (int)rc, atomic_load(&g_done));
            return 1;
        }
        if (result == 1)
            ++waited;
        else if (result == 2)
            ++gone;
        else {
            printf("FAIL round %d: synchronize %s\n", r, result == -1 ? "returned 0 before the work finished"
                                                                      : "failed with an unexpected code");
            return 1;
        }
    }
    aclrtResetDevice(0);
    aclFinalize();
    printf("rounds %d: %d waited, %d found the handle gone\nALL OK\n", rounds, waited, gone);
    return 0;
}
