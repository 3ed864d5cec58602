/*
 * The container, in two Landlock layers, a call filter and, for a guest
 * without the network entitlement, a network namespace (network_cut.c).
 *
 * The first layer, at LOAD, must let the guest's constructors write its data
 * directory, whose name the host knows only once the guest's descriptor has
 * been read: it allows the whole guests directory. The second, at START,
 * allows only the guest's own. A layer binds the thread that enforces it and
 * the threads it starts later: a thread the guest started in a constructor
 * keeps the first (Landlock cannot yet restrict other threads). Under a
 * root host each guest's directory also belongs to a user of its own.
 *
 * What the loader and libc need, read-only: the system's library
 * directories, the guest's library and its RUNPATH, the loader's cache, the
 * time zone, the null and random devices, /proc and the CPU list; and what
 * the operator granted (APPHOST_WORKER_GRANTS). Nothing else: not /home, /etc, /tmp, nor another guest's directory or the host's.
 *
 * All of /proc, not /proc/self: libdispatch (every Swift guest) reads
 * /proc/<tid>/stat of each of its threads, which is no path beneath
 * /proc/<pid>, and traps when it cannot; and a rule on /proc/<pid> names an
 * inode that procfs replaces once memory pressure prunes its dentry. What
 * of another process's /proc is private (memory, environment, maps,
 * descriptors) stays out of reach: Landlock lets a process trace, and so
 * read those of, only processes of its own domain or nested ones. What
 * any user may read of another process (its command line, its status)
 * remains readable, as on any Linux system without hidepid.
 */
#define _GNU_SOURCE /* unsetenv */

#include "sandbox.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apphost_wire.h"
#include "call_filter.h"
#include "landlock_layer.h"
#include "library_directories.h"
#include "network_cut.h"
#include "worker_exit.h"

static bool g_filesystem;
static bool g_calls;
static bool g_network;
/* APPHOST_WORKER_GRANTS's paths, one per line, to read; NULL for none. */
static char *g_grants;
/* APPHOST_WORKER_CALL_FILTER's program; NULL to make the filter here. */
static char *g_call_filter;
/* From LOAD, for the layer of START. */
static char *g_library;

enum { ERROR_BYTES = 512 };

static char *take_variable(const char *name);

static const char *const system_libraries[] = {"/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64",
                                               "/usr/lib32", "/usr/local/lib"};

static const char *const system_files[] = {"/etc/ld.so.cache", "/etc/localtime", "/usr/share/zoneinfo",
                                           "/sys/devices/system/cpu", "/proc"};

static const char *const devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};

void sandbox_read_policy(void)
{
    const char *text = getenv(APPHOST_WORKER_SANDBOX_VARIABLE);
    char *copy, *saved = NULL;

    g_grants = take_variable(APPHOST_WORKER_GRANTS_VARIABLE);
    g_call_filter = take_variable(APPHOST_WORKER_CALL_FILTER_VARIABLE);
    if (text == NULL) {
        return;
    }
    copy = strdup(text);
    if (copy == NULL) {
        worker_fail(WORKER_EXIT_FAILURE, "out of memory");
    }
    for (char *part = strtok_r(copy, ",", &saved); part != NULL; part = strtok_r(NULL, ",", &saved)) {
        if (strcmp(part, APPHOST_SANDBOX_FILESYSTEM) == 0) {
            g_filesystem = true;
        } else if (strcmp(part, APPHOST_SANDBOX_CALLS) == 0) {
            g_calls = true;
        } else if (strcmp(part, APPHOST_SANDBOX_NETWORK) == 0) {
            g_network = true;
        } else {
            worker_fail(WORKER_EXIT_USAGE, "%s=%s names an unknown part: %s", APPHOST_WORKER_SANDBOX_VARIABLE, text,
                        part);
        }
    }
    free(copy);
    unsetenv(APPHOST_WORKER_SANDBOX_VARIABLE);
}

/* A copy of the variable `name`, unset; NULL when it was not set. */
static char *take_variable(const char *name)
{
    const char *text = getenv(name);
    char *copy = NULL;

    if (text != NULL && (copy = strdup(text)) == NULL) {
        worker_fail(WORKER_EXIT_FAILURE, "out of memory");
    }
    unsetenv(name);
    return copy;
}

typedef struct layer_rules {
    landlock_layer *layer;
    bool failed;
    char error[ERROR_BYTES];
} layer_rules;

static void allow(layer_rules *rules, const char *path, landlock_access access)
{
    if (!rules->failed && !landlock_layer_allow(rules->layer, path, access, rules->error, sizeof rules->error)) {
        rules->failed = true;
    }
}

static void allow_library_directory(void *context, const char *directory)
{
    allow(context, directory, LANDLOCK_READ_EXECUTE);
}

/* Allows `access` beneath each path of `list`, separated by `separator`. */
static void allow_list(layer_rules *rules, const char *list, const char *separator, landlock_access access)
{
    char *copy, *saved = NULL;

    if (list == NULL || (copy = strdup(list)) == NULL) {
        return;
    }
    for (char *entry = strtok_r(copy, separator, &saved); entry != NULL; entry = strtok_r(NULL, separator, &saved)) {
        allow(rules, entry, access);
    }
    free(copy);
}

/* Whether `path` is a symbolic link to another of system_libraries, whose
 * rule covers it: where /usr is merged, /lib is /usr/lib. One rule fewer for
 * each (a layer costs some 5 us a rule); a link elsewhere keeps its rule. */
