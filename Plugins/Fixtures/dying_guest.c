/*
 * A valid guest that dies on purpose, for process isolation's tests (CONTRACT
 * X2). Unless told to die earlier, it logs "callback <name>" from every
 * callback and saves "saved in will_connect" for each scene it connects, so
 * a test can check that what it saved survives its death; will_connect also
 * logs `restored "<restoration data>"` or "restored nothing".
 *
 * Where it dies, given with -D (at most one):
 *   FIXTURE_DIE_IN_CONSTRUCTOR   a library constructor, during dlopen
 *   FIXTURE_DIE_IN_INIT          init
 *   FIXTURE_DIE_IN_CALLBACK      did_receive_memory_warning and
 *                                will_enter_foreground
 *   FIXTURE_DIE_IN_WILL_TERMINATE  will_terminate (after logging it)
 *   FIXTURE_DIE_IN_DEINIT        deinit (after logging it)
 * How, with FIXTURE_HOW (default 1):
 *   1 a segmentation fault, 2 abort(), 3 exit(3), 4 never returns (asleep),
 *   5 never returns (a busy loop), 6 never returns (locks a mutex it holds),
 *   7 allocates and touches memory until it is killed, 8 forks until fork
 *   fails, then aborts (its children leave after 3 s), 9 opens files until
 *   open fails, waits a second, then aborts
 * With FIXTURE_FORK_FIRST it first forks a child that keeps the worker's
 * descriptors, its socket to the host among them, open for 5 s.
 * FIXTURE_ID sets the id (a C literal), so that several can run at once;
 * FIXTURE_LAUNCH_STATUS what did_finish_launching returns.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.apphost.fixtures.dying"
#endif
#ifndef FIXTURE_HOW
#define FIXTURE_HOW 1
#endif
#ifndef FIXTURE_LAUNCH_STATUS
#define FIXTURE_LAUNCH_STATUS APPHOST_OK
#endif

static const apphost_host_t *g_host;

#if FIXTURE_HOW == 8
/* A child that keeps a process slot for a while; 0 while fork works. */
static int fork_child(void)
{
    pid_t child = fork();
    if (child == 0) {
        sleep(3);
        _exit(0);
    }
    return child > 0 ? 0 : -1;
}
#endif

__attribute__((unused)) static void die(void)
{
#ifdef FIXTURE_FORK_FIRST
    if (fork() == 0) {
        sleep(5);
        _exit(0);
    }
#endif
#if FIXTURE_HOW == 1
    volatile int *nowhere = NULL;
    *nowhere = 1;
    raise(SIGSEGV); /* should the store have been optimised away */
#elif FIXTURE_HOW == 2
    abort();
#elif FIXTURE_HOW == 3
    exit(3);
#elif FIXTURE_HOW == 5
    for (volatile unsigned long spins = 0;; spins++) {
    }
#elif FIXTURE_HOW == 7
    for (;;) {
        char *block = malloc(1 << 20);
        if (block != NULL) {
            memset(block, 1, 1 << 20);
        }
    }
#elif FIXTURE_HOW == 8
    while (fork_child() == 0) {
    }
    abort();
#elif FIXTURE_HOW == 9
    while (open("/dev/null", O_RDONLY) >= 0) {
    }
    sleep(1);
    abort();
#elif FIXTURE_HOW == 6
    static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&held);
    pthread_mutex_lock(&held); /* a default mutex locked twice: a deadlock */
#else
    for (;;) {
        pause();
    }
#endif
}

#ifdef FIXTURE_DIE_IN_CONSTRUCTOR
__attribute__((constructor)) static void construct(void) { die(); }
#endif

static void note(const char *callback)
{
    char line[96];

    if (g_host != NULL) {
        snprintf(line, sizeof line, "callback %s", callback);
        g_host->log(g_host, APPHOST_LOG_INFO, line);
    }
}

static apphost_status_t did_finish_launching(void)
{
    note("did_finish_launching");
    return FIXTURE_LAUNCH_STATUS;
}

static void will_terminate(void)
{
    note("will_terminate");
#ifdef FIXTURE_DIE_IN_WILL_TERMINATE
    die();
#endif
}

static void did_receive_memory_warning(void)
{
    note("did_receive_memory_warning");
#ifdef FIXTURE_DIE_IN_CALLBACK
    die();
#endif
}

static void will_connect(const apphost_scene_connection_t *connection)
{
    static const char state[] = "saved in will_connect";

    char line[96];

    note("will_connect");
    if (connection->restoration_data == NULL) {
        g_host->log(g_host, APPHOST_LOG_INFO, "restored nothing");
    } else {
        snprintf(line, sizeof line, "restored \"%.*s\"", (int)connection->restoration_length,
                 (const char *)connection->restoration_data);
        g_host->log(g_host, APPHOST_LOG_INFO, line);
    }
    g_host->save_scene_state(g_host, connection->scene, state, sizeof state - 1);
}

static void will_enter_foreground(apphost_scene_t scene)
{
    (void)scene;
    note("will_enter_foreground");
#ifdef FIXTURE_DIE_IN_CALLBACK
    die();
#endif
}

static void did_become_active(apphost_scene_t scene)
{
    (void)scene;
    note("did_become_active");
}

static void will_resign_active(apphost_scene_t scene)
{
    (void)scene;
    note("will_resign_active");
}

static void did_enter_background(apphost_scene_t scene)
{
    (void)scene;
    note("did_enter_background");
}

static void did_disconnect(apphost_scene_t scene)
{
    (void)scene;
    note("did_disconnect");
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, will_terminate, did_receive_memory_warning,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), will_connect,      will_enter_foreground, did_become_active,
    will_resign_active,                did_enter_background, did_disconnect,
};

static apphost_status_t init(const apphost_host_t *host)
{
#ifdef FIXTURE_DIE_IN_INIT
    die();
#endif
    g_host = host;
    return APPHOST_OK;
}

static void deinit(void)
{
    note("deinit");
#ifdef FIXTURE_DIE_IN_DEINIT
    die();
#endif
}

static const void *query(const char *interface_id)
{
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_SCENE_CALLBACKS_ID) == 0) {
        return &scene_callbacks;
    }
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t), FIXTURE_ID, "Dying Fixture", "1.0.0", "apphost tests",
    "Dies on purpose where a test asks it to.", 0,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
