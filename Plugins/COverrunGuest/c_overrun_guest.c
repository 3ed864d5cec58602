/*
 * C Overrun: a guest that holds a background task past its budget, on
 * purpose, so that operators can watch the host's overrun handling
 * (CONTRACT B3, B4). Do NOT copy its behaviour; copy its structure. The
 * comments marked "A well-behaved guest" say what a real guest does instead.
 *
 * What it does:
 *   - declares APPHOST_CAPABILITY_BACKGROUND_TASKS and gets the
 *     "apphost.background/1" extension from the host at launch;
 *   - when its scene enters background, begins a background task "sync"
 *     and never ends it;
 *   - when the task's expiration handler runs (a grace period, 5 s by
 *     default, before the 30 s budget ends) it only logs. When the budget
 *     ends the host finds the task still open: it suspends the guest (or
 *     terminates it, by the operator's policy) and reports the overrun with
 *     the task's name.
 *
 * Log lines (the end-to-end tests match them; keep the format if you copy
 * this file):
 *   callback did_finish_launching
 *   callback did_enter_background scene=<handle>
 *   callback will_enter_foreground scene=<handle>
 *   callback will_terminate
 *   sync began task=<id>
 *   sync still open task=<id>                 entering background again
 *   sync not started: no background time      WARNING, begin_task refused (B1)
 *   background extension not offered          WARNING
 *   sync expiring, not ending task=<id>       WARNING, the expiration handler
 *
 * Threading: the host calls every callback and the expiration handler on
 * this guest's main queue, one at a time, so the globals need no locks.
 *
 * Build it like any guest (see sdk/README.md):
 *   cc -std=c99 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags sdk/apphost.pc) \
 *      -Wl,--version-script=sdk/apphost.map c_overrun_guest.c -o libCOverrunGuest.so
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <apphost/apphost.h>

/* ---- Host access -------------------------------------------------------- */

/* The host interface from init, and the background extension from
 * did_finish_launching (NULL when the host does not offer it). Both are the
 * host's and valid until deinit returns. */
static const apphost_host_t *g_host;
static const apphost_background_t *g_background;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void
log_message(int32_t level, const char *format, ...)
{
    char message[512];
    va_list args;

    if (g_host == NULL || g_host->log == NULL) {
        return;
    }
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    g_host->log(g_host, level, message);
}

/* ---- The background work ------------------------------------------------ */

/* What the guest keeps about its one piece of background work. Its address
 * is the context of the expiration handler: the host hands it back and never
 * frees it, and it is static, so it outlives the task. */
struct sync_job {
    apphost_task_t task; /* APPHOST_TASK_INVALID while no task is open */
};

static struct sync_job g_sync;

/* [main-queue] The task's time is nearly up (CONTRACT B3). `context` is the
 * pointer given to begin_task; `task` is the task's id. */
static void sync_will_expire(void *context, apphost_task_t task)
{
    struct sync_job *job = context;

    if (job == NULL || job->task != task) {
        return; /* not ours: ignore, never crash */
    }
    log_message(APPHOST_LOG_WARNING, "sync expiring, not ending task=%" PRIu64, task);
    /*
     * This guest returns with the task still open, so it runs over when the
     * budget ends (CONTRACT B4).
     *
     * A well-behaved guest stops its work here, quickly, saves how far it
     * got so that it can resume in the foreground, and ends the task:
     *
     *     save_progress(job);
     *     g_background->end_task(g_host, job->task);
     *     job->task = APPHOST_TASK_INVALID;
     *
     * and, when its work finishes before the budget does, ends the task at
     * that point too: every valid id is ended exactly once (CONTRACT B1).
     */
}

