/*
 * A valid guest that uses every function of the audio extension,
 * "apphost.audio/1", as the commands a test gives it say, logs what each
 * returned, and logs every callback of apphost_guest_audio_t it gets with
 * the session as get_session tells it there, so that a test can check it in
 * process or from the far side of the worker's socket.
 *
 * Commands, separated by ';', run in order:
 *   configure <category> <mode> <options>
 *                       set_configuration; logs "configure <category>
 *                       <mode> <options> = <status name>"
 *   activate            activate; logs "activate = <status name> <request
 *                       written>"
 *   deactivate <flags>  deactivate; logs "deactivate <flags> = <status>"
 *   rendering <value>   set_rendering; logs "rendering <value> = <status>"
 *   gain <value>        set_gain (strtod: "nan" works); logs "gain <value> =
 *                       <status>"
 *   override <value>    override_output; logs "override <value> = <status>"
 *   session             get_session; logs "session = <session>" (below) or
 *                       "session = <status name>"
 *   react [command]     runs [command] (one, without ';') at the end of
 *                       every audio callback from now on; none: stops
 *   thread <command>    runs one command on a thread of the guest's own and
 *                       waits for it (CONTRACT X3's thread rule)
 *
 * <session> is "cat=<category> mode=<mode> options=<options>
 * active=<0 or 1> route=<output>/<input> format=<rate>/<frames>/<channels>
 * gain=<gain> size=<struct_size>".
 *
 * init, will_terminate and deinit call every function but get_session with
 * arguments that are valid (set_configuration also with a combination the
 * table refuses), and log "<where> configure=<status> combination=<status>
 * activate=<status> <request> deactivate=<status> rendering=<status>
 * gain=<status> override=<status> session=<status> active=<0 or 1>".
 *
 * The commands come from the session id of every scene that connects (for
 * a test driving a worker) and the fixture_run hook (a test calling the
 * runtime in process).
 *
 * Callbacks log: "activation_finished <request> <result> active=<a>",
 * "interruption_began <reason> active=<a>", "interruption_ended <reason>
 * resume=<should_resume> active=<a>", "route_changed <reason>
 * <output>/<input> -> <output>/<input> sizes=<previous struct_size>/<current
 * struct_size> session=<output>/<input>", "secondary_audio_hint <silence>",
 * "media_services_reset <session>", where <a> and session= are what
 * get_session says inside the callback.
 *
 * render (ABI 1.5, CONTRACT C13) writes the guest's test signal: sample
 * 0.25 + ((period * frame_count + frame) % 100) / 1000, the same on every
 * channel, so that a test can tell each period's samples from silence and
 * from another period's; when the session records (input not NULL) it
 * copies the input to the output instead. It counts its calls, its calls
 * with input, and notes, with C11 atomics only, whether it ran on the
 * thread of the main-queue callbacks or after deinit began.
 *
 * -DFIXTURE_NO_AUDIO_CALLBACKS leaves apphost_guest_audio_t out of query;
 * -DFIXTURE_AUDIO_CALLBACKS_SIZE=<n> declares its struct_size (ABI 1.4's
 * table: offsetof(apphost_guest_audio_t,render)); -DFIXTURE_NO_RENDER
 * leaves render NULL; -DFIXTURE_SLOW_DEINIT=<us> makes deinit sleep that
 * long once it began, so that a render still running would be seen.
 *
 * Test hooks, exported besides apphost_entry (fixtures are not samples):
 *   fixture_run         runs commands on the caller's thread
 *   fixture_host        the host interface init received, NULL after deinit
 *   fixture_audio       the extension get_extension returned in init
 *   fixture_render_calls, fixture_render_inputs
 *                       render's calls, and those with input
 *   fixture_render_thread
 *                       the thread render last ran on (pthread_t as an
 *                       integer), 0 before
 *   fixture_render_on_main_thread
 *                       1 once render ran on the thread of a main-queue
 *                       callback (init, activation_finished, ...)
 *   fixture_deinit_began, fixture_render_after_deinit
 *                       deinit began; render ran after it had
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.apphost.fixtures.audio-runtime"
#endif
/* Its entitlements: background audio and audio input (A6) unless told. */
#ifndef FIXTURE_CAPABILITIES
#define FIXTURE_CAPABILITIES (APPHOST_CAPABILITY_BACKGROUND_AUDIO | APPHOST_CAPABILITY_AUDIO_INPUT)
#endif
#ifndef FIXTURE_AUDIO_CALLBACKS_SIZE
#define FIXTURE_AUDIO_CALLBACKS_SIZE sizeof(apphost_guest_audio_t)
#endif

