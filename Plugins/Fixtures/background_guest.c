/*
 * A valid guest that uses every function of the background extension,
 * "apphost.background/1", as the commands a test gives it say, and logs
 * what each returned, so that a test can check it in process or from the
 * far side of the worker's socket.
 *
 * Commands, separated by ';', run in order:
 *   begin <name>        begin_task with a handler that logs
 *                       "expired <task>", then ends the task
 *                       (logs "begin <name> = <task>", 0 when refused)
 *   begin-keep <name>   the same, with a handler that does not end it
 *   begin-bare          begin_task with a NULL name and a NULL handler
 *   begin-long          begin_task with a name of 255 'n' and an 'é' that
 *                       crosses APPHOST_TASK_NAME_MAX_BYTES
 *   end <task>          end_task (logs "end <task> = <status name>")
 *   time                time_remaining (logs "time = unlimited" or
 *                       "time = <seconds, 3 decimals>")
 *   timer <delay ms> <interval ms>
 *                       schedule_timer (logs "timer = <timer>"); its work
 *                       logs "fired <timer> <count>"
 *   repeat <interval ms> <count>
 *                       a repeating timer whose work cancels it when it
 *                       has fired <count> times (logs "cancel <timer> = ...")
 *   cancel <timer>      cancel_timer (logs "cancel <timer> = <status name>")
 *   async <tag>         dispatch_async; its work logs "async <tag>"
 *   abuse               every function with NULL and unknown arguments
 *                       (CONTRACT X3); logs "abuse <statuses>"
 *   spin                starts a thread that begins and ends tasks until
 *                       begin_task refuses, then logs "spin stopped after
 *                       <tasks>"; `join` waits for it
 *
 * The commands come from the session id of every scene that connects (a
 * test driving a worker) or from the fixture_run hook (a test calling the
 * runtime in process); -DFIXTURE_LAUNCH_COMMANDS="..." runs some in
 * did_finish_launching too.
 *
 * Test hooks, exported besides apphost_entry (fixtures are not samples):
 *   fixture_run         runs commands on the caller's thread
 *   fixture_host        the host interface init received, NULL after deinit
 *   fixture_background  the extension get_extension returned in init
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, strtok_r */

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.apphost.fixtures.background"
#endif

enum { MAX_SLOTS = 256, MAX_SPINS = 200000 };

/* What a timer's or async work's context points to. */
typedef struct slot {
    apphost_timer_t timer;
    unsigned fired;
    /* Repeating timers cancel themselves after this many; 0 never. */
    unsigned cancel_after;
    char tag[64];
} slot;

static const apphost_host_t *g_host;
static const apphost_background_t *g_background;
static slot g_slots[MAX_SLOTS];
static unsigned g_slot_count;
static pthread_t g_spinner;
static int g_spinning;

static void say(const char *format, ...)
{
    char line[512];
    va_list arguments;

    va_start(arguments, format);
    vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    g_host->log(g_host, APPHOST_LOG_INFO, line);
}

static slot *new_slot(void)
{
    slot *next;

    if (g_slot_count == MAX_SLOTS) {
        return NULL;
    }
    next = &g_slots[g_slot_count++];
    memset(next, 0, sizeof *next);
    return next;
}

/* ---- What the host runs on the main queue --------------------------------- */

static void expire_and_end(void *context, apphost_task_t task)
{
    (void)context;
    say("expired %" PRIu64, task);
    say("end %" PRIu64 " = %s", task, apphost_status_name(g_background->end_task(g_host, task)));
}

static void expire_only(void *context, apphost_task_t task)
{
    (void)context;
    say("expired %" PRIu64, task);
}

static void timer_fired(void *context)
{
    slot *timer = context;

    timer->fired++;
    say("fired %" PRIu64 " %u", timer->timer, timer->fired);
    if (timer->cancel_after != 0 && timer->fired == timer->cancel_after) {
        say("cancel %" PRIu64 " = %s", timer->timer,
            apphost_status_name(g_background->cancel_timer(g_host, timer->timer)));
    }
}

static void async_work(void *context)
{
    const slot *work = context;

    say("async %s", work->tag);
}

/* ---- Commands ------------------------------------------------------------- */

static uint64_t number(const char *text) { return text == NULL ? 0 : strtoull(text, NULL, 10); }

static void begin(const char *name, apphost_expiration_handler_t handler)
{
    say("begin %s = %" PRIu64, name == NULL ? "(null)" : name, g_background->begin_task(g_host, name, handler, NULL));
}

