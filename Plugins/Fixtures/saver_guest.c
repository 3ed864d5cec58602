/*
 * A guest that saves its scene's state as fast as it can, for the test that
 * kills the host at random moments (CONTRACT S12): from a thread of its own,
 * states 1, 2, 3, ... continuing from the one it was restored with. Each
 * state is 4096 bytes: "state <k>;" then filler derived from k, and the last
 * 8 bytes are a checksum of the rest, so that a torn state is seen.
 *
 * On will_connect it logs "restored <k>" for a state that checks out,
 * "restored nothing" without one, and "torn" for one that does not.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <apphost/apphost.h>

enum { STATE_BYTES = 4096, BODY_BYTES = STATE_BYTES - 8 };

static const apphost_host_t *g_host;
static apphost_scene_t g_scene;
static uint64_t g_next;
static pthread_t g_thread;
static int g_started;
static volatile int g_stop;

static uint64_t checksum(const unsigned char *bytes, size_t length)
{
    uint64_t hash = 1469598103934665603u;
    size_t index;

    for (index = 0; index < length; index++) {
        hash = (hash ^ bytes[index]) * 1099511628211u;
    }
    return hash;
}

static void fill(unsigned char *state, uint64_t k)
{
    uint64_t hash;
    size_t index;
    int length = snprintf((char *)state, BODY_BYTES, "state %" PRIu64 ";", k);

    for (index = (size_t)length; index < BODY_BYTES; index++) {
        state[index] = (unsigned char)('a' + (k + index) % 26);
    }
    hash = checksum(state, BODY_BYTES);
    memcpy(state + BODY_BYTES, &hash, 8);
}

static void say(const char *text)
{
    g_host->log(g_host, APPHOST_LOG_INFO, text);
}

static void *saving(void *unused)
{
    unsigned char state[STATE_BYTES];
    struct timespec pause = {0, 2000000};

    (void)unused;
    while (!g_stop) {
        fill(state, g_next);
        if (g_host->save_scene_state(g_host, g_scene, state, sizeof state) == APPHOST_OK) {
            g_next++;
        }
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static void will_connect(const apphost_scene_connection_t *connection)
{
    char line[64];
    const unsigned char *restored = connection->restoration_data;
    uint64_t k = 0;
    uint64_t hash;

    if (restored == NULL) {
        say("restored nothing");
    } else if (connection->restoration_length != STATE_BYTES ||
               (memcpy(&hash, restored + BODY_BYTES, 8), hash != checksum(restored, BODY_BYTES)) ||
               sscanf((const char *)restored, "state %" SCNu64 ";", &k) != 1) {
        say("torn");
    } else {
        snprintf(line, sizeof line, "restored %" PRIu64, k);
        say(line);
    }
    g_next = k + 1;
    g_scene = connection->scene;
    if (!g_started && pthread_create(&g_thread, NULL, saving, NULL) == 0) {
        g_started = 1;
    }
}

static apphost_status_t did_finish_launching(void) { return APPHOST_OK; }

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, NULL, NULL,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), will_connect, NULL, NULL, NULL, NULL, NULL,
};

static apphost_status_t init(const apphost_host_t *host)
{
    g_host = host;
    return APPHOST_OK;
}

static void deinit(void)
{
    g_stop = 1;
    if (g_started) {
        pthread_join(g_thread, NULL);
    }
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
    sizeof(apphost_guest_descriptor_t), "org.apphost.fixtures.saver", "Saver", "1.0.0", "apphost tests",
    "Saves its state as fast as it can.", 0,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    {APPHOST_ABI_VERSION_MAJOR, APPHOST_ABI_VERSION_MINOR, 0}, &descriptor, init, deinit, query,
};
