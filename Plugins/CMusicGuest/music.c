/*
 * C Music: a music player on the audio extension, "apphost.audio/1" (ABI
 * 1.4; its sound, ABI 1.5), in plain C, meant as a template. Its "music" is
 * a sine of 1000 Hz at amplitude 0.5 (peak -6.02 dBFS, RMS -9.03 dBFS), the
 * same sample on every channel, which render writes while the player plays
 * (CONTRACT C13). It plays the way a phone's player does (C1 to C12, B9):
 *
 *   - its session is PLAYBACK, so it is not silenced by the silence switch,
 *     interrupts the other sessions that do not mix, and may go on in
 *     background: the descriptor declares APPHOST_CAPABILITY_BACKGROUND_AUDIO
 *     (B9), so switching away does not stop the music;
 *   - "play" activates the session and, once the host says it is active
 *     (activation_finished), starts rendering: set_rendering(1);
 *   - "pause" stops rendering, set_rendering(0), and KEEPS THE SESSION
 *     ACTIVE, as players on phones do: playing again needs no new
 *     activation, and a pause is not the end of an interruption, so the
 *     guests this one interrupted are not told to resume because its user
 *     paused it. A paused player in background is suspended like any idle
 *     guest (B6, B9);
 *   - "stop" is the end of listening: set_rendering(0), then deactivate with
 *     APPHOST_AUDIO_NOTIFY_OTHERS, so that the guests it interrupted hear
 *     interruption_ended and may resume (C7);
 *   - interrupted (interruption_began: a call, another player, ...), it
 *     shows "paused"; when the interruption ends it resumes only when the
 *     host says should_resume = 1, which the host says only to a session
 *     that was playing (C7). It never resumes on its own otherwise;
 *   - when the headphones come out (route_changed with
 *     APPHOST_AUDIO_ROUTE_OLD_DEVICE_UNAVAILABLE) it pauses at once: music
 *     must not go on out of the speaker (C10; the host checks);
 *   - when the host's audio engine restarts (media_services_reset) it sets
 *     its session up again, and stays paused (C15).
 *
 * User actions (`apphost ctl action <scene> <action>`): play, pause, stop,
 * status (logs the session as get_session tells it).
 *
 * Log lines (INFO), which the end-to-end tests match; keep the format if you
 * copy this file:
 *   music: ready                              its session is set up
 *   music: no audio                           WARNING, the host offers no audio extension
 *   music: playing                            the user's play took effect
 *   music: resumed                            playing again after an interruption
 *   music: paused                             the user paused
 *   music: paused (interruption: <reason>)    interrupted while playing
 *   music: interrupted while paused (<reason>)
 *   music: paused (route: <output> gone)      the device it played on went away
 *   music: route <output> -> <output> (<reason>)
 *   music: stays paused (should_resume 0)     an interruption ended without leave to resume
 *   music: stays paused (paused by the user)  ... with leave, but the user paused meanwhile
 *   music: activation refused (<result>)      the host refused to activate (C5)
 *   music: stopped                            deactivated, with notify-others
 *   music: secondary audio hint silence=<0|1>
 *   music: media services reset               and set up again, paused
 *   music: session <category> active=<0|1> output=<output> gain=<gain>  (status)
 *   music: <function> -> <status>             WARNING, a host function failed
 * Reasons and results are named as the Swift SDK names them (otherSession,
 * call, oldDeviceUnavailable, callInProgress, ...).
 *
 * Threading: the host calls every callback on this guest's main queue, one at
 * a time, so the globals need no locks; but render runs on the host
 * runtime's real-time audio thread, and shares "playing" with the main
 * queue through a C11 atomic (no lock, no I/O, no host call in render).
 * The tone's phase comes from the period's number, so it has no clicks
 * across periods, pauses or late periods.
 *
 * Build it like any guest (see sdk/README.md), as C11 for the atomics:
 *   cc -std=c11 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags sdk/apphost.pc) \
 *      -Wl,--version-script=sdk/apphost.map music.c -lm -o libCMusicGuest.so
 */
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <apphost/apphost.h>