static const apphost_host_t *g_host;
static const apphost_audio_t *g_audio;
static char g_react[256];

/* Shared with the audio thread: atomics only, no lock in render. */
static atomic_uint_fast64_t g_render_calls;
static atomic_uint_fast64_t g_render_inputs;
static atomic_uintptr_t g_render_thread;
static atomic_uintptr_t g_main_thread;
static atomic_int g_render_on_main_thread;
static atomic_int g_deinit_began;
static atomic_int g_render_after_deinit;

/* Called from every main-queue callback: the thread render must never be. */
static void note_main_thread(void) { atomic_store(&g_main_thread, (uintptr_t)pthread_self()); }

static void say(const char *format, ...)
{
    char line[1024];
    va_list arguments;

    va_start(arguments, format);
    vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    g_host->log(g_host, APPHOST_LOG_INFO, line);
}

static const char *name(apphost_status_t status) { return apphost_status_name(status); }

static int32_t integer(const char *text) { return text == NULL ? 0 : (int32_t)strtol(text, NULL, 10); }

/* get_session as text, or its status's name. */
static const char *describe_session(char *text, size_t size)
{
    apphost_audio_session_t session;
    apphost_status_t status;

    memset(&session, 0xAB, sizeof session);
    session.struct_size = sizeof session;
    status = g_audio->get_session(g_host, &session);
    if (status != APPHOST_OK) {
        snprintf(text, size, "%s", name(status));
    } else {
        snprintf(text, size, "cat=%d mode=%d options=%u active=%d route=%d/%d format=%u/%u/%u gain=%g size=%u",
                 (int)session.category, (int)session.mode, (unsigned)session.options, (int)session.active,
                 (int)session.output, (int)session.input, (unsigned)session.sample_rate,
                 (unsigned)session.period_frames, (unsigned)session.channel_count, session.gain,
                 (unsigned)session.struct_size);
    }
    return text;
}

/* get_session's `active`, or -1 when it fails. */
static int active(void)
{
    apphost_audio_session_t session;

    session.struct_size = sizeof session;
    return g_audio->get_session(g_host, &session) == APPHOST_OK ? (int)session.active : -1;
}

/* Every function but get_session, with valid arguments (CONTRACT X3's state
 * rule), on one line. */
static void every_function(const char *where)
{
    apphost_audio_request_t request = 99;
    apphost_status_t configured = g_audio->set_configuration(g_host, APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD, 0, 0);
    apphost_status_t combination =
        g_audio->set_configuration(g_host, APPHOST_AUDIO_CATEGORY_AMBIENT, 0, APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS);
    apphost_status_t activated = g_audio->activate(g_host, &request);
    apphost_status_t deactivated = g_audio->deactivate(g_host, APPHOST_AUDIO_NOTIFY_OTHERS);
    apphost_status_t rendering = g_audio->set_rendering(g_host, 1);
    apphost_status_t gain = g_audio->set_gain(g_host, 0.5);
    apphost_status_t overridden = g_audio->override_output(g_host, APPHOST_AUDIO_OVERRIDE_SPEAKER);
    apphost_audio_session_t session;
    apphost_status_t told;

    session.struct_size = sizeof session;
    told = g_audio->get_session(g_host, &session);
    say("%s configure=%s combination=%s activate=%s %" PRIu64 " deactivate=%s rendering=%s gain=%s override=%s "
        "session=%s active=%d",
        where, name(configured), name(combination), name(activated), request, name(deactivated), name(rendering),
        name(gain), name(overridden), name(told), told == APPHOST_OK ? (int)session.active : -1);
}

/* ---- Commands ------------------------------------------------------------- */

static void run_one(char *command);
static void run_one_here(char *command);

static void *run_on_thread(void *command)
{
    run_one(command);
    return NULL;
}

