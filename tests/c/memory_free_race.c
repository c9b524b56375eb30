/* A free from one thread while another copies or sets the same memory: the free waits for
 * the synchronous copy or set to finish (or the copy finds the memory gone and fails
 * cleanly); it never pulls the memory from under a running copy.  Run under valgrind and
 * ThreadSanitizer by tests/test_runtime_memory_race.py. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#define SIZE ((size_t)8 << 20)

static void *g_dev;
static atomic_int g_started;

static void *freer(void *arg)
{
    (void)arg;
    while (!atomic_load(&g_started))
        ;
    aclError rc = aclrtFree(g_dev);
    if (rc != ACL_SUCCESS) {
        printf("FAIL aclrtFree = %d\n", (int)rc);
        exit(1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 40;
    char *host = malloc(SIZE);
    if (!host || aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        printf("FAIL setup\n");
        return 1;
    }
    int ok = 0, gone = 0;
    for (int r = 0; r < rounds; ++r) {
        if (aclrtMalloc(&g_dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
            printf("FAIL aclrtMalloc\n");
            return 1;
        }
        atomic_store(&g_started, 0);
        pthread_t t;
        pthread_create(&t, NULL, freer, NULL);
        atomic_store(&g_started, 1);
        aclError rc = (r & 1) ? aclrtMemset(g_dev, SIZE, r, SIZE)
                              : aclrtMemcpy(host, SIZE, g_dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST);
        if (rc == ACL_SUCCESS)
            ++ok;
        else if (rc == ACL_ERROR_RT_PARAM_INVALID)
            ++gone;                  /* the free came first: the copy refused the address */
        else {
            printf("FAIL copy = %d\n", (int)rc);
            return 1;
        }
        pthread_join(t, NULL);
    }
    aclrtResetDevice(0);
    aclFinalize();
    free(host);
    printf("rounds %d: %d copied, %d refused\nALL OK\n", rounds, ok, gone);
    return 0;
}
