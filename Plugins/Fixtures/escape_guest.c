/*
 * A hostile guest: from did_finish_launching it tries to leave its container
 * (CONTRACT X6, X7) in every way listed in `escapes` below, and logs each
 * outcome as "escape <name>: refused <errno name>" or "escape <name>:
 * ESCAPED", then "escapes done <count>". Nothing it tries may succeed.
 *
 * What it aims at comes from the file "targets" in its data directory, which
 * the test writes once the host and a sibling guest run, one "<key> <value>"
 * a line: host (the host's pid), sibling (another guest's worker pid),
 * sibling_directory (that guest's data directory), host_directory (the
 * host's data directory), control_socket (the host's control socket),
 * tcp_port and udp_port (a TCP listener and a UDP socket of the test's on
 * 127.0.0.1), granted (a directory the operator granted it, holding
 * shared.txt). With no such file it logs "no targets" and tries nothing.
 *
 * -DFIXTURE_NETWORK=1 makes it declare the network entitlement (CONTRACT
 * A6): its network attempts must then succeed, and it sends "escape" to
 * both ports, and every other attempt must still fail.
 *
 * Its fork bomb (children that sleep a second and exit) is stopped by the
 * host's --processes-limit: a test without one must not run it.
 *
 * A successful escape is undone where it can be (a file it made), but the
 * point is that none succeeds: a kill of the host or the sibling that got
 * through would end them, and the test would see it.
 */
#define _GNU_SOURCE /* syscall, unshare, setns, clone flags, process_vm_readv */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.apphost.fixtures.escape"
#endif
#ifndef FIXTURE_NETWORK
#define FIXTURE_NETWORK 0
#endif

static const apphost_host_t *g_host;

static struct targets {
    pid_t host;
    pid_t sibling;
    char sibling_directory[512];
    char host_directory[512];
    char control_socket[100];
    char data_directory[512];
    int tcp_port;
    int udp_port;
    char granted[512];
} g_targets;

static int g_count;

static void say(const char *line) { g_host->log(g_host, APPHOST_LOG_INFO, line); }

static const char *errno_name(int error)
{
    switch (error) {
    case EPERM:
        return "EPERM";
    case EACCES:
        return "EACCES";
    case ENOENT:
        return "ENOENT";
    case EXDEV:
        return "EXDEV";
    case ENOSYS:
        return "ENOSYS";
    case EINVAL:
        return "EINVAL";
    case ESRCH:
        return "ESRCH";
    case EROFS:
        return "EROFS";
    case EAGAIN:
        return "EAGAIN";
    case ENETUNREACH:
        return "ENETUNREACH";
    case ECONNREFUSED:
        return "ECONNREFUSED";
    default:
        return "another errno";
    }
}

/* `result` is what the attempt returned, -1 with errno on refusal. */
static void outcome(const char *name, long result, int error)
{
    char line[256];

    g_count++;
    if (result < 0) {
        snprintf(line, sizeof line, "escape %s: refused %s", name, errno_name(error));
    } else {
        snprintf(line, sizeof line, "escape %s: ESCAPED", name);
    }
    say(line);
}

/* Opening `path` as `flags` must fail. */
static void try_open(const char *name, const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC, 0600);
    int error = errno;

    if (fd >= 0) {
        close(fd);
        if ((flags & O_CREAT) != 0) {
            unlink(path);
        }
    }
    outcome(name, fd, error);
}

static void try_list(const char *name, const char *path)
{
    DIR *listing = opendir(path);
    int error = errno;

    if (listing != NULL) {
        closedir(listing);
    }
    outcome(name, listing == NULL ? -1 : 0, error);
}

static void try_proc(const char *name, pid_t pid, const char *file)
{
    char path[64];

    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    try_open(name, path, O_RDONLY);
}

static void try_ptrace(const char *name, pid_t pid)
{
    long result = ptrace(PTRACE_ATTACH, pid, NULL, NULL);
    int error = errno;

    if (result == 0) {
        ptrace(PTRACE_DETACH, pid, NULL, NULL);
    }
    outcome(name, result, error);
}