static void run_one(char *command)
{
    pthread_t thread;

    if (strncmp(command, "thread ", 7) == 0) {
        if (pthread_create(&thread, NULL, run_on_thread, command + 7) != 0) {
            say("thread = cannot start");
            return;
        }
        pthread_join(thread, NULL);
        return;
    }
    if (strncmp(command, "react", 5) == 0 && (command[5] == ' ' || command[5] == '\0')) {
        snprintf(g_react, sizeof g_react, "%s", command[5] == ' ' ? command + 6 : "");
        return;
    }
    run_one_here(command);
}

static void run_one_here(char *command)
{
    char *saved = NULL;
    char *verb = strtok_r(command, " ", &saved);
    char *first = strtok_r(NULL, " ", &saved);
    char *second = strtok_r(NULL, " ", &saved);
    char *third = strtok_r(NULL, " ", &saved);
    char text[256];

    if (verb == NULL) {
        return;
    }
    if (strcmp(verb, "configure") == 0 && third != NULL) {
        say("configure %s %s %s = %s", first, second, third,
            name(g_audio->set_configuration(g_host, integer(first), integer(second),
                                            (uint32_t)strtoul(third, NULL, 10))));
    } else if (strcmp(verb, "activate") == 0) {
        apphost_audio_request_t request = 99;
        apphost_status_t status = g_audio->activate(g_host, &request);
        say("activate = %s %" PRIu64, name(status), request);
    } else if (strcmp(verb, "deactivate") == 0 && first != NULL) {
        say("deactivate %s = %s", first, name(g_audio->deactivate(g_host, (uint32_t)strtoul(first, NULL, 10))));
    } else if (strcmp(verb, "rendering") == 0 && first != NULL) {
        say("rendering %s = %s", first, name(g_audio->set_rendering(g_host, integer(first))));
    } else if (strcmp(verb, "gain") == 0 && first != NULL) {
        say("gain %s = %s", first, name(g_audio->set_gain(g_host, strtod(first, NULL))));
    } else if (strcmp(verb, "override") == 0 && first != NULL) {
        say("override %s = %s", first, name(g_audio->override_output(g_host, integer(first))));
    } else if (strcmp(verb, "session") == 0) {
        say("session = %s", describe_session(text, sizeof text));
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

/* What `react` asked for, after each audio callback. */
static void react(void)
{
    char command[sizeof g_react];

    if (g_react[0] != '\0') {
        memcpy(command, g_react, sizeof command);
        run_one(command);
    }
}

/* ---- The guest's callbacks ------------------------------------------------ */

static void activation_finished(apphost_audio_request_t request, int32_t result)
{
    note_main_thread();
    say("activation_finished %" PRIu64 " %d active=%d", request, (int)result, active());
    react();
}

static void interruption_began(int32_t reason)
{
    note_main_thread();
    say("interruption_began %d active=%d", (int)reason, active());
    react();
}

static void interruption_ended(int32_t reason, int32_t should_resume)
{
    note_main_thread();
    say("interruption_ended %d resume=%d active=%d", (int)reason, (int)should_resume, active());
    react();
}

static void route_changed(int32_t reason, const apphost_audio_route_t *previous, const apphost_audio_route_t *current)
{
    apphost_audio_session_t session;

    session.struct_size = sizeof session;
    session.output = session.input = -1;
    g_audio->get_session(g_host, &session);
    say("route_changed %d %d/%d -> %d/%d sizes=%u/%u session=%d/%d", (int)reason, (int)previous->output,
        (int)previous->input, (int)current->output, (int)current->input, (unsigned)previous->struct_size,
        (unsigned)current->struct_size, (int)session.output, (int)session.input);
    react();
}

static void secondary_audio_hint(int32_t silence)
{
    note_main_thread();
    say("secondary_audio_hint %d", (int)silence);
    react();
}

static void media_services_reset(void)
{
    char text[256];

    say("media_services_reset %s", describe_session(text, sizeof text));
    react();
}

/* [audio-thread] The test signal, or the input copied. No lock, no malloc,
 * no host call. */
static void render(const apphost_audio_buffer_t *buffer)
{
    uintptr_t self = (uintptr_t)pthread_self();
    size_t samples = (size_t)buffer->frame_count * buffer->channel_count;

    atomic_store(&g_render_thread, self);
    if (self == atomic_load(&g_main_thread)) {
        atomic_store(&g_render_on_main_thread, 1);
    }
    if (atomic_load(&g_deinit_began)) {
        atomic_store(&g_render_after_deinit, 1);
    }
    atomic_fetch_add(&g_render_calls, 1);
    if (buffer->input != NULL) {
        atomic_fetch_add(&g_render_inputs, 1);
        memcpy(buffer->output, buffer->input, samples * sizeof(float));
        return;
    }
    for (uint32_t frame = 0; frame < buffer->frame_count; frame++) {
        uint64_t position = buffer->period * buffer->frame_count + frame;
        float value = 0.25f + (float)(position % 100) / 1000.0f;

        for (uint32_t channel = 0; channel < buffer->channel_count; channel++) {
            buffer->output[(size_t)frame * buffer->channel_count + channel] = value;
        }
    }
}

#ifdef FIXTURE_NO_RENDER
#define FIXTURE_RENDER NULL
#else
#define FIXTURE_RENDER render
#endif

static void will_connect(const apphost_scene_connection_t *connection)
{
    run(connection->session_id, strlen(connection->session_id));
}

static apphost_status_t did_finish_launching(void) { return APPHOST_OK; }

static void will_terminate(void) { every_function("will_terminate"); }

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t),
    did_finish_launching,
    will_terminate,
    NULL,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), will_connect, NULL, NULL, NULL, NULL, NULL,
};

