/*
 * audio_host: a fake host for one guest, to test what a guest does with the
 * audio extension, "apphost.audio/1", without the real host's audio: it
 * loads the guest, offers it a host interface with an audio table of its own
 * (and the background extension's dispatch_async and timers, which the Swift
 * SDK's GuestActor needs), and plays the host's side as its arguments say,
 * printing every audio call the guest makes and every line it logs.
 *
 * It is a program, not a guest:
 *   cc -std=c99 -I sdk/include audio_host.c -o audio_host -ldl -pthread
 *   audio_host <guest.so> <command>...
 *
 * Commands, run in order; after each, the main queue runs until it has been
 * idle for 200 ms (so that Swift tasks hopping through dispatch_async settle):
 *   noaudio                 before launch: get_extension offers no audio table
 *   audio-size:<bytes>      before launch: the audio table's struct_size
 *   config-status:<status>  set_configuration returns <status> and changes nothing
 *   activate-status:<s>     activate returns <s> (no request)
 *   launch                  init, query, did_finish_launching
 *   show                    scene 1 connects and becomes active
 *   hide                    scene 1 resigns active and enters background
 *   action:<name>[:<text>]  perform_action on scene 1
 *   answer:<result>         activation_finished for the oldest request waiting
 *   began:<reason>          interruption_began (the session goes inactive)
 *   ended:<reason>:<0|1>    interruption_ended
 *   route:<reason>:<from>:<to>  route_changed between two outputs
 *   hint:<0|1>              secondary_audio_hint
 *   reset                   media_services_reset (the session goes back to launch)
 *   wait:<ms>               runs the main queue for <ms> milliseconds
 *   state                   prints the fake session
 *   terminate               will_terminate, then deinit
 *
 * Output lines:
 *   log <message>
 *   call set_configuration <category> <mode> <options> -> <status>
 *   call activate -> <status> request=<id>
 *   call deactivate <flags> -> <status>
 *   call set_rendering <0|1> -> <status>
 *   call set_gain <gain> -> <status>
 *   call override_output <value> -> <status>
 *   state category=<c> mode=<m> options=<o> active=<a> rendering=<r> gain=<g>
 *   error <what>             the harness could not go on (exit status 1)
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <apphost/apphost.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER;

/* Prints one whole line, from any thread. */
static void say(const char *format, ...)
{
    va_list args;

    pthread_mutex_lock(&g_lock);
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
    pthread_mutex_unlock(&g_lock);
}

static void fail(const char *what)
{
    say("error %s", what);
    exit(1);
}

static double now_ms(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1000.0 + (double)now.tv_nsec / 1.0e6;
}

/* ---- The main queue: work from dispatch_async and timers ----------------- */

enum { MAX_WORK = 4096, MAX_TIMERS = 64 };

struct work {
    apphost_work_t function;
    void *context;
};

struct timer {
    apphost_timer_t id;
    apphost_work_t function;
    void *context;
    double due_ms;
    double interval_ms;
};

static struct work g_work[MAX_WORK];
static size_t g_work_count;
static struct timer g_timers[MAX_TIMERS];
static apphost_timer_t g_next_timer = 1;

/* Runs what is due on the calling (main) thread; returns whether it ran anything. */
static int run_due(void)
{
    struct work work;
    struct timer *timer = NULL;
    size_t i;

    pthread_mutex_lock(&g_lock);
    if (g_work_count > 0) {
        work = g_work[0];
        memmove(&g_work[0], &g_work[1], (g_work_count - 1) * sizeof g_work[0]);
        g_work_count--;
        pthread_mutex_unlock(&g_lock);
        work.function(work.context);
        return 1;
    }
    for (i = 0; i < MAX_TIMERS; i++) {
        if (g_timers[i].id != APPHOST_TIMER_INVALID && g_timers[i].due_ms <= now_ms()) {
            timer = &g_timers[i];
            break;
        }
    }
    if (timer == NULL) {
        pthread_mutex_unlock(&g_lock);
        return 0;
    }
    work.function = timer->function;
    work.context = timer->context;
    if (timer->interval_ms > 0) {
        timer->due_ms += timer->interval_ms;
    } else {
        timer->id = APPHOST_TIMER_INVALID;
    }
    pthread_mutex_unlock(&g_lock);
    work.function(work.context);
    return 1;
}

