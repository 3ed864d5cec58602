/*
 * The host spawns workers with close-on-exec descriptors; closing the rest
 * here is defence in depth: a descriptor of the host's that leaked into a
 * guest's process would let the guest reach past its isolation (CONTRACT
 * X2).
 */
#define _GNU_SOURCE /* prctl, syscall, dirfd */

#include "process_setup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apphost_wire.h"
#include "worker_exit.h"

/* Opens /dev/null on 0, 1 and 2 where closed, so that no later descriptor
 * (the guest's files) lands there and receives what is printed. */
static void guard_standard_descriptors(void)
{
    int fd;

    for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF && open("/dev/null", O_RDWR) != fd) {
            worker_fail(WORKER_EXIT_FAILURE, "cannot open /dev/null on a closed standard descriptor");
        }
    }
}

static void check_socket(void)
{
    struct stat status;
    int type = 0;
    socklen_t length = sizeof type;

    if (fstat(APPHOST_WIRE_WORKER_FD, &status) != 0 || !S_ISSOCK(status.st_mode) ||
        getsockopt(APPHOST_WIRE_WORKER_FD, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) {
        worker_fail(WORKER_EXIT_USAGE,
                    "file descriptor 3 is not a stream socket: apphost starts this program with its end of a "
                    "socketpair there");
    }
}

/* Closes what /proc lists: for kernels before 5.9, without close_range. */
static void close_listed_descriptors(void)
{
    DIR *listing = opendir("/proc/self/fd");
    struct dirent *entry;

    if (listing == NULL) {
        worker_fail(WORKER_EXIT_FAILURE, "cannot list /proc/self/fd to close inherited descriptors");
    }
    while ((entry = readdir(listing)) != NULL) {
        int fd = atoi(entry->d_name);

        if (fd > APPHOST_WIRE_WORKER_FD && fd != dirfd(listing)) {
            close(fd);
        }
    }
    closedir(listing);
}

static void close_inherited_descriptors(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, APPHOST_WIRE_WORKER_FD + 1, ~0U, 0) == 0) {
        return;
    }
#endif
    close_listed_descriptors();
}

void process_setup(void)
{
    guard_standard_descriptors();
    check_socket();
    /* A program the guest starts must not hold the socket open after the
     * worker died, or the host would not see it go. */
    if (fcntl(APPHOST_WIRE_WORKER_FD, F_SETFD, FD_CLOEXEC) != 0) {
        worker_fail(WORKER_EXIT_FAILURE, "cannot make the socket close-on-exec");
    }
    close_inherited_descriptors();
    prctl(PR_SET_NAME, "apphost-worker", 0, 0, 0);
    /* Neither the guest nor anything it runs may gain privileges (setuid
     * programs, file capabilities). */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        worker_fail(WORKER_EXIT_FAILURE, "cannot set no_new_privs");
    }
    /* A worker outlives no host: when the host dies, even by SIGKILL, the
     * kernel kills it, frozen or not. If the host is already gone (we were
     * reparented before the request took effect), leave now. */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() == 1) {
        _exit(WORKER_EXIT_FAILURE);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
}
