/*
 * A guest for the background benchmarks: launched into background, it begins
 * BENCH_TASKS tasks in did_finish_launching and never ends them. Each
 * expiration handler notes its CLOCK_MONOTONIC time on the guest's main
 * queue; the last one logs them all, "expired <nanoseconds> ...", so that the
 * benchmark sees when each handler really ran without a log of each handler
 * delaying the next (the bare timers it is compared with note their times in
 * memory too). At the end of its budget the guest runs over and the host
 * freezes it.
 *
 * Build with -DBENCH_ID="..." for a distinct id per copy. With -DBENCH_SPIN
 * (and -pthread) it also starts a thread in did_finish_launching that burns
 * CPU until the worker is frozen or ends: a guest busy in background, for the
 * fair-share benchmark.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#ifdef BENCH_SPIN
#include <pthread.h>
#endif
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <apphost/apphost.h>

#ifndef BENCH_ID
#define BENCH_ID "org.apphost.bench.overrunning"
#endif
#ifndef BENCH_TASKS
#define BENCH_TASKS 10
#endif

static const apphost_host_t *host_interface;
static const apphost_background_t *background;

/* Touched on the main queue only. */
static uint64_t expired_at[BENCH_TASKS];
static int expired_count;

static void expiring(void *context, apphost_task_t task)
{
    struct timespec now;
    char line[32 + 21 * BENCH_TASKS];
    size_t used;
    int index;

    (void)context;
    (void)task;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (expired_count == BENCH_TASKS) {
        return;
    }
    expired_at[expired_count++] = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    if (expired_count < BENCH_TASKS) {
        return;
    }
    used = (size_t)snprintf(line, sizeof line, "expired");
    for (index = 0; index < BENCH_TASKS; index++) {
        used += (size_t)snprintf(line + used, sizeof line - used, " %" PRIu64, expired_at[index]);
    }
    host_interface->log(host_interface, APPHOST_LOG_INFO, line);
}

#ifdef BENCH_SPIN
static void *spin(void *unused)
{
    volatile unsigned long turns = 0;

    for (;;) {
        turns++;
    }
    return unused;
}
#endif

static apphost_status_t did_finish_launching(void)
{
    int index;

    if (background == NULL) {
        return APPHOST_ERROR_UNSUPPORTED;
    }
#ifdef BENCH_SPIN
    {
        pthread_t spinner;

        if (pthread_create(&spinner, NULL, spin, NULL) != 0) {
            return APPHOST_ERROR_GUEST_FAILED;
        }
        pthread_detach(spinner);
    }
#endif
    for (index = 0; index < BENCH_TASKS; index++) {
        if (background->begin_task(host_interface, "held", expiring, NULL) == APPHOST_TASK_INVALID) {
            return APPHOST_ERROR_INVALID_STATE;
        }
    }
    return APPHOST_OK;
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, NULL, NULL,
};

static apphost_status_t init(const apphost_host_t *host)
{
    host_interface = host;
    background = host->get_extension(host, APPHOST_BACKGROUND_EXTENSION_ID);
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
    sizeof(apphost_guest_descriptor_t),
    BENCH_ID,
    "Overrunning benchmark guest",
    "1.0.0",
    "apphost",
    "Holds background tasks past its budget.",
    APPHOST_CAPABILITY_BACKGROUND_TASKS,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    {APPHOST_ABI_VERSION_MAJOR, APPHOST_ABI_VERSION_MINOR, APPHOST_ABI_VERSION_REVISION},
    &descriptor,
    init,
    deinit,
    query,
};