/* Runs the main queue until it has been idle for `idle_ms`, and for at least `at_least_ms`. */
static void run_main_queue(double idle_ms, double at_least_ms)
{
    double start = now_ms();
    double idle_since = now_ms();

    for (;;) {
        if (run_due()) {
            idle_since = now_ms();
            continue;
        }
        if (now_ms() - idle_since >= idle_ms && now_ms() - start >= at_least_ms) {
            return;
        }
        pthread_mutex_lock(&g_lock);
        if (g_work_count == 0) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 5 * 1000000L;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec += 1;
                until.tv_nsec -= 1000000000L;
            }
            (void)pthread_cond_timedwait(&g_wake, &g_lock, &until);
        }
        pthread_mutex_unlock(&g_lock);
    }
}

/* ---- The background extension: what the Swift SDK uses of it ------------- */

static apphost_status_t dispatch_async_(const apphost_host_t *host, apphost_work_t work, void *context)
{
    (void)host;
    if (work == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&g_lock);
    if (g_work_count == MAX_WORK) {
        pthread_mutex_unlock(&g_lock);
        return APPHOST_ERROR_OUT_OF_MEMORY;
    }
    g_work[g_work_count].function = work;
    g_work[g_work_count].context = context;
    g_work_count++;
    pthread_cond_signal(&g_wake);
    pthread_mutex_unlock(&g_lock);
    return APPHOST_OK;
}