/* ---- Host access -------------------------------------------------------- */

/* The host interface from init; valid until deinit returns. */
static const apphost_host_t *g_host;
/* The audio extension, or NULL when the host does not offer it (a host older
 * than ABI 1.4): then the player logs "music: no audio" and plays nothing. */
static const apphost_audio_t *g_audio;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void
log_message(int32_t level, const char *format, ...)
{
    char message[256];
    va_list args;

    if (g_host == NULL || g_host->log == NULL) {
        return;
    }
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    g_host->log(g_host, level, message);
}

/* Logs a host function that failed; returns its status. */
static apphost_status_t checked(const char *function, apphost_status_t status)
{
    if (status != APPHOST_OK) {
        log_message(APPHOST_LOG_WARNING, "music: %s -> %s", function, apphost_status_name(status));
    }
    return status;
}

/* ---- Names for the log ---------------------------------------------------- */

static const char *interruption_name(int32_t reason)
{
    switch (reason) {
    case APPHOST_AUDIO_INTERRUPTION_OTHER_SESSION: return "otherSession";
    case APPHOST_AUDIO_INTERRUPTION_CALL: return "call";
    case APPHOST_AUDIO_INTERRUPTION_APP_WENT_TO_BACKGROUND: return "appWentToBackground";
    case APPHOST_AUDIO_INTERRUPTION_ROUTE_GONE: return "routeGone";
    case APPHOST_AUDIO_INTERRUPTION_SUSPENDED: return "suspended";
    default: return "unknown"; /* a reason newer than these headers */
    }
}

static const char *route_reason_name(int32_t reason)
{
    switch (reason) {
    case APPHOST_AUDIO_ROUTE_NEW_DEVICE_AVAILABLE: return "newDeviceAvailable";
    case APPHOST_AUDIO_ROUTE_OLD_DEVICE_UNAVAILABLE: return "oldDeviceUnavailable";
    case APPHOST_AUDIO_ROUTE_CATEGORY_CHANGE: return "categoryChange";
    case APPHOST_AUDIO_ROUTE_OVERRIDE: return "override";
    default: return "unknown";
    }
}

static const char *output_name(int32_t output)
{
    switch (output) {
    case APPHOST_AUDIO_OUTPUT_NONE: return "none";
    case APPHOST_AUDIO_OUTPUT_SPEAKER: return "speaker";
    case APPHOST_AUDIO_OUTPUT_HEADPHONES: return "headphones";
    case APPHOST_AUDIO_OUTPUT_BLUETOOTH: return "bluetooth";
    case APPHOST_AUDIO_OUTPUT_LINE_OUT: return "lineOut";
    default: return "unknown";
    }
}

static const char *activation_name(int32_t result)
{
    switch (result) {
    case APPHOST_AUDIO_ACTIVATED: return "activated";
    case APPHOST_AUDIO_REFUSED_CALL_IN_PROGRESS: return "callInProgress";
    case APPHOST_AUDIO_REFUSED_NON_MIXING_IN_BACKGROUND: return "nonMixingInBackground";
    case APPHOST_AUDIO_REFUSED_NOT_RUNNING: return "notRunning";
    default: return "unknown";
    }
}

static const char *category_name(int32_t category)
{
    switch (category) {
    case APPHOST_AUDIO_CATEGORY_AMBIENT: return "ambient";
    case APPHOST_AUDIO_CATEGORY_SOLO_AMBIENT: return "soloAmbient";
    case APPHOST_AUDIO_CATEGORY_PLAYBACK: return "playback";
    case APPHOST_AUDIO_CATEGORY_RECORD: return "record";
    case APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD: return "playAndRecord";
    default: return "unknown";
    }
}

/* ---- The player ----------------------------------------------------------- */

