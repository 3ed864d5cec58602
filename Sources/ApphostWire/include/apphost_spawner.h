/*
 * The worker spawner's protocol: how the host asks `apphost-worker --spawner`
 * to start a worker.
 *
 * Why. A child starts with a copy of its parent's descriptor table, and
 * closes it again at exec; a host of thousands of workers holds four or five
 * descriptors for each, so that spawning from the host costs time in
 * proportion to the guests already running, and launching n guests costs
 * n squared. The spawner is a small process the host starts once, holding
 * almost no descriptors, that starts each worker for it with
 * clone(CLONE_PARENT): the worker is the host's child (the host waits for it,
 * signals it and opens its pidfd as before) but copies the spawner's table.
 *
 * The host starts the spawner with its end of a SOCK_SEQPACKET socketpair on
 * file descriptor 3 (APPHOST_SPAWNER_FD), stdin from /dev/null, the host's
 * stdout and stderr, and default signal actions. Each request is one
 * message:
 *
 *     struct apphost_spawn_request   the counts below
 *     char  strings[]                the executable's path, then
 *                                    argument_count arguments, then
 *                                    environment_count "NAME=value" strings,
 *                                    each NUL-terminated, nothing after
 *
 * with 1 or 3 descriptors in one SCM_RIGHTS message: the worker's socket end,
 * then optionally its stdout and its stderr. The spawner starts a process
 * with the socket on APPHOST_WIRE_WORKER_FD (and the others on 1 and 2, else
 * its own, the host's), stdin from /dev/null, in a process group of its own,
 * no other descriptor, and execs the executable; it answers with one
 * struct apphost_spawn_reply once the exec succeeded or failed. Requests are
 * handled one at a time, in order. The spawner exits when the host closes its
 * end, and the kernel kills it when the host dies.
 */
#ifndef APPHOST_SPAWNER_H
#define APPHOST_SPAWNER_H

#include <stdint.h>

/* The argument that makes apphost-worker a spawner. */
#define APPHOST_SPAWNER_ARGUMENT "--spawner"

enum {
    /* The spawner's end of its socket. */
    APPHOST_SPAWNER_FD = 3,
    /* The largest request, strings included. */
    APPHOST_SPAWNER_MAX_REQUEST = 131072
};

struct apphost_spawn_request {
    uint32_t argument_count;
    uint32_t environment_count;
};

struct apphost_spawn_reply {
    /* The new process, or -1 when none was made. A process whose exec
     * failed has exited (status 127): the host reaps it. */
    int32_t pid;
    /* 0, or the errno of the clone or of the exec. EINVAL: a malformed
     * request. */
    int32_t error;
};

#endif