static apphost_status_t schedule_timer(const apphost_host_t *host, uint64_t delay_ns, uint64_t interval_ns,
                                       apphost_work_t work, void *context, apphost_timer_t *out_timer)
{
    size_t i;

    (void)host;
    if (work == NULL || out_timer == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&g_lock);
    for (i = 0; i < MAX_TIMERS; i++) {
        if (g_timers[i].id == APPHOST_TIMER_INVALID) {
            g_timers[i].id = g_next_timer++;
            g_timers[i].function = work;
            g_timers[i].context = context;
            g_timers[i].due_ms = now_ms() + (double)delay_ns / 1.0e6;
            g_timers[i].interval_ms = (double)interval_ns / 1.0e6;
            *out_timer = g_timers[i].id;
            pthread_cond_signal(&g_wake);
            pthread_mutex_unlock(&g_lock);
            return APPHOST_OK;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return APPHOST_ERROR_OUT_OF_MEMORY;
}

static apphost_status_t cancel_timer(const apphost_host_t *host, apphost_timer_t timer)
{
    size_t i;

    (void)host;
    pthread_mutex_lock(&g_lock);
    for (i = 0; i < MAX_TIMERS; i++) {
        if (timer != APPHOST_TIMER_INVALID && g_timers[i].id == timer) {
            g_timers[i].id = APPHOST_TIMER_INVALID;
            pthread_mutex_unlock(&g_lock);
            return APPHOST_OK;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return APPHOST_ERROR_INVALID_HANDLE;
}

static apphost_task_t begin_task(const apphost_host_t *host, const char *name, apphost_expiration_handler_t handler,
                                 void *context)
{
    (void)host;
    (void)name;
    (void)handler;
    (void)context;
    return APPHOST_TASK_INVALID; /* no background time in this fake */
}

static apphost_status_t end_task(const apphost_host_t *host, apphost_task_t task)
{
    (void)host;
    (void)task;
    return APPHOST_ERROR_INVALID_HANDLE;
}

static apphost_status_t time_remaining(const apphost_host_t *host, double *out_seconds)
{
    (void)host;
    if (out_seconds == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    *out_seconds = APPHOST_BACKGROUND_TIME_UNLIMITED;
    return APPHOST_OK;
}

static const apphost_background_t g_background = {
    sizeof(apphost_background_t), begin_task, end_task, time_remaining, schedule_timer, cancel_timer,
    dispatch_async_,
};

/* ---- The audio extension: a session the commands drive -------------------- */

static apphost_audio_session_t g_session;
static int g_rendering;
static apphost_status_t g_config_status = APPHOST_OK;
static apphost_status_t g_activate_status = APPHOST_OK;
static apphost_audio_request_t g_next_request = 1;
static apphost_audio_request_t g_waiting[64];
static size_t g_waiting_count;

static void reset_session(void)
{
    memset(&g_session, 0, sizeof g_session);
    g_session.struct_size = sizeof g_session;
    g_session.category = APPHOST_AUDIO_CATEGORY_SOLO_AMBIENT;
    g_session.output = APPHOST_AUDIO_OUTPUT_SPEAKER;
    g_session.sample_rate = 48000;
    g_session.period_frames = 480;
    g_session.channel_count = 2;
    g_session.gain = 1.0;
    g_rendering = 0;
}

static apphost_status_t set_configuration(const apphost_host_t *host, int32_t category, int32_t mode, uint32_t options)
{
    const uint32_t mixing = APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS | APPHOST_AUDIO_OPTION_DUCK_OTHERS |
                            APPHOST_AUDIO_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS;
    const int plays = category == APPHOST_AUDIO_CATEGORY_PLAYBACK || category == APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD;
    apphost_status_t status = g_config_status;

    (void)host;
    if (status != APPHOST_OK) {
        /* as told */
    } else if (category < 0 || category > 4 || mode < 0 || mode > 4 || (options & ~0xFu) != 0) {
        status = APPHOST_ERROR_INVALID_ARGUMENT;
    } else if (((options & mixing) != 0 && !plays) ||
               ((options & APPHOST_AUDIO_OPTION_DEFAULT_TO_SPEAKER) != 0 &&
                category != APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD) ||
               ((mode == APPHOST_AUDIO_MODE_SPOKEN_AUDIO || mode == APPHOST_AUDIO_MODE_MOVIE_PLAYBACK) &&
                category != APPHOST_AUDIO_CATEGORY_PLAYBACK) ||
               ((mode == APPHOST_AUDIO_MODE_VOICE_CHAT || mode == APPHOST_AUDIO_MODE_VIDEO_CHAT) &&
                category != APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD)) {
        status = APPHOST_ERROR_INVALID_COMBINATION;
    } else {
        g_session.category = category;
        g_session.mode = mode;
        g_session.options = options & (mixing & ~APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS)
                                ? options | APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS
                                : options;
    }
    say("call set_configuration %d %d %u -> %s", (int)category, (int)mode, (unsigned)options,
        apphost_status_name(status));
    return status;
}

static apphost_status_t activate(const apphost_host_t *host, apphost_audio_request_t *out_request)
{
    apphost_audio_request_t request = APPHOST_AUDIO_REQUEST_INVALID;
    apphost_status_t status = g_activate_status;

    (void)host;
    if (out_request == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&g_lock);
    if (status == APPHOST_OK && g_waiting_count < 64) {
        request = g_next_request++;
        g_waiting[g_waiting_count++] = request;
    }
    pthread_mutex_unlock(&g_lock);
    *out_request = request;
    say("call activate -> %s request=%llu", apphost_status_name(status), (unsigned long long)request);
    return status;
}

static apphost_status_t deactivate(const apphost_host_t *host, uint32_t flags)
{
    (void)host;
    g_session.active = 0;
    g_rendering = 0;
    say("call deactivate %u -> ok", (unsigned)flags);
    return APPHOST_OK;
}

static apphost_status_t set_rendering(const apphost_host_t *host, int32_t rendering)
{
    (void)host;
    if (rendering != 0 && rendering != 1) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    g_rendering = rendering && g_session.active;
    say("call set_rendering %d -> ok", (int)rendering);
    return APPHOST_OK;
}

static apphost_status_t set_gain(const apphost_host_t *host, double gain)
{
    apphost_status_t status = gain >= 0.0 && gain <= 1.0 ? APPHOST_OK : APPHOST_ERROR_INVALID_ARGUMENT;

    (void)host;
    if (status == APPHOST_OK) {
        g_session.gain = gain;
    }
    say("call set_gain %.2f -> %s", gain, apphost_status_name(status));
    return status;
}

static apphost_status_t override_output(const apphost_host_t *host, int32_t value)
{
    apphost_status_t status =
        g_session.category == APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD ? APPHOST_OK : APPHOST_ERROR_INVALID_STATE;

    (void)host;
    say("call override_output %d -> %s", (int)value, apphost_status_name(status));
    return status;
}

static apphost_status_t get_session(const apphost_host_t *host, apphost_audio_session_t *out_session)
{
    (void)host;
    if (out_session == NULL || out_session->struct_size < 48) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    *out_session = g_session;
    return APPHOST_OK;
}

static apphost_audio_t g_audio = {
    sizeof(apphost_audio_t), set_configuration, activate, deactivate, set_rendering, set_gain, override_output,
    get_session,
};
static int g_offer_audio = 1;

/* ---- The host interface --------------------------------------------------- */

static int32_t g_app_state = APPHOST_APP_STATE_BACKGROUND;

static apphost_status_t host_log(const apphost_host_t *host, int32_t level, const char *message)
{
    (void)host;
    (void)level;
    say("log %s", message != NULL ? message : "(null)");
    return APPHOST_OK;
}

static const char *data_directory(const apphost_host_t *host)
{
    (void)host;
    return "/tmp";
}

static int32_t app_state(const apphost_host_t *host)
{
    (void)host;
    return g_app_state;
}

static apphost_status_t scene_state(const apphost_host_t *host, apphost_scene_t scene, int32_t *out_state)
{
    (void)host;
    if (scene != 1 || out_state == NULL) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    *out_state = g_app_state == APPHOST_APP_STATE_ACTIVE ? APPHOST_SCENE_STATE_FOREGROUND_ACTIVE
                                                         : APPHOST_SCENE_STATE_BACKGROUND;
    return APPHOST_OK;
}

static apphost_status_t save_scene_state(const apphost_host_t *host, apphost_scene_t scene, const void *bytes,
                                         size_t length)
{
    (void)host;
    (void)scene;
    (void)bytes;
    (void)length;
    return APPHOST_OK;
}

static const void *get_extension(const apphost_host_t *host, const char *id)
{
    (void)host;
    if (id != NULL && strcmp(id, APPHOST_BACKGROUND_EXTENSION_ID) == 0) {
        return &g_background;
    }
    if (id != NULL && strcmp(id, APPHOST_AUDIO_EXTENSION_ID) == 0 && g_offer_audio) {
        return &g_audio;
    }
    return NULL;
}

static const apphost_host_t g_host = {
    sizeof(apphost_host_t), APPHOST_ABI_VERSION_INIT, NULL, "audio_host", "1.0",
    host_log, data_directory, app_state, scene_state, save_scene_state, get_extension,
};

/* ---- The guest ------------------------------------------------------------ */

static const apphost_entry_t *g_entry;
static const apphost_app_callbacks_t *g_app;
static const apphost_scene_callbacks_t *g_scene;
static const apphost_guest_scenes_t *g_scenes;
static const apphost_guest_audio_t *g_guest_audio;

/* True when the guest's table `table` of type `type` has a non-NULL `member`. */
#define GUEST_HAS(table, type, member) \
    ((table) != NULL && APPHOST_HAS_MEMBER(table, type, member) && (table)->member != NULL)

static void launch(void)
{
    if (g_entry->init(&g_host) != APPHOST_OK) {
        fail("init failed");
    }
    g_app = g_entry->query(APPHOST_GUEST_APP_CALLBACKS_ID);
    g_scene = g_entry->query(APPHOST_GUEST_SCENE_CALLBACKS_ID);
    g_scenes = g_entry->query(APPHOST_GUEST_SCENES_CALLBACKS_ID);
    g_guest_audio = g_entry->query(APPHOST_GUEST_AUDIO_CALLBACKS_ID);
    say("guest audio callbacks %s", g_guest_audio != NULL ? "offered" : "none");
    if (GUEST_HAS(g_app, apphost_app_callbacks_t, did_finish_launching) &&
        g_app->did_finish_launching() != APPHOST_OK) {
        fail("did_finish_launching failed");
    }
}

static void show(void)
{
    apphost_scene_connection_t connection;

    memset(&connection, 0, sizeof connection);
    connection.struct_size = sizeof connection;
    connection.scene = 1;
    connection.session_id = "00000000-0000-0000-0000-000000000001";
    connection.role = APPHOST_SCENE_ROLE_PRIMARY;
    connection.initial_state = APPHOST_SCENE_STATE_FOREGROUND_INACTIVE;
    g_app_state = APPHOST_APP_STATE_INACTIVE;
    if (GUEST_HAS(g_scene, apphost_scene_callbacks_t, will_connect)) {
        g_scene->will_connect(&connection);
    }
    if (GUEST_HAS(g_scene, apphost_scene_callbacks_t, will_enter_foreground)) {
        g_scene->will_enter_foreground(1);
    }
    g_app_state = APPHOST_APP_STATE_ACTIVE;
    if (GUEST_HAS(g_scene, apphost_scene_callbacks_t, did_become_active)) {
        g_scene->did_become_active(1);
    }
}

static void hide(void)
{
    g_app_state = APPHOST_APP_STATE_INACTIVE;
    if (GUEST_HAS(g_scene, apphost_scene_callbacks_t, will_resign_active)) {
        g_scene->will_resign_active(1);
    }
    g_app_state = APPHOST_APP_STATE_BACKGROUND;
    if (GUEST_HAS(g_scene, apphost_scene_callbacks_t, did_enter_background)) {
        g_scene->did_enter_background(1);
    }
}

static void perform_action(char *argument)
{
    char *payload = strchr(argument, ':');

    if (payload != NULL) {
        *payload++ = '\0';
    }
    if (GUEST_HAS(g_scenes, apphost_guest_scenes_t, perform_action)) {
        g_scenes->perform_action(1, argument, payload, payload != NULL ? strlen(payload) : 0);
    }
}

static void answer(int32_t result)
{
    apphost_audio_request_t request;

    pthread_mutex_lock(&g_lock);
    if (g_waiting_count == 0) {
        pthread_mutex_unlock(&g_lock);
        fail("answer: no activation waits");
    }
    request = g_waiting[0];
    memmove(&g_waiting[0], &g_waiting[1], (g_waiting_count - 1) * sizeof g_waiting[0]);
    g_waiting_count--;
    pthread_mutex_unlock(&g_lock);
    if (result == APPHOST_AUDIO_ACTIVATED) {
        g_session.active = 1;
    }
    if (GUEST_HAS(g_guest_audio, apphost_guest_audio_t, activation_finished)) {
        g_guest_audio->activation_finished(request, result);
    }
}

static int starts_with(const char *text, const char *prefix, const char **rest)
{
    size_t length = strlen(prefix);

    if (strncmp(text, prefix, length) != 0) {
        return 0;
    }
    *rest = text + length;
    return 1;
}

int main(int argc, char **argv)
{
    void *library;
    int i;

    if (argc < 2) {
        fprintf(stderr, "usage: audio_host <guest.so> <command>...\n");
        return 2;
    }
    reset_session();
    library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fail(dlerror());
    }
    g_entry = dlsym(library, APPHOST_ENTRY_SYMBOL);
    if (g_entry == NULL) {
        fail("no apphost_entry");
    }
    for (i = 2; i < argc; i++) {
        const char *rest = NULL;
        char copy[512];
        int a = 0, b = 0, c = 0;

        if (strcmp(argv[i], "noaudio") == 0) {
            g_offer_audio = 0;
        } else if (starts_with(argv[i], "audio-size:", &rest)) {
            g_audio.struct_size = (uint32_t)strtoul(rest, NULL, 10);
        } else if (starts_with(argv[i], "config-status:", &rest)) {
            g_config_status = (apphost_status_t)atoi(rest);
        } else if (starts_with(argv[i], "activate-status:", &rest)) {
            g_activate_status = (apphost_status_t)atoi(rest);
        } else if (strcmp(argv[i], "launch") == 0) {
            launch();
        } else if (strcmp(argv[i], "show") == 0) {
            show();
        } else if (strcmp(argv[i], "hide") == 0) {
            hide();
        } else if (starts_with(argv[i], "action:", &rest)) {
            snprintf(copy, sizeof copy, "%s", rest);
            perform_action(copy);
        } else if (starts_with(argv[i], "answer:", &rest)) {
            answer(atoi(rest));
        } else if (sscanf(argv[i], "began:%d", &a) == 1) {
            g_session.active = 0;
            g_rendering = 0;
            if (GUEST_HAS(g_guest_audio, apphost_guest_audio_t, interruption_began)) {
                g_guest_audio->interruption_began(a);
            }
        } else if (sscanf(argv[i], "ended:%d:%d", &a, &b) == 2) {
            if (GUEST_HAS(g_guest_audio, apphost_guest_audio_t, interruption_ended)) {
                g_guest_audio->interruption_ended(a, b);
            }
        } else if (sscanf(argv[i], "route:%d:%d:%d", &a, &b, &c) == 3) {
            apphost_audio_route_t from = { sizeof(apphost_audio_route_t), b, APPHOST_AUDIO_INPUT_NONE };
            apphost_audio_route_t to = { sizeof(apphost_audio_route_t), c, APPHOST_AUDIO_INPUT_NONE };
            g_session.output = c;
            if (GUEST_HAS(g_guest_audio, apphost_guest_audio_t, route_changed)) {
                g_guest_audio->route_changed(a, &from, &to);
            }
        } else if (sscanf(argv[i], "hint:%d", &a) == 1) {
            if (GUEST_HAS(g_guest_audio, apphost_guest_audio_t, secondary_audio_hint)) {
                g_guest_audio->secondary_audio_hint(a);
            }
        } else if (strcmp(argv[i], "reset") == 0) {
            reset_session();
            if (GUEST_HAS(g_guest_audio, apphost_guest_audio_t, media_services_reset)) {
                g_guest_audio->media_services_reset();
            }
        } else if (sscanf(argv[i], "wait:%d", &a) == 1) {
            run_main_queue(200, a);
            continue;
        } else if (strcmp(argv[i], "state") == 0) {
            say("state category=%d mode=%d options=%u active=%d rendering=%d gain=%.2f", (int)g_session.category,
                (int)g_session.mode, (unsigned)g_session.options, (int)g_session.active, g_rendering,
                g_session.gain);
        } else if (strcmp(argv[i], "terminate") == 0) {
            if (GUEST_HAS(g_app, apphost_app_callbacks_t, will_terminate)) {
                g_app->will_terminate();
            }
            run_main_queue(200, 0);
            g_entry->deinit();
            say("terminated");
            continue;
        } else {
            fail(argv[i]);
        }
        run_main_queue(200, 0);
    }
    return 0;
}