static void try_read_memory(const char *name, pid_t pid)
{
    char buffer[16];
    struct iovec local = {buffer, sizeof buffer};
    /* Any address: the call is refused before it is read. */
    struct iovec remote = {(void *)0x400000, sizeof buffer};
    long result = process_vm_readv(pid, &local, 1, &remote, 1, 0);

    outcome(name, result, errno);
}

static void try_kill(const char *name, pid_t pid, int signal)
{
    long result = kill(pid, signal);

    outcome(name, result, errno);
}

static void try_syscall(const char *name, long result) { outcome(name, result, errno); }

static void try_connect_control_socket(void)
{
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int error = errno;
    long result = fd;

    if (fd >= 0) {
        snprintf(address.sun_path, sizeof address.sun_path, "%s", g_targets.control_socket);
        result = connect(fd, (struct sockaddr *)&address, sizeof address);
        error = errno;
        close(fd);
    }
    outcome("connecting to the host's control socket", result, error);
}

static void try_symlink_out(void)
{
    char link_path[600];
    int fd;
    int error;

    snprintf(link_path, sizeof link_path, "%s/passwd-link", g_targets.data_directory);
    unlink(link_path);
    if (symlink("/etc/passwd", link_path) != 0) {
        outcome("reading /etc/passwd through a symbolic link in its data directory", -1, errno);
        return;
    }
    fd = open(link_path, O_RDONLY | O_CLOEXEC);
    error = errno;
    if (fd >= 0) {
        close(fd);
    }
    unlink(link_path);
    outcome("reading /etc/passwd through a symbolic link in its data directory", fd, error);
}

static void try_hard_link_in(void)
{
    char link_path[600];
    long result;

    snprintf(link_path, sizeof link_path, "%s/passwd-hard", g_targets.data_directory);
    result = link("/etc/passwd", link_path);
    if (result == 0) {
        unlink(link_path);
    }
    outcome("linking /etc/passwd into its data directory", result, errno);
}

static void try_exec(void)
{
    int channel[2];
    pid_t child;
    int error = 0;

    if (pipe2(channel, O_CLOEXEC) != 0) {
        outcome("running /bin/sh", -1, errno);
        return;
    }
    child = fork();
    if (child == 0) {
        char *argv[] = {"sh", "-c", "true", NULL};

        execv("/bin/sh", argv);
        error = errno;
        (void)!write(channel[1], &error, sizeof error);
        _exit(127);
    }
    close(channel[1]);
    if (child < 0 || read(channel[0], &error, sizeof error) != (ssize_t)sizeof error) {
        /* Nothing came back: the exec succeeded (or fork failed). */
        error = child < 0 ? errno : 0;
    }
    close(channel[0]);
    if (child > 0) {
        waitpid(child, NULL, 0);
    }
    outcome("running /bin/sh", error == 0 ? 0 : -1, error);
}

static void try_pidfd_getfd(void)
{
    long pidfd = syscall(SYS_pidfd_open, g_targets.host, 0);
    int error = errno;

    if (pidfd >= 0) {
        long fd = syscall(SYS_pidfd_getfd, (int)pidfd, 0, 0);

        error = errno;
        close((int)pidfd);
        if (fd >= 0) {
            close((int)fd);
        }
        pidfd = fd;
    }
    outcome("taking a descriptor of the host's (pidfd_getfd)", pidfd, error);
}

/* A socket of `family` and `type`, closed at once. */
static void try_socket(const char *name, int family, int type)
{
    int fd = socket(family, type, 0);

    outcome(name, fd, errno);
    if (fd >= 0) {
        close(fd);
    }
}

/* Sends "escape" to `port` on 127.0.0.1 over `type` (a TCP connection, or a
 * UDP datagram). */
static void try_loopback(const char *name, int type, int port)
{
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, type, 0);
    long result = fd;
    int error = errno;

    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0) {
        result = connect(fd, (struct sockaddr *)&address, sizeof address);
        if (result == 0) {
            result = send(fd, "escape", 6, MSG_NOSIGNAL);
        }
        error = errno;
        close(fd);
    }
    outcome(name, result, error);
}

/* Forks until fork fails; the children sleep a second and exit, reaped by
 * the kernel. */