/* What the user wants: 1 from "play" until "pause", "stop" or the headphones
 * coming out. An interruption does not change it: the user did not pause. */
static int g_wants_to_play;
/* 1 while the guest renders (it told the host set_rendering(1)). */
static int g_playing;
/* g_playing for the audio thread: render plays the tone while it is 1. */
static atomic_int g_sounding;
/* The activation this player waits for, or APPHOST_AUDIO_REQUEST_INVALID. */
static apphost_audio_request_t g_request = APPHOST_AUDIO_REQUEST_INVALID;
/* The activation awaited resumes after an interruption ("resumed"), rather
 * than the user's play ("playing"). */
static int g_resuming;

/* The session: PLAYBACK, default mode, no options (so it does not mix:
 * activating it interrupts the other players, C5). */
static void set_up_session(void)
{
    if (checked("set_configuration", g_audio->set_configuration(g_host, APPHOST_AUDIO_CATEGORY_PLAYBACK,
                                                                APPHOST_AUDIO_MODE_DEFAULT, 0)) == APPHOST_OK) {
        log_message(APPHOST_LOG_INFO, "music: ready");
    }
}

/* Asks for the session; activation_finished answers, on the main queue. An
 * active session is activated again at no cost, so this is also how a
 * paused player plays again. */
static void request_activation(int resuming)
{
    if (g_request != APPHOST_AUDIO_REQUEST_INVALID) {
        return; /* one request at a time: the answer is coming */
    }
    g_resuming = resuming;
    (void)checked("activate", g_audio->activate(g_host, &g_request));
}

/* Whether render plays the tone, from the next period on. */
static void set_playing(int playing)
{
    g_playing = playing;
    atomic_store_explicit(&g_sounding, playing, memory_order_relaxed);
}

/* Stops rendering; the session stays as it is. */
static void stop_rendering(void)
{
    if (g_playing) {
        set_playing(0);
        (void)checked("set_rendering", g_audio->set_rendering(g_host, 0));
    }
}

static void play(void)
{
    g_wants_to_play = 1;
    if (g_playing) {
        log_message(APPHOST_LOG_INFO, "music: playing");
        return;
    }
    request_activation(0);
}

static void pause_playing(void)
{
    g_wants_to_play = 0;
    stop_rendering();
    /* The session stays active: see the top of the file. */
    log_message(APPHOST_LOG_INFO, "music: paused");
}

static void stop(void)
{
    g_wants_to_play = 0;
    stop_rendering();
    /* NOTIFY_OTHERS: what this player interrupted may resume (C7). */
    if (checked("deactivate", g_audio->deactivate(g_host, APPHOST_AUDIO_NOTIFY_OTHERS)) == APPHOST_OK) {
        log_message(APPHOST_LOG_INFO, "music: stopped");
    }
}

static void log_status(void)
{
    apphost_audio_session_t session;

    memset(&session, 0, sizeof session);
    session.struct_size = sizeof session;
    if (checked("get_session", g_audio->get_session(g_host, &session)) == APPHOST_OK) {
        log_message(APPHOST_LOG_INFO, "music: session %s active=%d output=%s gain=%.2f", category_name(session.category),
                    (int)session.active, output_name(session.output), session.gain);
    }
}

/* ---- The audio callbacks (apphost_guest_audio_t) --------------------------- */

static void activation_finished(apphost_audio_request_t request, int32_t result)
{
    if (request != g_request) {
        return; /* not the request this player waits for */
    }
    g_request = APPHOST_AUDIO_REQUEST_INVALID;
    if (result != APPHOST_AUDIO_ACTIVATED) {
        /* A call holds audio, or the guest is in background (C5): stay paused. */
        log_message(APPHOST_LOG_INFO, "music: activation refused (%s)", activation_name(result));
        return;
    }
    if (!g_wants_to_play) {
        return; /* paused while the host decided: active, silent */
    }
    /* Say it after every activation: the host forgets it whenever the
     * session becomes inactive. */
    if (checked("set_rendering", g_audio->set_rendering(g_host, 1)) == APPHOST_OK) {
        set_playing(1);
        log_message(APPHOST_LOG_INFO, g_resuming ? "music: resumed" : "music: playing");
    }
}