static void begin_long(void)
{
    char name[APPHOST_TASK_NAME_MAX_BYTES + 8];

    memset(name, 'n', APPHOST_TASK_NAME_MAX_BYTES - 1);
    /* 'é' in the 256th and 257th bytes: cut whole. */
    strcpy(name + APPHOST_TASK_NAME_MAX_BYTES - 1, "\xc3\xa9");
    say("begin long = %" PRIu64, g_background->begin_task(g_host, name, expire_and_end, NULL));
}

static void time_left(void)
{
    double seconds = -1;
    apphost_status_t status = g_background->time_remaining(g_host, &seconds);

    if (status != APPHOST_OK) {
        say("time = %s", apphost_status_name(status));
    } else if (seconds == APPHOST_BACKGROUND_TIME_UNLIMITED) {
        say("time = unlimited");
    } else {
        say("time = %.3f", seconds);
    }
}

static void schedule(uint64_t delay_ms, uint64_t interval_ms, unsigned cancel_after)
{
    slot *timer = new_slot();
    apphost_status_t status;

    if (timer == NULL) {
        say("timer = no slot");
        return;
    }
    timer->cancel_after = cancel_after;
    status = g_background->schedule_timer(g_host, delay_ms * 1000000, interval_ms * 1000000, timer_fired, timer,
                                          &timer->timer);
    if (status == APPHOST_OK) {
        say("timer = %" PRIu64, timer->timer);
    } else {
        say("timer = %s", apphost_status_name(status));
    }
}

static void submit(const char *tag)
{
    slot *work = new_slot();

    if (work == NULL) {
        say("async = no slot");
        return;
    }
    snprintf(work->tag, sizeof work->tag, "%s", tag == NULL ? "" : tag);
    say("async = %s", apphost_status_name(g_background->dispatch_async(g_host, async_work, work)));
}

/* X3: NULL and unknown arguments get error codes and invalid ids, never a crash. */
static void abuse(void)
{
    apphost_host_t foreign = *g_host;
    apphost_timer_t timer = 99;
    double seconds = 0;

    say("abuse begin=%" PRIu64 ",%" PRIu64 " end=%s,%s,%s,%s time=%s,%s,%s schedule=%s,%s,%s,%s timer=%" PRIu64
        " cancel=%s,%s,%s async=%s,%s,%s",
        g_background->begin_task(NULL, "x", NULL, NULL), g_background->begin_task(&foreign, "x", NULL, NULL),
        apphost_status_name(g_background->end_task(g_host, APPHOST_TASK_INVALID)),
        apphost_status_name(g_background->end_task(g_host, 1000000)),
        apphost_status_name(g_background->end_task(NULL, 1)),
        apphost_status_name(g_background->end_task(&foreign, 1)),
        apphost_status_name(g_background->time_remaining(g_host, NULL)),
        apphost_status_name(g_background->time_remaining(NULL, &seconds)),
        apphost_status_name(g_background->time_remaining(&foreign, &seconds)),
        apphost_status_name(g_background->schedule_timer(g_host, 0, 0, NULL, NULL, &timer)),
        apphost_status_name(g_background->schedule_timer(g_host, 0, 0, async_work, NULL, NULL)),
        apphost_status_name(g_background->schedule_timer(NULL, 0, 0, async_work, NULL, &timer)),
        apphost_status_name(g_background->schedule_timer(&foreign, 0, 0, async_work, NULL, &timer)), timer,
        apphost_status_name(g_background->cancel_timer(g_host, APPHOST_TIMER_INVALID)),
        apphost_status_name(g_background->cancel_timer(g_host, 1000000)),
        apphost_status_name(g_background->cancel_timer(NULL, 1)),
        apphost_status_name(g_background->dispatch_async(g_host, NULL, NULL)),
        apphost_status_name(g_background->dispatch_async(NULL, async_work, NULL)),
        apphost_status_name(g_background->dispatch_async(&foreign, async_work, NULL)));
}

/* Begins and ends tasks until begin_task refuses: for the ordering rule of
 * the runtime's sink (a valid id is reported before a later reply). */
static void *spin(void *unused)
{
    const struct timespec pause = {0, 20000};
    unsigned count = 0;

    (void)unused;
    while (count < MAX_SPINS) {
        apphost_task_t task = g_background->begin_task(g_host, "spin", NULL, NULL);

        if (task == APPHOST_TASK_INVALID) {
            break;
        }
        count++;
        g_background->end_task(g_host, task);
        /* Leaves the main queue room to take the runtime's lock. */
        nanosleep(&pause, NULL);
    }
    say("spin stopped after %u", count);
    return NULL;
}

