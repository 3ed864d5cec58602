/*
 * The host spawns workers with close-on-exec descriptors; closing the rest
 * here is defence in depth: a descriptor of the host's that leaked into a
 * guest's process would let the guest reach past its isolation (CONTRACT
 * X2).
 *
 * A host that runs as root gives each worker a user of its own
 * (APPHOST_WORKER_USER): the worker takes it when LOAD arrives, once the
 * host has set its limits (which, for a process of another user, would take
 * CAP_SYS_RESOURCE) and before any of the guest's code runs, so that the guest
 * may signal none of its host's processes nor another guest's.
 */
#define _GNU_SOURCE /* prctl, syscall, dirfd, setresuid, setresgid */

#include "process_setup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apphost_wire.h"
#include "realtime_limit.h"
#include "sandbox.h"
#include "worker_exit.h"

/* The host, as our parent when we started: a later parent means it died. */
static pid_t g_host;
/* Whether to take a user of our own at LOAD, its id and the group it shares
 * with the other workers. */
static int g_own_user;
static unsigned long g_user;
static unsigned long g_user_group;

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

int process_is_socket(int fd, int type)
{
    struct stat status;
    int actual = 0;
    socklen_t length = sizeof actual;

    return fstat(fd, &status) == 0 && S_ISSOCK(status.st_mode) &&
           getsockopt(fd, SOL_SOCKET, SO_TYPE, &actual, &length) == 0 && actual == type;
}

static void check_socket(void)
{
    if (!process_is_socket(APPHOST_WIRE_WORKER_FD, SOCK_STREAM)) {
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

/* A decimal id, neither 0 (root) nor (uid_t)-1; 0 when `text` is none. */
static unsigned long parse_id(const char *text, char **end)
{
    unsigned long value;

    errno = 0;
    value = strtoul(text, end, 10);
    if (errno != 0 || *end == text || value == 0 || value >= 0xFFFFFFFFUL) {
        return 0;
    }
    return value;
}

/* Reads and forgets APPHOST_WORKER_USER ("<uid>:<group>"), so that the guest
 * does not see it. A value that is not two usable ids is the host's mistake:
 * refuse to run rather than run as root. */
static void read_user(void)
{
    const char *text = getenv(APPHOST_WORKER_USER_VARIABLE);
    char *end = NULL;
    unsigned long user, group = 0;

    if (text == NULL) {
        return;
    }
    user = parse_id(text, &end);
    if (user != 0 && *end == ':') {
        group = parse_id(end + 1, &end);
    }
    if (user == 0 || group == 0 || *end != '\0') {
        worker_fail(WORKER_EXIT_USAGE, "%s=%s is not a usable user", APPHOST_WORKER_USER_VARIABLE, text);
    }
    g_own_user = 1;
    g_user = user;
    g_user_group = group;
    unsetenv(APPHOST_WORKER_USER_VARIABLE);
}

/* Asks the kernel to kill us when the host dies, even by SIGKILL, frozen or
 * not; leaves now if the host is already gone (we were reparented before the
 * request took effect). A change of user clears the request: called again
 * after one. */
static void die_with_host(void)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != g_host) {
        _exit(WORKER_EXIT_FAILURE);
    }
}

/* What the guest's audio thread needs to be real-time (CONTRACT C13), as
 * PipeWire's clients get it from rtkit: a bound on how long a real-time
 * thread may run without sleeping (an audio thread sleeps every period), past
 * which the kernel sends SIGXCPU, on which the worker puts that thread back
 * to ordinary scheduling (realtime_limit.c), so that a guest spinning at
 * real-time priority starves no one and lives on (SIGKILL at the hard limit,
 * should the guest take SIGXCPU's handler for its own); then, where
 * the worker may still raise it (CAP_SYS_RESOURCE, before it takes a user of
 * its own), SCHED_FIFO up to priority 60, below the host's mixer (70), so
 * that the audio thread can ask for it under any user. Where it may not, the
 * host makes the thread real-time itself once the runtime reports it
 * (AUDIO_THREAD, WorkerChannel). */
enum {
    GUEST_REALTIME_PRIORITY = 60,
    GUEST_REALTIME_SOFT_MICROSECONDS = 200000,
    GUEST_REALTIME_HARD_MICROSECONDS = 400000
};

static void grant_audio_realtime(void)
{
    struct rlimit priority = {GUEST_REALTIME_PRIORITY, GUEST_REALTIME_PRIORITY};
    struct rlimit runtime = {GUEST_REALTIME_SOFT_MICROSECONDS, GUEST_REALTIME_HARD_MICROSECONDS};

    /* The bound first: real-time priority never comes without it; and at the
     * bound, the thread loses it rather than the worker its life. */
    realtime_limit_watch();
    if (setrlimit(RLIMIT_RTTIME, &runtime) == 0) {
        (void)setrlimit(RLIMIT_RTPRIO, &priority);
    }
}

/* A guest's memory is its own: no core file of it lands where another may
 * read it, unless the host's operator asks (APPHOST_WORKER_CORE_DUMPS=1). */
static void forgo_core_dumps(void)
{
    const char *asked = getenv(APPHOST_WORKER_CORE_DUMPS_VARIABLE);
    struct rlimit none = {0, 0};

    if (asked == NULL || strcmp(asked, "1") != 0) {
        (void)setrlimit(RLIMIT_CORE, &none);
    }
    unsetenv(APPHOST_WORKER_CORE_DUMPS_VARIABLE);
}

void process_take_guest_user(void)
{
    uid_t user;
    gid_t shared;
    uid_t real, effective, saved;

    if (!g_own_user) {
        return;
    }
    user = (uid_t)g_user;
    shared = (gid_t)g_user_group;
    /* Groups first, while we may still change them: no supplementary group
     * of the host's, only the one that lets workers search the host's data
     * directory down to their own. */
    if (setgroups(1, &shared) != 0 || setresgid(user, user, user) != 0 || setresuid(user, user, user) != 0) {
        worker_fail(WORKER_EXIT_FAILURE, "cannot take the user %lu: %s", (unsigned long)user, strerror(errno));
    }
    if (getresuid(&real, &effective, &saved) != 0 || real != user || effective != user || saved != user ||
        setuid(0) == 0) {
        worker_fail(WORKER_EXIT_FAILURE, "the user %lu did not stick", (unsigned long)user);
    }
    /* A change of user makes the process undumpable, which would give its
     * /proc files to root and drop its core dumps: it holds nothing of the
     * host's, so it is an ordinary process of its user again. */
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    die_with_host();
}

void process_setup(void)
{
    g_host = getppid();
    guard_standard_descriptors();
    read_user();
    sandbox_read_policy();
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
    /* A worker outlives no host. */
    die_with_host();
    grant_audio_realtime();
    forgo_core_dumps();
    setvbuf(stdout, NULL, _IOLBF, 0);
}