static void try_fork_bomb(void)
{
    int error = 0;
    long result = 0;

    signal(SIGCHLD, SIG_IGN);
    for (int forked = 0; forked < 4096; forked++) {
        pid_t child = fork();

        if (child == 0) {
            sleep(1);
            _exit(0);
        }
        if (child < 0) {
            error = errno;
            result = -1;
            break;
        }
    }
    signal(SIGCHLD, SIG_DFL);
    outcome("a fork bomb", result, error);
}

static void escapes(void)
{
    char path[600];
    char line[64];

    /* The file system (Landlock). */
    try_open("reading /etc/shadow", "/etc/shadow", O_RDONLY);
    try_open("reading /etc/passwd", "/etc/passwd", O_RDONLY);
    try_list("listing /home", "/home");
    try_list("listing /tmp", "/tmp");
    try_open("writing in /tmp", "/tmp/apphost-escaped", O_WRONLY | O_CREAT | O_EXCL);
    try_list("listing another guest's data directory", g_targets.sibling_directory);
    snprintf(path, sizeof path, "%s/escaped", g_targets.sibling_directory);
    try_open("writing in another guest's data directory", path, O_WRONLY | O_CREAT | O_EXCL);
    try_list("listing the host's data directory", g_targets.host_directory);
    snprintf(path, sizeof path, "%s/escaped", g_targets.host_directory);
    try_open("writing in the host's data directory", path, O_WRONLY | O_CREAT | O_EXCL);
    snprintf(path, sizeof path, "%s/../escaped", g_targets.data_directory);
    try_open("writing beside its data directory", path, O_WRONLY | O_CREAT | O_EXCL);
    try_open("reading the kernel's log (/dev/kmsg)", "/dev/kmsg", O_RDONLY);
    try_list("listing /sys/class/net", "/sys/class/net");
    try_symlink_out();
    try_hard_link_in();
    try_exec();

    /* Other processes' /proc (Landlock, and its ptrace rules). */
    try_proc("reading the host's memory (/proc/<host>/mem)", g_targets.host, "mem");
    try_proc("reading the host's environment (/proc/<host>/environ)", g_targets.host, "environ");
    try_proc("reading the host's memory map (/proc/<host>/maps)", g_targets.host, "maps");
    snprintf(path, sizeof path, "/proc/%d/fd", (int)g_targets.host);
    try_list("listing the host's descriptors (/proc/<host>/fd)", path);
    try_proc("reading another guest's memory (/proc/<sibling>/mem)", g_targets.sibling, "mem");
    try_proc("reading init's environment (/proc/1/environ)", 1, "environ");

    /* Tracing, memory and signals (the call filter). */
    try_ptrace("tracing the host (ptrace)", g_targets.host);
    try_ptrace("tracing another guest (ptrace)", g_targets.sibling);
    try_read_memory("reading the host's memory (process_vm_readv)", g_targets.host);
    try_read_memory("reading another guest's memory (process_vm_readv)", g_targets.sibling);
    try_pidfd_getfd();
    try_kill("stopping the host (SIGTERM)", g_targets.host, SIGTERM);
    try_kill("killing another guest (SIGKILL)", g_targets.sibling, SIGKILL);
    try_kill("killing its parent, the host or its spawner (SIGKILL)", getppid(), SIGKILL);
    try_kill("killing every process it may (kill -1)", -1, SIGKILL);
    try_syscall("stopping the host with tgkill",
                syscall(SYS_tgkill, g_targets.host, g_targets.host, SIGTERM));
    try_connect_control_socket();

    /* The kernel's surfaces (the call filter). */
    try_syscall("mounting a tmpfs", mount("none", g_targets.data_directory, "tmpfs", 0, NULL));
    try_syscall("making a user namespace (unshare)", unshare(CLONE_NEWUSER));
    try_syscall("making a network namespace (unshare)", unshare(CLONE_NEWNET));
    try_syscall("making a user namespace (clone)", syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
    try_syscall("entering another namespace (setns)", setns(0, 0));
    try_syscall("joining a key ring (keyctl)", syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, 0));
    try_syscall("adding a key (add_key)", syscall(SYS_add_key, "user", "escape", "x", 1, -3));
    try_syscall("loading a BPF program (bpf)", syscall(SYS_bpf, 5 /* BPF_PROG_LOAD */, 0, 0));
    try_syscall("opening a performance counter", syscall(SYS_perf_event_open, 0, 0, -1, -1, 0));
    try_syscall("loading a kernel module", syscall(SYS_finit_module, 0, "", 0));
    try_syscall("loading a new kernel (kexec_load)", syscall(SYS_kexec_load, 0, 0, 0, 0));
    try_syscall("setting up io_uring", syscall(SYS_io_uring_setup, 1, 0));
    try_syscall("making a userfaultfd", syscall(SYS_userfaultfd, 0));
    try_syscall("changing its root (chroot)", chroot("/"));

    /* The network (the call filter and a network namespace; CONTRACT A6). */
    try_socket("opening a TCP socket", AF_INET, SOCK_STREAM);
    try_socket("opening a UDP socket", AF_INET, SOCK_DGRAM);
    try_socket("opening an IPv6 TCP socket", AF_INET6, SOCK_STREAM);
    try_socket("opening a packet socket", AF_PACKET, SOCK_RAW);
    try_loopback("connecting to a listener on the loopback", SOCK_STREAM, g_targets.tcp_port);
    try_loopback("sending a datagram on the loopback", SOCK_DGRAM, g_targets.udp_port);

    /* What the operator granted (--grant id:PATH:ro): reading it is no escape. */
    if (g_targets.granted[0] != '\0') {
        int fd;

        snprintf(path, sizeof path, "%s/shared.txt", g_targets.granted);
        fd = open(path, O_RDONLY);
        outcome("reading a granted file", fd, errno);
        if (fd >= 0) {
            close(fd);
        }
        snprintf(path, sizeof path, "%s/escaped", g_targets.granted);
        try_open("writing in a granted directory", path, O_WRONLY | O_CREAT | O_EXCL);
    }

    /* Limits (the host's --processes-limit). */
    try_fork_bomb();

    snprintf(line, sizeof line, "escapes done %d", g_count);
    say(line);
}

