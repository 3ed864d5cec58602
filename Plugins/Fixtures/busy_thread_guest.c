/*
 * A valid guest that keeps a thread of its own spinning from did_finish_launching
 * on, for suspension's tests (CONTRACT B7): with process isolation its worker's
 * CPU time grows while it runs and stands still while it is suspended. Logs
 * "callback <name>" from every callback and "spinning" once its thread runs.
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

static void *spin(void *unused)
{
    volatile unsigned long turns = 0;

    for (;;) {
        turns++;
    }
    return unused;
}

static apphost_status_t did_finish_launching(void)
{
    note("did_finish_launching", APPHOST_SCENE_INVALID);
    if (!g_started) {
        if (pthread_create(&g_spinner, NULL, spin, NULL) != 0) {
            return APPHOST_ERROR_GUEST_FAILED;
        }
        pthread_detach(g_spinner);
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

static void deinit(void) { g_host = NULL; }

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
