/*
 * A valid guest that lets a test watch it. Every callback first calls the
 * observer the test installed (on the guest's main queue, while the callback
 * runs, so the observer may call [main-queue] host functions), then logs
 * "callback <name>" or "callback <name> scene=<handle>".
 *
 * Test hooks, exported besides apphost_entry (fixtures are not samples):
 *   fixture_set_observer   installs the observer; NULL removes it
 *   fixture_host           the host interface init received, NULL after deinit
 *   fixture_set_launch_status  what did_finish_launching returns next
 *   fixture_start_logger / fixture_join_logger
 *                          a thread of the guest's own that logs
 *                          "logger <i>" for i in 0..<count
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <apphost/apphost.h>

typedef void (*fixture_observer_t)(const char *event, apphost_scene_t scene,
                                   const apphost_scene_connection_t *connection);

static const apphost_host_t *g_host;
static fixture_observer_t g_observer;
static apphost_status_t g_launch_status = APPHOST_OK;
static pthread_t g_logger;
static int g_logger_count;

static void note(const char *event, apphost_scene_t scene, const apphost_scene_connection_t *connection)
{
    char line[128];

    if (g_observer != NULL) {
        g_observer(event, scene, connection);
    }
    if (g_host == NULL) {
        return;
    }
    if (scene == APPHOST_SCENE_INVALID) {
        snprintf(line, sizeof line, "callback %s", event);
    } else {
        snprintf(line, sizeof line, "callback %s scene=%" PRIu64, event, scene);
    }
    g_host->log(g_host, APPHOST_LOG_INFO, line);
}

static apphost_status_t did_finish_launching(void)
{
    note("did_finish_launching", APPHOST_SCENE_INVALID, NULL);
    return g_launch_status;
}

static void will_terminate(void) { note("will_terminate", APPHOST_SCENE_INVALID, NULL); }
static void did_receive_memory_warning(void) { note("did_receive_memory_warning", APPHOST_SCENE_INVALID, NULL); }
static void will_connect(const apphost_scene_connection_t *connection)
{
    note("will_connect", connection == NULL ? APPHOST_SCENE_INVALID : connection->scene, connection);
}
static void will_enter_foreground(apphost_scene_t scene) { note("will_enter_foreground", scene, NULL); }
static void did_become_active(apphost_scene_t scene) { note("did_become_active", scene, NULL); }
static void will_resign_active(apphost_scene_t scene) { note("will_resign_active", scene, NULL); }
static void did_enter_background(apphost_scene_t scene) { note("did_enter_background", scene, NULL); }
static void did_disconnect(apphost_scene_t scene) { note("did_disconnect", scene, NULL); }

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, will_terminate, did_receive_memory_warning,
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
    g_launch_status = APPHOST_OK;
    return APPHOST_OK;
}

static void deinit(void)
{
    note("deinit", APPHOST_SCENE_INVALID, NULL);
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
    sizeof(apphost_guest_descriptor_t),
    "org.apphost.fixtures.observable",
    "Observable Fixture",
    "2.3.4",
    "apphost tests",
    "Reports every callback to the test that loaded it.",
    APPHOST_CAPABILITY_MULTIPLE_SCENES,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};

/* ---- Test hooks ---------------------------------------------------------- */

APPHOST_EXPORT void fixture_set_observer(fixture_observer_t observer) { g_observer = observer; }

APPHOST_EXPORT const apphost_host_t *fixture_host(void) { return g_host; }

APPHOST_EXPORT void fixture_set_launch_status(apphost_status_t status) { g_launch_status = status; }

static void *log_repeatedly(void *unused)
{
    const apphost_host_t *host = g_host;
    char line[32];
    int i;

    (void)unused;
    for (i = 0; i < g_logger_count; i++) {
        snprintf(line, sizeof line, "logger %d", i);
        host->log(host, APPHOST_LOG_DEBUG, line);
    }
    return NULL;
}

/* Returns 0 when the thread started. */
APPHOST_EXPORT int fixture_start_logger(int count)
{
    if (g_host == NULL) {
        return -1;
    }
    g_logger_count = count;
    return pthread_create(&g_logger, NULL, log_repeatedly, NULL);
}

APPHOST_EXPORT int fixture_join_logger(void) { return pthread_join(g_logger, NULL); }