/* Reads "targets" from the data directory, whose path the host gave. */
static int read_targets(void)
{
    char path[600], key[64], value[512];
    FILE *file;

    const char *directory = g_host->data_directory != NULL ? g_host->data_directory(g_host) : NULL;

    if (directory == NULL) {
        return 0;
    }
    snprintf(g_targets.data_directory, sizeof g_targets.data_directory, "%s", directory);
    snprintf(path, sizeof path, "%s/targets", g_targets.data_directory);
    file = fopen(path, "r");
    if (file == NULL) {
        return 0;
    }
    while (fscanf(file, "%63s %511s", key, value) == 2) {
        if (strcmp(key, "host") == 0) {
            g_targets.host = (pid_t)atoi(value);
        } else if (strcmp(key, "sibling") == 0) {
            g_targets.sibling = (pid_t)atoi(value);
        } else if (strcmp(key, "sibling_directory") == 0) {
            snprintf(g_targets.sibling_directory, sizeof g_targets.sibling_directory, "%s", value);
        } else if (strcmp(key, "host_directory") == 0) {
            snprintf(g_targets.host_directory, sizeof g_targets.host_directory, "%s", value);
        } else if (strcmp(key, "granted") == 0) {
            snprintf(g_targets.granted, sizeof g_targets.granted, "%s", value);
        } else if (strcmp(key, "tcp_port") == 0) {
            g_targets.tcp_port = atoi(value);
        } else if (strcmp(key, "udp_port") == 0) {
            g_targets.udp_port = atoi(value);
        } else if (strcmp(key, "control_socket") == 0) {
            snprintf(g_targets.control_socket, sizeof g_targets.control_socket, "%.99s", value);
        }
    }
    fclose(file);
    return g_targets.host > 1 && g_targets.sibling > 1;
}

static apphost_status_t did_finish_launching(void)
{
    if (read_targets()) {
        escapes();
    } else {
        say("no targets");
    }
    return APPHOST_OK;
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, NULL, NULL,
};

static apphost_status_t init(const apphost_host_t *host)
{
    g_host = host;
    return APPHOST_OK;
}

static void deinit(void) {}

static const void *query(const char *interface_id)
{
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t), FIXTURE_ID, "Escape Fixture", "1.0.0", "apphost tests",
    "Tries to leave its container.", FIXTURE_NETWORK ? APPHOST_CAPABILITY_NETWORK : 0, NULL,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
