/*
 * A valid guest whose thread flaps its audio session from did_finish_launching
 * on: activate, deactivate, in a loop as tight as the runtime lets it, for the
 * tests and the benchmark of a guest that floods the host with requests
 * (CONTRACT X2, X7). Its session is a playback session that mixes with others,
 * so that it interrupts no one.
 *
 * Logs "flapping" once its thread runs, and, once each, the first status other
 * than APPHOST_OK that activate and deactivate returned ("activate refused:
 * limit_reached"), so that a test can see the host's throttle reach it. Its
 * activation_finished counts the answers. The thread stops, and is joined, in
 * deinit: in the host's process (--isolation none) it must not outlive the
 * library.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <apphost/apphost.h>

static const apphost_host_t *g_host;
static const apphost_audio_t *g_audio;
static pthread_t g_flapper;
static int g_started;
static int g_stop;
static unsigned long g_answers;

static void say_refused(const char *what, apphost_status_t status, int *said)
{
    char line[96];

    if (status == APPHOST_OK || *said) {
        return;
    }
    *said = 1;
    snprintf(line, sizeof line, "%s refused: %s", what, apphost_status_name(status));
    g_host->log(g_host, APPHOST_LOG_INFO, line);
}

static void *flap(void *unused)
{
    const apphost_host_t *host = g_host;
    apphost_audio_request_t request;
    int activate_said = 0;
    int deactivate_said = 0;

    host->log(host, APPHOST_LOG_INFO, "flapping");
    while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
        say_refused("activate", g_audio->activate(host, &request), &activate_said);
        say_refused("deactivate", g_audio->deactivate(host, 0), &deactivate_said);
    }
    return unused;
}

static apphost_status_t did_finish_launching(void)
{
    apphost_status_t status;

    g_audio = g_host->get_extension(g_host, APPHOST_AUDIO_EXTENSION_ID);
    if (g_audio == NULL) {
        g_host->log(g_host, APPHOST_LOG_ERROR, "no audio interface");
        return APPHOST_ERROR_GUEST_FAILED;
    }
    status = g_audio->set_configuration(g_host, APPHOST_AUDIO_CATEGORY_PLAYBACK, APPHOST_AUDIO_MODE_DEFAULT,
                                        APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS);
    if (status != APPHOST_OK) {
        return status;
    }
    if (!g_started) {
        if (pthread_create(&g_flapper, NULL, flap, NULL) != 0) {
            return APPHOST_ERROR_GUEST_FAILED;
        }
        g_started = 1;
    }
    return APPHOST_OK;
}

static void activation_finished(apphost_audio_request_t request, int32_t result)
{
    (void)request;
    (void)result;
    g_answers++;
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, NULL, NULL,
};

static apphost_guest_audio_t audio_callbacks;

static apphost_status_t init(const apphost_host_t *host)
{
    if (host == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    g_host = host;
    memset(&audio_callbacks, 0, sizeof audio_callbacks);
    audio_callbacks.struct_size = sizeof audio_callbacks;
    audio_callbacks.activation_finished = activation_finished;
    return APPHOST_OK;
}

static void deinit(void)
{
    if (g_started) {
        __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
        pthread_join(g_flapper, NULL);
        g_started = 0;
    }
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
    if (strcmp(interface_id, APPHOST_GUEST_AUDIO_CALLBACKS_ID) == 0) {
        return &audio_callbacks;
    }
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t), "org.apphost.fixtures.audio-flapping", "Audio Flapping", "1.0.0",
    "apphost tests", "Activates and deactivates its audio session in a loop.", 0,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    {APPHOST_ABI_VERSION_MAJOR, APPHOST_ABI_VERSION_MINOR, 0}, &descriptor, init, deinit, query,
};
