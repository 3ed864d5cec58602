/*
 * A guest without the network entitlement has no network: its worker lives
 * in a network namespace where not even the loopback interface is up, so
 * that no packet leaves it or reaches it, and the call filter refuses
 * socket() of a network family besides (call_filter.c), which tells the
 * operator what was missing.
 *
 * Under a root host, workers share one such namespace, the spawner's: a
 * namespace of one's own costs 0.32 ms of a launch (unshare, median of 300
 * on the 2-core VM), joining one 5 us. Sharing it gives a guest nothing of
 * another's: no interface can come up without CAP_NET_ADMIN, which a worker
 * under a user of its own lacks, and abstract UNIX sockets, which the
 * namespace scopes, Landlock keeps within each worker (landlock_layer.c).
 * A worker the host spawned itself, or one under a host that is not root,
 * makes a namespace of its own; where not root, inside a user namespace of
 * its own, which maps only its own user and whose capabilities it drops.
 */
#define _GNU_SOURCE /* unshare, setns, CLONE_NEW* */

#include "network_cut.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apphost_wire.h"

/* The host's network namespace, kept by the spawner; -1 when it shares it. */
static int g_host_network = -1;

/* Whether this process's network namespace is not its parent's (the
 * host's, as workers are its children). */
static bool outside_host_network(void)
{
    char parent[64];
    struct stat own, host;

    snprintf(parent, sizeof parent, "/proc/%ld/ns/net", (long)getppid());
    return stat("/proc/self/ns/net", &own) == 0 && stat(parent, &host) == 0 &&
           (own.st_ino != host.st_ino || own.st_dev != host.st_dev);
}

static bool write_file(const char *path, const char *text, char *error, size_t error_size)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t length = (ssize_t)strlen(text);
    bool written = fd >= 0 && write(fd, text, (size_t)length) == length;

    if (!written) {
        snprintf(error, error_size, "cannot write %s: %s", path, strerror(errno));
    }
    if (fd >= 0) {
        close(fd);
    }
    return written;
}

/* A user namespace of our own, mapping our user and group to themselves,
 * with a network namespace in it; then none of the capabilities the new
 * user namespace gave us. */
static bool enter_own_user_namespace(char *error, size_t error_size)
{
    char map[64];
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
    unsigned long user = (unsigned long)geteuid(), group = (unsigned long)getegid();

    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        snprintf(error, error_size, "cannot make a network namespace: %s", strerror(errno));
        return false;
    }
    snprintf(map, sizeof map, "%lu %lu 1\n", user, user);
    if (!write_file("/proc/self/uid_map", map, error, error_size) ||
        !write_file("/proc/self/setgroups", "deny", error, error_size)) {
        return false;
    }
    snprintf(map, sizeof map, "%lu %lu 1\n", group, group);
    if (!write_file("/proc/self/gid_map", map, error, error_size)) {
        return false;
    }
    memset(none, 0, sizeof none);
    if (syscall(SYS_capset, &header, none) != 0) {
        snprintf(error, error_size, "cannot drop the user namespace's capabilities: %s", strerror(errno));
        return false;
    }
    return true;
}

bool network_cut(char *error, size_t error_size)
{
    if (outside_host_network()) {
        return true;
    }
    if (geteuid() == 0) {
        if (unshare(CLONE_NEWNET) != 0) {
            snprintf(error, error_size, "cannot make a network namespace: %s", strerror(errno));
            return false;
        }
        return true;
    }
    return enter_own_user_namespace(error, error_size);
}

void network_cut_spawner(void)
{
    int host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

    if (host < 0) {
        return;
    }
    if (geteuid() != 0 || unshare(CLONE_NEWNET) != 0) {
        close(host);
        return;
    }
    g_host_network = host;
}

/* Whether `environment` holds APPHOST_WORKER_SANDBOX with the network part. */
static bool asks_for_cut(char *const environment[])
{
    static const char variable[] = APPHOST_WORKER_SANDBOX_VARIABLE "=";
    static const char part[] = APPHOST_SANDBOX_NETWORK;
    const size_t part_length = sizeof part - 1;

    for (size_t index = 0; environment[index] != NULL; index++) {
        const char *parts = environment[index];

        if (strncmp(parts, variable, sizeof variable - 1) != 0) {
            continue;
        }
        parts += sizeof variable - 1;
        while (*parts != '\0') {
            const char *end = strchr(parts, ',');
            size_t length = end != NULL ? (size_t)(end - parts) : strlen(parts);

            if (length == part_length && strncmp(parts, part, length) == 0) {
                return true;
            }
            parts += length + (end != NULL ? 1 : 0);
        }
    }
    return false;
}

bool network_cut_restore_for(char *const environment[])
{
    return g_host_network < 0 || asks_for_cut(environment) || setns(g_host_network, CLONE_NEWNET) == 0;
}