static void interruption_began(int32_t reason)
{
    /* The session is already inactive and no longer mixed (C6): no
     * set_rendering(0) is needed, the host forgot it. */
    if (g_playing) {
        set_playing(0);
        log_message(APPHOST_LOG_INFO, "music: paused (interruption: %s)", interruption_name(reason));
    } else {
        log_message(APPHOST_LOG_INFO, "music: interrupted while paused (%s)", interruption_name(reason));
    }
}

static void interruption_ended(int32_t reason, int32_t should_resume)
{
    (void)reason;
    if (!should_resume) {
        /* The user had paused, or whoever interrupted did not say (C7). */
        log_message(APPHOST_LOG_INFO, "music: stays paused (should_resume 0)");
    } else if (!g_wants_to_play) {
        log_message(APPHOST_LOG_INFO, "music: stays paused (paused by the user)");
    } else {
        request_activation(1); /* "music: resumed" once active */
    }
}

static void route_changed(int32_t reason, const apphost_audio_route_t *previous, const apphost_audio_route_t *current)
{
    /* Both routes are the host's and valid only during this call. */
    int32_t from = previous != NULL ? previous->output : APPHOST_AUDIO_OUTPUT_NONE;
    int32_t to = current != NULL ? current->output : APPHOST_AUDIO_OUTPUT_NONE;

    log_message(APPHOST_LOG_INFO, "music: route %s -> %s (%s)", output_name(from), output_name(to),
                route_reason_name(reason));
    if (reason == APPHOST_AUDIO_ROUTE_OLD_DEVICE_UNAVAILABLE && g_playing) {
        /* The headphones came out: never go on out of the speaker (C10). */
        g_wants_to_play = 0;
        stop_rendering();
        log_message(APPHOST_LOG_INFO, "music: paused (route: %s gone)", output_name(from));
    }
}

static void secondary_audio_hint(int32_t silence)
{
    /* Music is primary audio: nothing of it is secondary. A game would
     * silence its soundtrack here. */
    log_message(APPHOST_LOG_INFO, "music: secondary audio hint silence=%d", (int)silence);
}

static void media_services_reset(void)
{
    /* The session is back to soloAmbient, inactive (C15): set it up again,
     * and let the user press play. */
    set_playing(0);
    g_wants_to_play = 0;
    g_request = APPHOST_AUDIO_REQUEST_INVALID;
    log_message(APPHOST_LOG_INFO, "music: media services reset");
    set_up_session();
}

/* ---- The sound (ABI 1.5) --------------------------------------------------- */

/* The music: a sine of MUSIC_FREQUENCY Hz at MUSIC_AMPLITUDE of full scale. */
#define MUSIC_FREQUENCY 1000.0
#define MUSIC_AMPLITUDE 0.5

/* [audio-thread] Called once per period while the session is active and not
 * interrupted; the output holds silence on entry, so a paused player just
 * returns. The phase comes from the frame's position on the host's clock,
 * period * frame_count + frame, taken modulo the rate (a whole number of
 * 1000 Hz cycles per second) so that the double keeps its precision. */
static void render(const apphost_audio_buffer_t *buffer)
{
    const double two_pi = 6.283185307179586;
    uint64_t start;

    if (!atomic_load_explicit(&g_sounding, memory_order_relaxed) || buffer->sample_rate == 0) {
        return;
    }
    start = buffer->period * buffer->frame_count;
    for (uint32_t frame = 0; frame < buffer->frame_count; frame++) {
        uint64_t position = (start + frame) % buffer->sample_rate;
        float value = (float)(MUSIC_AMPLITUDE *
                              sin(two_pi * MUSIC_FREQUENCY * (double)position / (double)buffer->sample_rate));

        for (uint32_t channel = 0; channel < buffer->channel_count; channel++) {
            buffer->output[(size_t)frame * buffer->channel_count + channel] = value;
        }
    }
}

