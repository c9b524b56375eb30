/* A free from one thread while another copies or sets the same memory: the freeing thread
 * waits until the copy is running on the block (hgQueryAllocation's busy count), then frees;
 * the free must wait for the synchronous copy or set to finish, never pull the memory from
 * under it.  Run natively, under valgrind and ThreadSanitizer by
 * tests/test_runtime_memory_race.py. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "pyacl_hardgrad/embedded.h"

#define SIZE ((size_t)8 << 20)

static void *g_dev;
static atomic_int g_started;

static void *freer(void *arg)
{
    int *overlapped = arg;
    while (!atomic_load(&g_started))
        ;
    /* wait (up to ~2 s) until the copy holds the block, so the free lands mid-copy */
    hgAllocation info;
    for (long spins = 0; spins < 2000000; ++spins) {
        if (hgQueryAllocation(g_dev, &info) == ACL_SUCCESS && info.busy > 0) {
            *overlapped = 1;
            break;
        }
    }
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
    int ok = 0, overlaps = 0;
    for (int r = 0; r < rounds; ++r) {
        if (aclrtMalloc(&g_dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
            printf("FAIL aclrtMalloc\n");
            return 1;
        }
        atomic_store(&g_started, 0);
        int overlapped = 0;
        pthread_t t;
        pthread_create(&t, NULL, freer, &overlapped);
        atomic_store(&g_started, 1);
        aclError rc = (r & 1) ? aclrtMemset(g_dev, SIZE, r, SIZE)
                              : aclrtMemcpy(host, SIZE, g_dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST);
        pthread_join(t, NULL);
        if (rc != ACL_SUCCESS) {
            printf("FAIL round %d: copy = %d\n", r, (int)rc);
            return 1;
        }
        ++ok;
        overlaps += overlapped;
    }
    aclrtResetDevice(0);
    aclFinalize();
    free(host);
    printf("rounds %d: %d copied, %d with the free issued mid-copy\nALL OK\n", rounds, ok, overlaps);
    return 0;
}
