/*
 * apphost-worker --spawner: starts workers for a host that holds thousands of
 * descriptors, from a process that holds almost none (apphost_spawner.h).
 *
 * Each worker is made with clone(CLONE_PARENT), so that it is the host's
 * child, not ours: the host reaps it, and it dies with the host's spawning
 * thread as a worker the host spawned itself does. Between the clone and the
 * exec the child calls only what is safe after a fork. An exec that fails is
 * reported through a close-on-exec pipe: end of file means the exec took
 * place. The spawner lives in an empty network namespace, which its workers
 * share unless they have the network entitlement (network_cut.h).
 */
#define _GNU_SOURCE /* pipe2, syscall, CLONE_PARENT */

#include "spawner.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apphost_spawner.h"
#include "apphost_wire.h"
#include "network_cut.h"
#include "process_setup.h"
#include "worker_exit.h"

enum { MAX_DESCRIPTORS = 3 };

/* A request as received: its strings point into the receive buffer. */
struct request {
    const char *path;
    char **arguments;   /* argument_count, then NULL */
    char **environment; /* environment_count, then NULL */
    int descriptors[MAX_DESCRIPTORS];
    int descriptor_count;
};

static void check_socket(void)
{
    if (!process_is_socket(APPHOST_SPAWNER_FD, SOCK_SEQPACKET)) {
        worker_fail(WORKER_EXIT_USAGE, "file descriptor 3 is not a seqpacket socket: apphost starts the spawner "
                                       "with its end of a socketpair there");
    }
}

/* The child, until its exec: never returns. */
static _Noreturn void become_worker(const struct request *request, int error_pipe)
{
    int error;

    /* A group of its own, as the host's own spawn gives it (WorkerProcess). */
    if (setpgid(0, 0) != 0 || dup2(request->descriptors[0], APPHOST_WIRE_WORKER_FD) < 0 ||
        !network_cut_restore_for(request->environment)) {
        goto failed;
    }
    if (request->descriptor_count == MAX_DESCRIPTORS &&
        (dup2(request->descriptors[1], STDOUT_FILENO) < 0 || dup2(request->descriptors[2], STDERR_FILENO) < 0)) {
        goto failed;
    }
    /* Every other descriptor is close-on-exec: the received ones, the pipe. */
    execve(request->path, request->arguments, request->environment);
failed:
    error = errno;
    (void)!write(error_pipe, &error, sizeof error);
    _exit(127);
}

static struct apphost_spawn_reply spawn(const struct request *request)
{
    struct apphost_spawn_reply reply = {-1, 0};
    int errors[2];
    int error = 0;
    ssize_t got;
    long pid;

    if (pipe2(errors, O_CLOEXEC) != 0) {
        reply.error = errno;
        return reply;
    }
    /* Like fork, but the child's parent is ours: the host. */
    pid = syscall(SYS_clone, (unsigned long)CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0) {
        close(errors[0]);
        become_worker(request, errors[1]);
    }
    close(errors[1]);
    if (pid < 0) {
        reply.error = errno;
    } else {
        reply.pid = (int32_t)pid;
        do {
            got = read(errors[0], &error, sizeof error);
        } while (got < 0 && errno == EINTR);
        if (got == (ssize_t)sizeof error) {
            reply.error = error;
        }
    }
    close(errors[0]);
    return reply;
}

/* Points `strings` at the next `count` NUL-terminated strings of
 * [*cursor, end), then NULL; 0 when they are not all there. */
static int take_strings(char **cursor, const char *end, char **strings, uint32_t count)
{
    uint32_t index;

    for (index = 0; index < count; index++) {
        char *nul = memchr(*cursor, '\0', (size_t)(end - *cursor));

        if (nul == NULL) {
            return 0;
        }
        strings[index] = *cursor;
        *cursor = nul + 1;
    }
    strings[count] = NULL;
    return 1;
}