static const apphost_guest_audio_t audio_callbacks = {
    FIXTURE_AUDIO_CALLBACKS_SIZE, activation_finished,  interruption_began,   interruption_ended,
    route_changed,                secondary_audio_hint, media_services_reset, FIXTURE_RENDER,
};

static apphost_status_t init(const apphost_host_t *host)
{
    if (host == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    g_host = host;
    g_react[0] = '\0';
    note_main_thread();
    atomic_store(&g_render_calls, 0);
    atomic_store(&g_render_inputs, 0);
    atomic_store(&g_render_thread, 0);
    atomic_store(&g_render_on_main_thread, 0);
    atomic_store(&g_deinit_began, 0);
    atomic_store(&g_render_after_deinit, 0);
    g_audio = host->get_extension(host, APPHOST_AUDIO_EXTENSION_ID);
    if (g_audio == NULL || g_audio->struct_size < sizeof(apphost_audio_t)) {
        say("init: no audio extension");
        return APPHOST_ERROR_UNSUPPORTED;
    }
    /* Before the guest runs: only get_session answers. */
    every_function("init");
    return APPHOST_OK;
}

static void deinit(void)
{
    atomic_store(&g_deinit_began, 1);
#ifdef FIXTURE_SLOW_DEINIT
    struct timespec slow = {FIXTURE_SLOW_DEINIT / 1000000, FIXTURE_SLOW_DEINIT % 1000000 * 1000};

    nanosleep(&slow, NULL);
#endif
    every_function("deinit");
    g_host = NULL;
    g_audio = NULL;
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
#ifndef FIXTURE_NO_AUDIO_CALLBACKS
    if (strcmp(interface_id, APPHOST_GUEST_AUDIO_CALLBACKS_ID) == 0) {
        return &audio_callbacks;
    }
#endif
    (void)audio_callbacks;
    (void)render;
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t),
    FIXTURE_ID,
    "Audio Runtime Fixture",
    "1.0.0",
    "apphost tests",
    "Uses every function of apphost.audio/1 as its tests say.",
    FIXTURE_CAPABILITIES,
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};

/* ---- Test hooks ----------------------------------------------------------- */

APPHOST_EXPORT void fixture_run(const char *commands) { run(commands, strlen(commands)); }

APPHOST_EXPORT const apphost_host_t *fixture_host(void) { return g_host; }

APPHOST_EXPORT const apphost_audio_t *fixture_audio(void) { return g_audio; }

APPHOST_EXPORT uint64_t fixture_render_calls(void) { return atomic_load(&g_render_calls); }

APPHOST_EXPORT uint64_t fixture_render_inputs(void) { return atomic_load(&g_render_inputs); }

APPHOST_EXPORT uint64_t fixture_render_thread(void) { return atomic_load(&g_render_thread); }

APPHOST_EXPORT int fixture_render_on_main_thread(void) { return atomic_load(&g_render_on_main_thread); }

APPHOST_EXPORT int fixture_deinit_began(void) { return atomic_load(&g_deinit_began); }

APPHOST_EXPORT int fixture_render_after_deinit(void) { return atomic_load(&g_render_after_deinit); }