/* Begins the "sync" task unless one is open already. */
static void begin_sync(void)
{
    if (g_background == NULL) {
        log_message(APPHOST_LOG_WARNING, "background extension not offered");
        return;
    }
    if (g_sync.task != APPHOST_TASK_INVALID) {
        /* Still open from an earlier stay in background. A well-behaved guest
         * never gets here: it ended the task long ago. */
        log_message(APPHOST_LOG_INFO, "sync still open task=%" PRIu64, g_sync.task);
        return;
    }
    g_sync.task = g_background->begin_task(g_host, "sync", sync_will_expire, &g_sync);
    if (g_sync.task == APPHOST_TASK_INVALID) {
        /* CONTRACT B1: no background work is possible now (the budget is
         * spent, or the guest is being suspended or terminated). Do not start
         * the work. */
        log_message(APPHOST_LOG_WARNING, "sync not started: no background time");
        return;
    }
    log_message(APPHOST_LOG_INFO, "sync began task=%" PRIu64, g_sync.task);
    /*
     * A well-behaved guest would now start its work, on its own thread or in
     * steps with g_background->schedule_timer, and call
     * g_background->end_task(g_host, g_sync.task) when it is done. Time left:
     * g_background->time_remaining(g_host, &seconds).
     */
}

/* ---- App callbacks ------------------------------------------------------ */

static apphost_status_t did_finish_launching(void)
{
    const apphost_background_t *background;

    log_message(APPHOST_LOG_INFO, "callback did_finish_launching");
    /* NULL when the host does not offer the extension. Check struct_size
     * before using a member: this guest uses every member of revision 1. */
    background = g_host->get_extension(g_host, APPHOST_BACKGROUND_EXTENSION_ID);
    if (background != NULL && background->struct_size >= sizeof(apphost_background_t)) {
        g_background = background;
    }
    return APPHOST_OK;
}

static void will_terminate(void)
{
    log_message(APPHOST_LOG_INFO, "callback will_terminate");
    /* A well-behaved guest ends every task it holds here too:
     *     if (g_sync.task != APPHOST_TASK_INVALID) {
     *         g_background->end_task(g_host, g_sync.task);
     *         g_sync.task = APPHOST_TASK_INVALID;
     *     }
     */
}

/* ---- Scene callbacks ---------------------------------------------------- */

static void will_connect(const apphost_scene_connection_t *connection)
{
    if (connection != NULL) {
        log_message(APPHOST_LOG_INFO, "callback will_connect scene=%" PRIu64, connection->scene);
    }
}

static void will_enter_foreground(apphost_scene_t scene)
{
    /* In the foreground time is unlimited, and returning resets the budget
     * (CONTRACT B2); the task stays open. */
    log_message(APPHOST_LOG_INFO, "callback will_enter_foreground scene=%" PRIu64, scene);
}

static void did_enter_background(apphost_scene_t scene)
{
    log_message(APPHOST_LOG_INFO, "callback did_enter_background scene=%" PRIu64, scene);
    /* Begin the task here, in the callback: once it returns, a guest with no
     * open task is suspended shortly after (CONTRACT B6). Return quickly: the
     * watchdog counts this callback too (B5). */
    begin_sync();
}

/* ---- Entry point -------------------------------------------------------- */

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t),
    did_finish_launching,
    will_terminate,
    NULL, /* did_receive_memory_warning: nothing cached */
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t),
    will_connect,
    will_enter_foreground,
    NULL, /* did_become_active */
    NULL, /* will_resign_active */
    did_enter_background,
    NULL, /* did_disconnect */
};

static apphost_status_t init(const apphost_host_t *host)
{
    /* Refuse a host without the members this guest uses, up to get_extension. */
    if (host == NULL ||
        host->struct_size < offsetof(apphost_host_t, get_extension) + sizeof(host->get_extension) ||
        host->get_extension == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    g_host = host;
    g_background = NULL;
    memset(&g_sync, 0, sizeof g_sync);
    return APPHOST_OK;
}

static void deinit(void)
{
    /* The host's pointers die when deinit returns: forget them. */
    memset(&g_sync, 0, sizeof g_sync);
    g_background = NULL;
    g_host = NULL;
}

/* [thread-safe]: it only compares strings and returns constant data. */
static const void *query(const char *interface_id)
{
    if (interface_id == NULL) {
        return NULL;
    }
    if (strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
    if (strcmp(interface_id, APPHOST_GUEST_SCENE_CALLBACKS_ID) == 0) {
        return &scene_callbacks;
    }
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t),
    "org.apphost.samples.overrun",
    "C Overrun",
    "1.0.0",
    "apphost",
    "Holds a background task past its budget, to show overrun handling.",
    APPHOST_CAPABILITY_BACKGROUND_TASKS,
};

/* The only exported symbol (sdk/apphost.map hides the rest). */
const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT,
    &descriptor,
    init,
    deinit,
    query,
};
