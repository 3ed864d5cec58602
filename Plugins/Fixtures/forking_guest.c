/*
 * A valid guest that starts processes which would outlive it (CONTRACT X2):
 * a child that stays in its worker's process group, and an orphan, forked
 * twice so that init adopts it, that leaves the worker's session and process
 * group with setsid(). Both sleep; each has the guest's library mapped, which
 * is how a test finds them in /proc. From did_finish_launching it then logs
 * "forked child <pid> and orphan <pid>".
 *
 * Given with -D:
 *   FIXTURE_FORK_IN_CONSTRUCTOR  fork in a library constructor instead, while
 *                                the library loads (inspect's throwaway worker)
 *   FIXTURE_FORK_IN_INIT         fork in init instead
 *   FIXTURE_REPORT               a path (C literal): the constructor, init and
 *                                deinit each append a line to that file,
 *                                "<which> uid <getuid()> orphan <pid>" (-1
 *                                when it forked nothing), for a test that has
 *                                no log to read (inspect --launch)
 *   FIXTURE_CRASH                crash (SIGSEGV) on a memory warning
 *   FIXTURE_ID                   the id (a C literal)
 *
 * So that a failing test leaves nothing behind for long, each process it
 * starts ends by itself after FIXTURE_LIFETIME seconds (300).
 */
#define _POSIX_C_SOURCE 200809L /* fork, setsid, kill */

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.apphost.fixtures.forking"
#endif
#ifndef FIXTURE_LIFETIME
#define FIXTURE_LIFETIME 300
#endif

static const apphost_host_t *g_host;

_Noreturn static void sleep_on(void)
{
    alarm(FIXTURE_LIFETIME);
    for (;;) {
        pause();
    }
}

/* Forks the child and the orphan; their pids go to the out parameters (-1
 * for one that could not be started). */
static void spawn(pid_t *child, pid_t *orphan)
{
    int channel[2];

    *child = fork();
    if (*child == 0) {
        sleep_on();
    }
    *orphan = -1;
    if (pipe(channel) != 0) {
        return;
    }
    pid_t middle = fork();
    if (middle == 0) {
        pid_t grandchild = fork();
        if (grandchild == 0) {
            close(channel[0]);
            close(channel[1]);
            setsid();
            sleep_on();
        }
        (void)!write(channel[1], &grandchild, sizeof grandchild);
        _exit(0);
    }
    close(channel[1]);
    if (middle > 0) {
        if (read(channel[0], orphan, sizeof *orphan) != (ssize_t)sizeof *orphan) {
            *orphan = -1;
        }
        waitpid(middle, NULL, 0);
    }
    close(channel[0]);
}

static void report(const char *which, pid_t orphan)
{
#ifdef FIXTURE_REPORT
    FILE *file = fopen(FIXTURE_REPORT, "a");

    if (file != NULL) {
        fprintf(file, "%s uid %lu orphan %d\n", which, (unsigned long)getuid(), (int)orphan);
        fclose(file);
    }
#else
    (void)which;
    (void)orphan;
#endif
}

__attribute__((constructor)) static void construct(void)
{
    pid_t child = -1, orphan = -1;

#ifdef FIXTURE_FORK_IN_CONSTRUCTOR
    spawn(&child, &orphan);
#endif
    (void)child;
    report("constructor", orphan);
}

static apphost_status_t did_finish_launching(void)
{
#if !defined(FIXTURE_FORK_IN_CONSTRUCTOR) && !defined(FIXTURE_FORK_IN_INIT)
    pid_t child, orphan;
    char line[96];

    spawn(&child, &orphan);
    snprintf(line, sizeof line, "forked child %d and orphan %d", (int)child, (int)orphan);
    g_host->log(g_host, APPHOST_LOG_INFO, line);
#endif
    return APPHOST_OK;
}

static void will_terminate(void) {}

static void did_receive_memory_warning(void)
{
#ifdef FIXTURE_CRASH
    raise(SIGSEGV);
#endif
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t),
    did_finish_launching,
    will_terminate,
    did_receive_memory_warning,
};

static apphost_status_t init(const apphost_host_t *host)
{
    pid_t child = -1, orphan = -1;

    g_host = host;
#ifdef FIXTURE_FORK_IN_INIT
    spawn(&child, &orphan);
#endif
    (void)child;
    report("init", orphan);
    return APPHOST_OK;
}

static void deinit(void) { report("deinit", -1); }

static const void *query(const char *interface_id)
{
    return interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0 ? &app_callbacks
                                                                                            : NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t), FIXTURE_ID, "Forking Fixture", "1.0.0", "apphost tests",
    "Starts processes that would outlive it.", 0,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
