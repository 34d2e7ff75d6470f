/* aliased_pages: CORRECT. One page of a memfd mapped at two addresses (the
 * "magic ring buffer" trick): what is stored through one view is what is
 * loaded through the other, at once, as on the CPU. A worker thread makes
 * the accesses visible operations that mdat carries out itself.
 * Prints "sum 2016 echo 2016 ring ok" and exits 0. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile uint32_t *view_a, *view_b;
static unsigned char *ring;     /* two views of one page, back to back */

static void *worker(void *arg)
{
    (void)arg;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 64; i++) {
        view_a[i] = i;          /* stored through one view ... */
        sum += view_b[i];       /* ... loaded through the other */
    }
    view_b[100] = sum;
    return (void *)(uintptr_t)view_a[100];
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    int fd = memfd_create("aliased", 0);
    if (fd < 0 || ftruncate(fd, page) != 0)
        return 2;
    view_a = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    view_b = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    /* The ring: reserve two pages, map the memfd's page at both. */
    ring = mmap(NULL, 2 * (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (view_a == MAP_FAILED || view_b == MAP_FAILED || ring == MAP_FAILED ||
        mmap(ring, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ||
        mmap(ring + page, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
        return 2;
    (void)view_b[0];            /* both views read before any store */
    (void)view_a[0];
    pthread_t t;
    void *echo;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, &echo);
    /* A message written across the end of the ring's first view comes out
     * whole at the start of the second. */
    const char msg[] = "ring ok";
    for (int i = 0; i < 8; i++)
        ring[page - 3 + i] = (unsigned char)msg[i];
    int ring_ok = 1;
    for (int i = 0; i < 8; i++)     /* ring[page + k] is ring[k] */
        ring_ok &= ring[(page - 3 + i) % page] == (unsigned char)msg[i];
    printf("sum %u echo %u %s\n", (unsigned)view_a[100], (unsigned)(uintptr_t)echo, ring_ok ? "ring ok" : "ring BAD");
    return ring_ok && view_a[100] == 2016 && (uintptr_t)echo == 2016 ? 0 : 1;
}
