/*
 * A valid guest that signals what it must not reach (CONTRACT X2): the other
 * workers of its host, every process it may signal (kill(-1, ...)) and its
 * host (kill(getppid(), ...)), in that order, and logs what each kill
 * returned: "kill(<target>, <signal>): sent" or ": <errno name>", then
 * "signalled". It never signals a process outside its own host, nor, unless
 * it runs under a user of its own, every process its user may signal (that
 * would take a developer's shell with it): it logs "kill(-1, <signal>):
 * refused, this worker runs as its host's user (uid N)" instead.
 *
 * Given with -D:
 *   FIXTURE_SIGNAL           the signal (SIGTERM unless set)
 *   FIXTURE_SIGNAL_IN_INIT   signal from init rather than did_finish_launching
 *   FIXTURE_ID               the id (a C literal)
 *
 * Never run it inside the host (--isolation none): its parent is then the
 * host's parent.
 */
#define _POSIX_C_SOURCE 200809L /* kill */

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.apphost.fixtures.signalling"
#endif
#ifndef FIXTURE_SIGNAL
#define FIXTURE_SIGNAL SIGTERM
#endif

static const apphost_host_t *g_host;

static const char *signal_name(int number)
{
    switch (number) {
    case SIGTERM:
        return "SIGTERM";
    case SIGKILL:
        return "SIGKILL";
    case SIGSTOP:
        return "SIGSTOP";
    default:
        return "another signal";
    }
}

static void say(const char *line) { g_host->log(g_host, APPHOST_LOG_INFO, line); }

static void report(const char *target, int result, int error)
{
    char line[160];

    snprintf(line, sizeof line, "kill(%s, %s): %s", target, signal_name(FIXTURE_SIGNAL),
             result == 0      ? "sent"
             : error == EPERM ? "EPERM"
             : error == ESRCH ? "ESRCH"
                              : "another error");
    say(line);
}

/* The second field after the command in /proc/<pid>/stat, its parent. */
static pid_t parent_of(const char *pid)
{
    char path[64], text[512];
    FILE *file;
    char *close;
    pid_t parent = -1;

    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    file = fopen(path, "r");
    if (file == NULL) {
        return -1;
    }
    if (fgets(text, sizeof text, file) != NULL && (close = strrchr(text, ')')) != NULL) {
        char state;
        int value;
        if (sscanf(close + 1, " %c %d", &state, &value) == 2) {
            parent = value;
        }
    }
    fclose(file);
    return parent;
}

/* Every other worker of our host: its other children. */
static void signal_other_workers(void)
{
    DIR *proc = opendir("/proc");
    struct dirent *entry;
    pid_t host = getppid();

    if (proc == NULL) {
        say("cannot list /proc");
        return;
    }
    while ((entry = readdir(proc)) != NULL) {
        char target[64];
        pid_t pid = (pid_t)atoi(entry->d_name);
        int result, error;

        if (pid <= 0 || pid == getpid() || parent_of(entry->d_name) != host) {
            continue;
        }
        result = kill(pid, FIXTURE_SIGNAL);
        error = errno;
        snprintf(target, sizeof target, "worker %d", (int)pid);
        report(target, result, error);
    }
    closedir(proc);
}

/* kill(-1) only under a user of our own: the host's owns /proc/<host>. */
static void signal_everything(void)
{
    char path[64], line[160];
    struct stat host;
    int result;

    snprintf(path, sizeof path, "/proc/%d", (int)getppid());
    if (stat(path, &host) != 0 || host.st_uid == getuid()) {
        snprintf(line, sizeof line, "kill(-1, %s): refused, this worker runs as its host's user (uid %lu)",
                 signal_name(FIXTURE_SIGNAL), (unsigned long)getuid());
        say(line);
        return;
    }
    result = kill(-1, FIXTURE_SIGNAL);
    report("-1", result, errno);
}

static void signal_all(void)
{
    int result;

    signal_other_workers();
    signal_everything();
    result = kill(getppid(), FIXTURE_SIGNAL);
    report("host", result, errno);
    say("signalled");
}

static apphost_status_t did_finish_launching(void)
{
#ifndef FIXTURE_SIGNAL_IN_INIT
    signal_all();
#endif
    return APPHOST_OK;
}

static void will_terminate(void) {}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t),
    did_finish_launching,
    will_terminate,
    NULL,
};

static apphost_status_t init(const apphost_host_t *host)
{
    g_host = host;
#ifdef FIXTURE_SIGNAL_IN_INIT
    signal_all();
#endif
    return APPHOST_OK;
}

static void deinit(void) {}

static const void *query(const char *interface_id)
{
    return interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0 ? &app_callbacks
                                                                                            : NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t), FIXTURE_ID, "Signalling Fixture", "1.0.0", "apphost tests",
    "Signals its host and the other workers.", 0,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