/* Parses `length` bytes of `buffer`; the string arrays come from malloc.
 * 0 when the request is malformed. */
static int parse(char *buffer, size_t length, struct request *request)
{
    struct apphost_spawn_request header;
    char *cursor = buffer + sizeof header;
    const char *end = buffer + length;
    char *path[2];

    if (length < sizeof header || request->descriptor_count < 1 || request->descriptor_count == 2) {
        return 0;
    }
    memcpy(&header, buffer, sizeof header);
    /* Every string takes a byte at least: counts beyond that cannot be right. */
    if (header.argument_count < 1 || header.argument_count > length || header.environment_count > length) {
        return 0;
    }
    request->arguments = calloc((size_t)header.argument_count + 1, sizeof(char *));
    request->environment = calloc((size_t)header.environment_count + 1, sizeof(char *));
    if (request->arguments == NULL || request->environment == NULL || !take_strings(&cursor, end, path, 1) ||
        !take_strings(&cursor, end, request->arguments, header.argument_count) ||
        !take_strings(&cursor, end, request->environment, header.environment_count) || cursor != end) {
        return 0;
    }
    request->path = path[0];
    return 1;
}

/* Receives one request into `buffer`: its length, 0 at end of file. */
static ssize_t receive(char *buffer, struct request *request)
{
    struct iovec data = {buffer, APPHOST_SPAWNER_MAX_REQUEST};
    union {
        struct cmsghdr align;
        char space[CMSG_SPACE(sizeof(int) * MAX_DESCRIPTORS)];
    } control;
    struct msghdr message = {0};
    struct cmsghdr *header;
    ssize_t got;

    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    do {
        got = recvmsg(APPHOST_SPAWNER_FD, &message, MSG_CMSG_CLOEXEC);
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
        worker_fail(WORKER_EXIT_FAILURE, "spawner: recvmsg: %s", strerror(errno));
    }
    request->descriptor_count = 0;
    for (header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        size_t count;
        size_t index;

        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) {
            continue;
        }
        count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (index = 0; index < count; index++) {
            int descriptor;

            memcpy(&descriptor, CMSG_DATA(header) + index * sizeof(int), sizeof descriptor);
            if (request->descriptor_count < MAX_DESCRIPTORS) {
                request->descriptors[request->descriptor_count++] = descriptor;
            } else {
                close(descriptor);
                request->descriptor_count = MAX_DESCRIPTORS + 1; /* malformed */
            }
        }
    }
    if (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        request->descriptor_count = MAX_DESCRIPTORS + 1; /* malformed */
    }
    return got;
}

_Noreturn void spawner_serve(void)
{
    pid_t host = getppid();
    char *buffer;

    check_socket();
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != host) {
        _exit(WORKER_EXIT_FAILURE);
    }
    prctl(PR_SET_NAME, "apphost-spawner", 0, 0, 0);
    network_cut_spawner();
    buffer = malloc(APPHOST_SPAWNER_MAX_REQUEST);
    if (buffer == NULL) {
        worker_fail(WORKER_EXIT_FAILURE, "spawner: out of memory");
    }
    for (;;) {
        struct request request = {0};
        struct apphost_spawn_reply reply = {-1, EINVAL};
        ssize_t length = receive(buffer, &request);
        int index;

        if (length == 0) {
            worker_exit_now(WORKER_EXIT_OK);
        }
        if (request.descriptor_count <= MAX_DESCRIPTORS && parse(buffer, (size_t)length, &request)) {
            reply = spawn(&request);
        }
        for (index = 0; index < request.descriptor_count && index < MAX_DESCRIPTORS; index++) {
            close(request.descriptors[index]);
        }
        free(request.arguments);
        free(request.environment);
        if (send(APPHOST_SPAWNER_FD, &reply, sizeof reply, MSG_NOSIGNAL) != (ssize_t)sizeof reply) {
            worker_exit_now(WORKER_EXIT_OK); /* the host is gone */
        }
    }
}