/* ---- App and scene callbacks ---------------------------------------------- */

static apphost_status_t did_finish_launching(void)
{
    /* The audio functions refuse every call during init: set up here. */
    if (g_audio == NULL) {
        log_message(APPHOST_LOG_WARNING, "music: no audio");
        return APPHOST_OK;
    }
    set_up_session();
    return APPHOST_OK;
}

static void will_connect(const apphost_scene_connection_t *connection)
{
    if (connection != NULL) {
        log_message(APPHOST_LOG_INFO, "music: scene connected");
    }
}

/* The player's one window. A real player would show "paused" or "playing". */
static void perform_action(apphost_scene_t scene, const char *name, const void *payload, size_t length)
{
    (void)scene;
    (void)payload;
    (void)length;
    if (name == NULL) {
        return;
    }
    if (g_audio == NULL) {
        log_message(APPHOST_LOG_WARNING, "music: %s -> unsupported", name);
    } else if (strcmp(name, "play") == 0) {
        play();
    } else if (strcmp(name, "pause") == 0) {
        pause_playing();
    } else if (strcmp(name, "stop") == 0) {
        stop();
    } else if (strcmp(name, "status") == 0) {
        log_status();
    } else {
        log_message(APPHOST_LOG_WARNING, "music: unknown action %s", name);
    }
}

/* ---- Entry point --------------------------------------------------------- */

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t),
    did_finish_launching,
    NULL, /* will_terminate: nothing to save; the host ends the session */
    NULL,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), will_connect, NULL, NULL, NULL, NULL, NULL,
};

/* User actions arrive through the scenes extension's callbacks. */
static const apphost_guest_scenes_t guest_scenes = {
    sizeof(apphost_guest_scenes_t), NULL, perform_action, NULL, NULL, NULL, NULL,
};

/* Without this table the player would never learn that it was interrupted.
 * A host of ABI 1.4 reads it up to media_services_reset: render, past its
 * struct_size, is never called there, and the player is silent. */
static const apphost_guest_audio_t guest_audio = {
    sizeof(apphost_guest_audio_t),
    activation_finished,
    interruption_began,
    interruption_ended,
    route_changed,
    secondary_audio_hint,
    media_services_reset,
    render,
};

static apphost_status_t init(const apphost_host_t *host)
{
    const apphost_audio_t *audio = NULL;

    if (host == NULL || !APPHOST_HAS_MEMBER(host, apphost_host_t, get_extension) || host->get_extension == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    g_host = host;
    g_wants_to_play = 0;
    set_playing(0);
    g_request = APPHOST_AUDIO_REQUEST_INVALID;
    /* Every member this file calls is in the table of ABI 1.4, up to
     * get_session: a table that ends earlier (a broken host) is no table. */
    audio = host->get_extension(host, APPHOST_AUDIO_EXTENSION_ID);
    g_audio = audio != NULL && APPHOST_HAS_MEMBER(audio, apphost_audio_t, get_session) ? audio : NULL;
    return APPHOST_OK;
}

static void deinit(void)
{
    g_audio = NULL;
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
    if (strcmp(interface_id, APPHOST_GUEST_SCENES_CALLBACKS_ID) == 0) {
        return &guest_scenes;
    }
    if (strcmp(interface_id, APPHOST_GUEST_AUDIO_CALLBACKS_ID) == 0) {
        return &guest_audio;
    }
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t),
    "org.apphost.samples.music",
    "C Music",
    "1.0.0",
    "apphost",
    "A music player: plays in background, pauses when interrupted or unplugged.",
    /* B9: may go on playing in background. */
    APPHOST_CAPABILITY_BACKGROUND_AUDIO,
    NULL,
};

const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