static bool links_to_another_library_directory(const char *path)
{
    struct stat status;
    char target[PATH_MAX];

    if (lstat(path, &status) != 0 || !S_ISLNK(status.st_mode) || realpath(path, target) == NULL) {
        return false;
    }
    for (size_t index = 0; index < sizeof system_libraries / sizeof system_libraries[0]; index++) {
        if (strcmp(system_libraries[index], path) != 0 && strcmp(system_libraries[index], target) == 0) {
            return true;
        }
    }
    return false;
}

static void enforce_layer(const char *writable)
{
    layer_rules rules = {.failed = false};

    rules.layer = landlock_layer_new(rules.error, sizeof rules.error);
    if (rules.layer == NULL) {
        worker_fail(WORKER_EXIT_FAILURE, "cannot contain the guest: %s", rules.error);
    }
    for (size_t index = 0; index < sizeof system_libraries / sizeof system_libraries[0]; index++) {
        if (!links_to_another_library_directory(system_libraries[index])) {
            allow(&rules, system_libraries[index], LANDLOCK_READ_EXECUTE);
        }
    }
    for (size_t index = 0; index < sizeof system_files / sizeof system_files[0]; index++) {
        allow(&rules, system_files[index], LANDLOCK_READ);
    }
    for (size_t index = 0; index < sizeof devices / sizeof devices[0]; index++) {
        allow(&rules, devices[index], LANDLOCK_READ_WRITE);
    }
    allow(&rules, g_library, LANDLOCK_READ_EXECUTE);
    library_directories(g_library, allow_library_directory, &rules);
    /* Where the host's operator sent the loader; what it granted the guest. */
    allow_list(&rules, getenv("LD_LIBRARY_PATH"), ":", LANDLOCK_READ_EXECUTE);
    allow_list(&rules, g_grants, "\n", LANDLOCK_READ);
    allow(&rules, writable, LANDLOCK_READ_WRITE);
    if (rules.failed) {
        worker_fail(WORKER_EXIT_FAILURE, "cannot contain the guest: %s", rules.error);
    }
    if (!landlock_layer_enforce(rules.layer, rules.error, sizeof rules.error)) {
        worker_fail(WORKER_EXIT_FAILURE, "cannot contain the guest: %s", rules.error);
    }
}

void sandbox_cut_network(void)
{
    char error[ERROR_BYTES];

    if (g_network && !network_cut(error, sizeof error)) {
        worker_fail(WORKER_EXIT_FAILURE, "cannot contain the guest: %s", error);
    }
}

void sandbox_enter(const char *library, const char *guests_directory)
{
    char error[ERROR_BYTES];

    if (g_filesystem) {
        g_library = strdup(library);
        if (g_library == NULL) {
            worker_fail(WORKER_EXIT_FAILURE, "out of memory");
        }
        enforce_layer(guests_directory);
    }
    if (g_calls && !call_filter_install(g_network, g_call_filter, error, sizeof error)) {
        worker_fail(WORKER_EXIT_FAILURE, "cannot contain the guest: %s", error);
    }
}

void sandbox_narrow(const char *data_directory)
{
    if (g_filesystem) {
        enforce_layer(data_directory);
    }
}

/* Enforces each part for good, in this throwaway process, and says which
 * held: the one honest test of what this machine's kernel allows. */
_Noreturn void sandbox_print_support(void)
{
    char error[ERROR_BYTES];
    landlock_layer *layer;
    char *with_network, *without_network;

    /* First: the call filter refuses new namespaces. */
    if (network_cut(error, sizeof error)) {
        printf("%s ok: a network namespace\n", APPHOST_SANDBOX_NETWORK);
    } else {
        printf("%s missing: %s\n", APPHOST_SANDBOX_NETWORK, error);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        printf("%s missing: cannot set no_new_privs\n%s missing: cannot set no_new_privs\n", APPHOST_SANDBOX_FILESYSTEM,
               APPHOST_SANDBOX_CALLS);
        exit(fflush(stdout) == 0 ? WORKER_EXIT_OK : WORKER_EXIT_FAILURE);
    }
    layer = landlock_layer_new(error, sizeof error);
    if (layer != NULL && landlock_layer_enforce(layer, error, sizeof error)) {
        printf("%s ok: Landlock ABI %d\n", APPHOST_SANDBOX_FILESYSTEM, landlock_abi());
    } else {
        printf("%s missing: %s\n", APPHOST_SANDBOX_FILESYSTEM, error);
    }
    /* The programs a host hands its workers, the first tried here as they
     * will load it. */
    with_network = call_filter_program(true);
    without_network = call_filter_program(false);
    if (call_filter_install(true, with_network, error, sizeof error)) {
        printf("%s ok: seccomp\n", APPHOST_SANDBOX_CALLS);
        if (with_network != NULL && without_network != NULL) {
            printf("program %s %s\nprogram - %s\n", APPHOST_SANDBOX_NETWORK, with_network, without_network);
        }
    } else {
        printf("%s missing: %s\n", APPHOST_SANDBOX_CALLS, error);
    }
    exit(fflush(stdout) == 0 ? WORKER_EXIT_OK : WORKER_EXIT_FAILURE);
}

char *sandbox_take_refusal(void)
{
    return g_calls ? call_filter_take() : NULL;
}
