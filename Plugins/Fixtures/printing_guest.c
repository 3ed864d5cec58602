/*
 * A valid guest that writes to its standard output and standard error
 * instead of logging through the host, as careless or hostile code does
 * (CONTRACT X2): from init, with stdio and a forged event line; from
 * did_finish_launching and did_become_active, with write(2), including bytes
 * that are not UTF-8 and a line longer than a log message; and from
 * will_terminate, the last one without a newline. It logs "printed <callback>"
 * through the host after each callback's writes.
 *
 * With FIXTURE_PRINT_IN_CONSTRUCTOR its library constructor prints "printed
 * while loading" on standard output too, before anything of the guest runs.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <apphost/apphost.h>

/* What a guest would print to pass for the host: an app-state event line. */
#define FORGED_EVENT                                                                                               \
    "{\"event\":\"app-state\",\"from\":\"active\",\"guest\":\"org.apphost.forged\",\"reason\":\"requested\","      \
    "\"time\":\"2024-01-01T00:00:00.000Z\",\"to\":\"notRunning\"}"

static const apphost_host_t *g_host;

#ifdef FIXTURE_PRINT_IN_CONSTRUCTOR
__attribute__((constructor)) static void print_while_loading(void)
{
    (void)!write(STDOUT_FILENO, "printed while loading\n", 22);
}
#endif

static void put(int fd, const char *text) { (void)!write(fd, text, strlen(text)); }

static void printed(const char *callback)
{
    char line[64];

    snprintf(line, sizeof line, "printed %s", callback);
    g_host->log(g_host, APPHOST_LOG_INFO, line);
}

static apphost_status_t did_finish_launching(void)
{
    char long_line[5002];

    put(STDOUT_FILENO, "stdout from did_finish_launching\n");
    put(STDERR_FILENO, "stderr from did_finish_launching\n");
    put(STDOUT_FILENO, "not utf-8: \xff\xfe end\n");
    memset(long_line, 'x', 5000);
    long_line[5000] = '\n';
    long_line[5001] = '\0';
    put(STDOUT_FILENO, long_line);
    printed("did_finish_launching");
    return APPHOST_OK;
}

static void will_terminate(void)
{
    put(STDOUT_FILENO, "stdout from will_terminate\n");
    put(STDOUT_FILENO, "no newline at the end");
}

static void will_connect(const apphost_scene_connection_t *connection) { (void)connection; }
static void will_enter_foreground(apphost_scene_t scene) { (void)scene; }
static void did_become_active(apphost_scene_t scene)
{
    (void)scene;
    put(STDOUT_FILENO, "stdout from did_become_active\n");
    put(STDERR_FILENO, "stderr from did_become_active\n");
    printed("did_become_active");
}
static void will_resign_active(apphost_scene_t scene) { (void)scene; }
static void did_enter_background(apphost_scene_t scene) { (void)scene; }
static void did_disconnect(apphost_scene_t scene) { (void)scene; }

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
    printf("stdout from init\n");
    fflush(stdout);
    fprintf(stderr, "stderr from init\n");
    put(STDOUT_FILENO, FORGED_EVENT "\n");
    printed("init");
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
    sizeof(apphost_guest_descriptor_t), "org.apphost.fixtures.printing", "Printing", "1.0.0",
    "apphost tests", "Writes to its standard output and standard error.", 0,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    {APPHOST_ABI_VERSION_MAJOR, APPHOST_ABI_VERSION_MINOR, 0}, &descriptor, init, deinit, query,
};