static void run_one(char *command)
{
    char *saved = NULL;
    char *verb = strtok_r(command, " ", &saved);
    char *first = strtok_r(NULL, " ", &saved);
    char *second = strtok_r(NULL, " ", &saved);

    if (verb == NULL) {
        return;
    }
    if (strcmp(verb, "begin") == 0) {
        begin(first, expire_and_end);
    } else if (strcmp(verb, "begin-keep") == 0) {
        begin(first, expire_only);
    } else if (strcmp(verb, "begin-bare") == 0) {
        begin(NULL, NULL);
    } else if (strcmp(verb, "begin-long") == 0) {
        begin_long();
    } else if (strcmp(verb, "end") == 0) {
        say("end %s = %s", first, apphost_status_name(g_background->end_task(g_host, number(first))));
    } else if (strcmp(verb, "time") == 0) {
        time_left();
    } else if (strcmp(verb, "timer") == 0) {
        schedule(number(first), number(second), 0);
    } else if (strcmp(verb, "repeat") == 0) {
        schedule(number(first), number(first), (unsigned)number(second));
    } else if (strcmp(verb, "cancel") == 0) {
        say("cancel %s = %s", first, apphost_status_name(g_background->cancel_timer(g_host, number(first))));
    } else if (strcmp(verb, "async") == 0) {
        submit(first);
    } else if (strcmp(verb, "abuse") == 0) {
        abuse();
    } else if (strcmp(verb, "spin") == 0) {
        g_spinning = pthread_create(&g_spinner, NULL, spin, NULL) == 0;
    } else if (strcmp(verb, "join") == 0) {
        if (g_spinning) {
            pthread_join(g_spinner, NULL);
            g_spinning = 0;
        }
    } else {
        say("unknown command %s", verb);
    }
}

static void run(const char *commands, size_t length)
{
    char *copy = malloc(length + 1);
    char *saved = NULL;
    char *command;

    if (copy == NULL) {
        return;
    }
    memcpy(copy, commands, length);
    copy[length] = '\0';
    for (command = strtok_r(copy, ";", &saved); command != NULL; command = strtok_r(NULL, ";", &saved)) {
        run_one(command);
    }
    free(copy);
}

/* ---- The guest ------------------------------------------------------------ */

static apphost_status_t did_finish_launching(void)
{
#ifdef FIXTURE_LAUNCH_COMMANDS
    run(FIXTURE_LAUNCH_COMMANDS, strlen(FIXTURE_LAUNCH_COMMANDS));
#endif
    return APPHOST_OK;
}

static void will_terminate(void)
{
    /* B1: no background work once terminating. */
    say("will_terminate begin = %" PRIu64, g_background->begin_task(g_host, "late", NULL, NULL));
}

static void will_connect(const apphost_scene_connection_t *connection)
{
    run(connection->session_id, strlen(connection->session_id));
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t),
    did_finish_launching,
    will_terminate,
    NULL,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), will_connect, NULL, NULL, NULL, NULL, NULL,
};

static apphost_status_t init(const apphost_host_t *host)
{
    double seconds = 0;
    apphost_timer_t timer = APPHOST_TIMER_INVALID;

    if (host == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    g_host = host;
    g_slot_count = 0;
    g_background = host->get_extension(host, APPHOST_BACKGROUND_EXTENSION_ID);
    if (g_background == NULL || g_background->struct_size < sizeof(apphost_background_t)) {
        say("init: no background extension");
        return APPHOST_ERROR_UNSUPPORTED;
    }
    /* Before the guest runs: no task, no timer, no work, but the time. */
    g_background->time_remaining(host, &seconds);
    say("init begin=%" PRIu64 " timer=%s async=%s time=%s", g_background->begin_task(host, "init", NULL, NULL),
        apphost_status_name(g_background->schedule_timer(host, 0, 0, async_work, NULL, &timer)),
        apphost_status_name(g_background->dispatch_async(host, async_work, NULL)),
        seconds == APPHOST_BACKGROUND_TIME_UNLIMITED ? "unlimited" : "limited");
    return APPHOST_OK;
}

static void deinit(void)
{
    if (g_spinning) {
        pthread_join(g_spinner, NULL);
        g_spinning = 0;
    }
    say("deinit begin=%" PRIu64, g_background->begin_task(g_host, "deinit", NULL, NULL));
    g_host = NULL;
    g_background = NULL;
}

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
    FIXTURE_ID,
    "Background Fixture",
    "1.0.0",
    "apphost tests",
    "Uses every function of apphost.background/1 as its tests say.",
    APPHOST_CAPABILITY_MULTIPLE_SCENES | APPHOST_CAPABILITY_BACKGROUND_TASKS,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};

/* ---- Test hooks ----------------------------------------------------------- */

APPHOST_EXPORT void fixture_run(const char *commands) { run(commands, strlen(commands)); }

APPHOST_EXPORT const apphost_host_t *fixture_host(void) { return g_host; }

APPHOST_EXPORT const apphost_background_t *fixture_background(void) { return g_background; }
