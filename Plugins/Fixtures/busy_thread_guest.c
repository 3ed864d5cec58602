/*
 * A valid guest that keeps a thread of its own spinning from did_finish_launching
 * on, for suspension's tests (CONTRACT B7): with process isolation its worker's
 * CPU time grows while it runs and stands still while it is suspended. Logs
 * "callback <name>" from every callback and "spinning" once its thread runs.
 *
 * With FIXTURE_FLOOD its thread floods instead of spinning, "flood <n>" in a
 * tight loop, for the tests of a host whose output backs up (CONTRACT X2):
 * FIXTURE_FLOOD=1 through host->log, FIXTURE_FLOOD=2 by printf on standard
 * output. The thread stops, and is joined, in deinit: in the host's process
 * (--isolation none) it must not outlive the library.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <apphost/apphost.h>

static const apphost_host_t *g_host;
static pthread_t g_spinner;
static int g_started;

static void note(const char *event, apphost_scene_t scene)
{
    char line[96];

    if (scene == APPHOST_SCENE_INVALID) {
        snprintf(line, sizeof line, "callback %s", event);
    } else {
        snprintf(line, sizeof line, "callback %s scene=%llu", event, (unsigned long long)scene);
    }
    g_host->log(g_host, APPHOST_LOG_INFO, line);
}

#ifdef FIXTURE_FLOOD
static int g_stop;

static void *spin(void *unused)
{
    const apphost_host_t *host = g_host;
    unsigned long turns = 0;
    char line[64];

    while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
        turns++;
        snprintf(line, sizeof line, "flood %lu", turns);
#if FIXTURE_FLOOD == 1
        host->log(host, APPHOST_LOG_INFO, line);
#else
        printf("%s\n", line);
#endif
    }
    return unused;
}
#else
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
    note("did_finish_launching", APPHOST_SCENE_INVALID);
    if (!g_started) {
        if (pthread_create(&g_spinner, NULL, spin, NULL) != 0) {
            return APPHOST_ERROR_GUEST_FAILED;
        }
#ifndef FIXTURE_FLOOD
        pthread_detach(g_spinner);
#endif
        g_started = 1;
    }
    g_host->log(g_host, APPHOST_LOG_INFO, "spinning");
    return APPHOST_OK;
}

static void will_terminate(void) { note("will_terminate", APPHOST_SCENE_INVALID); }
static void will_connect(const apphost_scene_connection_t *connection)
{
    note("will_connect", connection == NULL ? APPHOST_SCENE_INVALID : connection->scene);
}
static void will_enter_foreground(apphost_scene_t scene) { note("will_enter_foreground", scene); }
static void did_become_active(apphost_scene_t scene) { note("did_become_active", scene); }
static void will_resign_active(apphost_scene_t scene) { note("will_resign_active", scene); }
static void did_enter_background(apphost_scene_t scene) { note("did_enter_background", scene); }
static void did_disconnect(apphost_scene_t scene) { note("did_disconnect", scene); }

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, will_terminate, NULL,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), will_connect,      will_enter_foreground, did_become_active,
    will_resign_active,                did_enter_background, did_disconnect,
};

static apphost_status_t init(const apphost_host_t *host)
{
    if (host == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    g_host = host;
    return APPHOST_OK;
}

static void deinit(void)
{
#ifdef FIXTURE_FLOOD
    if (g_started) {
        __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
        pthread_join(g_spinner, NULL);
        g_started = 0;
    }
#endif
    g_host = NULL;
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
    sizeof(apphost_guest_descriptor_t), "org.apphost.fixtures.busy-thread", "Busy Thread", "1.0.0",
    "apphost tests", "Spins a thread of its own while it runs.", 0,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    {APPHOST_ABI_VERSION_MAJOR, APPHOST_ABI_VERSION_MINOR, 0}, &descriptor, init, deinit, query,
};
