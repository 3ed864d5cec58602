/*
 * The baselines of the wake-to-render benchmark (RegionBenchmark.swift): a bare futex and a bare
 * eventfd wake of another process, with nothing of a session region around them. Swift cannot
 * call syscall(2) (variadic) nor use C11 atomics on shared memory, so the benchmark builds this
 * file with cc twice:
 *
 *   - with -shared, the host's side, called through dlsym: a shared page in a memfd, and one
 *     "kick" per round (publish the round's number, wake the partner) and the answer's load;
 *   - with -DWAKE_PARTNER_MAIN, the partner, a program spawned on the inherited fds:
 *
 *       wake_pingpong MEMFD futex|eventfd [EVENTFD]
 *
 *     It sleeps until the host publishes a round it has not answered (in FUTEX_WAIT on the
 *     request word, or in ppoll(2) on the eventfd as mix_region_wait does), stores the round in
 *     the answer word and FUTEX_WAKEs it (for a host that sleeps on it), until killed.
 *
 * The page: the request word (a futex word) on the first cache line, the answer word (a futex
 * word) on the second, each written by one side only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

enum { PAGE_BYTES = 4096 };

struct wake_page {
    _Atomic uint32_t request;
    char pad[60];
    _Atomic uint32_t answer;
};

static long futex(_Atomic uint32_t *word, int op, uint32_t value)
{
    return syscall(SYS_futex, (uint32_t *)word, op, value, NULL, NULL, 0);
}

#ifndef WAKE_PARTNER_MAIN

/* A new shared page in a memfd (MFD_CLOEXEC; the partner inherits it by dup2 onto itself), its
 * words 0. NULL when memfd_create, ftruncate or mmap failed. */
EXPORT void *apphost_bench_wake_page(int *memfd)
{
    int fd = memfd_create("apphost-bench-wake", MFD_CLOEXEC);
    void *page;

    if (fd < 0) {
        return NULL;
    }
    if (ftruncate(fd, PAGE_BYTES) != 0) {
        close(fd);
        return NULL;
    }
    page = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (page == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    *memfd = fd;
    return page;
}

/* An eventfd as the session region makes its own: EFD_CLOEXEC | EFD_NONBLOCK. */
EXPORT int apphost_bench_wake_eventfd(void)
{
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

/* Publishes `round` and wakes the partner sleeping on the request word. */
EXPORT void apphost_bench_futex_kick(void *page, uint32_t round)
{
    struct wake_page *words = page;

    atomic_store_explicit(&words->request, round, memory_order_release);
    futex(&words->request, FUTEX_WAKE, 1);
}

/* Publishes `round` and wakes the partner by the eventfd, as mix_region_request does. */
EXPORT void apphost_bench_eventfd_kick(void *page, int eventfd, uint32_t round)
{
    struct wake_page *words = page;
    uint64_t one = 1;

    atomic_store_explicit(&words->request, round, memory_order_release);
    (void)!write(eventfd, &one, sizeof one);
}

/* The round the partner answered last. */
EXPORT uint32_t apphost_bench_answer(const void *page)
{
    const struct wake_page *words = page;

    return atomic_load_explicit(&words->answer, memory_order_acquire);
}

/* Sleeps on the answer word until it holds `round` (the classic ping-pong's other half): 1, or 0
 * when a second passed in one wait with no answer (the partner died). */
EXPORT int apphost_bench_futex_await(void *page, uint32_t round)
{
    struct wake_page *words = page;
    struct timespec second = { .tv_sec = 1 };

    for (;;) {
        uint32_t answer = atomic_load_explicit(&words->answer, memory_order_acquire);

        if (answer == round) {
            return 1;
        }
        if (syscall(SYS_futex, (uint32_t *)&words->answer, FUTEX_WAIT, answer, &second, NULL, 0) != 0
            && errno == ETIMEDOUT) {
            return 0;
        }
    }
}

#else

int main(int argc, char **argv)
{
    struct wake_page *words;
    int use_eventfd;
    int eventfd_fd = -1;
    uint32_t last = 0;

    if (argc < 3 || (strcmp(argv[2], "futex") != 0 && strcmp(argv[2], "eventfd") != 0)
        || (strcmp(argv[2], "eventfd") == 0 && argc != 4)) {
        fprintf(stderr, "usage: wake_pingpong MEMFD futex|eventfd [EVENTFD]\n");
        return 2;
    }
    words = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, atoi(argv[1]), 0);
    if (words == MAP_FAILED) {
        fprintf(stderr, "wake_pingpong: mmap: %s\n", strerror(errno));
        return 2;
    }
    use_eventfd = strcmp(argv[2], "eventfd") == 0;
    if (use_eventfd) {
        eventfd_fd = atoi(argv[3]);
    }
    for (;;) {
        uint32_t request = atomic_load_explicit(&words->request, memory_order_acquire);

        if (request == last) {
            if (use_eventfd) {
                struct pollfd wake = { .fd = eventfd_fd, .events = POLLIN };
                uint64_t count;

                if (ppoll(&wake, 1, NULL, NULL) > 0) {
                    (void)!read(eventfd_fd, &count, sizeof count);
                }
            } else {
                futex(&words->request, FUTEX_WAIT, last);
            }
            continue;
        }
        last = request;
        atomic_store_explicit(&words->answer, request, memory_order_release);
        futex(&words->answer, FUTEX_WAKE, 1);
    }
}

#endif
