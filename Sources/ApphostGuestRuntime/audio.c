/*
 * The audio extension: the functions of apphost_audio_t (see audio.h in the
 * SDK for what each promises) and the host's calls that update the session
 * they tell of. Each function finds its guest through the registry
 * (host_context.h), so that any argument at all gets an answer, never a
 * crash (CONTRACT X3).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "audio.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "call_area.h"
#include "host_context.h"
#include "sized_struct.h"

/* The options that make a session mix with others; the last two imply the
 * first (CONTRACT C3). */
static const uint32_t MIXING_OPTIONS = APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS | APPHOST_AUDIO_OPTION_DUCK_OTHERS |
                                       APPHOST_AUDIO_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS;

static const uint32_t KNOWN_OPTIONS = APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS | APPHOST_AUDIO_OPTION_DUCK_OTHERS |
                                      APPHOST_AUDIO_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS |
                                      APPHOST_AUDIO_OPTION_DEFAULT_TO_SPEAKER;

/* ---- Values (CONTRACT C2 to C4) ------------------------------------------ */

static bool in_range(int32_t value, int32_t first, int32_t last) { return value >= first && value <= last; }

static bool is_category(int32_t category)
{
    return in_range(category, APPHOST_AUDIO_CATEGORY_AMBIENT, APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD);
}

static bool is_mode(int32_t mode) { return in_range(mode, APPHOST_AUDIO_MODE_DEFAULT, APPHOST_AUDIO_MODE_VIDEO_CHAT); }

static bool is_output(int32_t output)
{
    return in_range(output, APPHOST_AUDIO_OUTPUT_NONE, APPHOST_AUDIO_OUTPUT_LINE_OUT);
}

static bool is_input(int32_t input) { return in_range(input, APPHOST_AUDIO_INPUT_NONE, APPHOST_AUDIO_INPUT_LINE_IN); }

/* The options `category` takes (C3). */
static uint32_t options_of(int32_t category)
{
    switch (category) {
    case APPHOST_AUDIO_CATEGORY_PLAYBACK:
        return MIXING_OPTIONS;
    case APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD:
        return MIXING_OPTIONS | APPHOST_AUDIO_OPTION_DEFAULT_TO_SPEAKER;
    default:
        return 0;
    }
}

/* Whether `category` takes `mode` (C4): DEFAULT goes with every one. */
static bool takes_mode(int32_t category, int32_t mode)
{
    switch (mode) {
    case APPHOST_AUDIO_MODE_SPOKEN_AUDIO:
    case APPHOST_AUDIO_MODE_MOVIE_PLAYBACK:
        return category == APPHOST_AUDIO_CATEGORY_PLAYBACK;
    case APPHOST_AUDIO_MODE_VOICE_CHAT:
    case APPHOST_AUDIO_MODE_VIDEO_CHAT:
        return category == APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD;
    default:
        return true;
    }
}

/* ---- State ---------------------------------------------------------------- */

/* The categories that take the input (CONTRACT A6: audio input). */
static bool records(int32_t category)
{
    return category == APPHOST_AUDIO_CATEGORY_RECORD || category == APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD;
}

/* Tells the audio thread what the mirror now says. Call with the lock held. */
static void tell_renderer(ahr_audio *audio)
{
    ahr_audio_renderer_set(audio->renderer, audio->active, records(audio->category));
}

/* The session as at launch, and after a media services reset (C1, C15); the
 * format and route are the host's and stay. Call with the lock held. */
static void reset_session(ahr_audio *audio)
{
    audio->category = APPHOST_AUDIO_CATEGORY_SOLO_AMBIENT;
    audio->mode = APPHOST_AUDIO_MODE_DEFAULT;
    audio->options = 0;
    audio->active = false;
    audio->gain = 1.0;
    tell_renderer(audio);
}

void ahr_audio_init(ahr_audio *audio, bool input_declared)
{
    memset(audio, 0, sizeof *audio);
    pthread_mutex_init(&audio->lock, NULL);
    audio->request_limit = AHR_AUDIO_REQUEST_LIMIT;
    audio->input_declared = input_declared;
    reset_session(audio);
}

void ahr_audio_destroy(ahr_audio *audio) { pthread_mutex_destroy(&audio->lock); }

void ahr_audio_set_request_limit(ahr_audio *audio, uint32_t limit)
{
    pthread_mutex_lock(&audio->lock);
    audio->request_limit = limit;
    pthread_mutex_unlock(&audio->lock);
}

void ahr_audio_set_accepting(ahr_audio *audio, bool accepting)
{
    pthread_mutex_lock(&audio->lock);
    audio->accepting = accepting;
    pthread_mutex_unlock(&audio->lock);
}

/* ---- The host's calls, on the main queue ---------------------------------- */

bool ahr_audio_is_call(const ahr_call *call) { return ahr_call_area_of(call->kind) == AHR_AREA_AUDIO; }

static bool is_interruption_reason(int32_t reason)
{
    return in_range(reason, APPHOST_AUDIO_INTERRUPTION_OTHER_SESSION, APPHOST_AUDIO_INTERRUPTION_SUSPENDED);
}

int32_t ahr_audio_check_call(ahr_audio *audio, const ahr_call *call)
{
    bool issued;

    switch (call->kind) {
    case AHR_CALL_AUDIO_SETUP:
        return call->audio_setup.sample_rate > 0 && call->audio_setup.period_frames > 0 &&
                       call->audio_setup.channel_count > 0 && is_output(call->audio_setup.output) &&
                       is_input(call->audio_setup.input)
                   ? APPHOST_OK
                   : APPHOST_ERROR_INVALID_ARGUMENT;
    case AHR_CALL_AUDIO_ACTIVATION_FINISHED:
        if (!in_range(call->audio_activation_finished.activation_result, APPHOST_AUDIO_ACTIVATED,
                      APPHOST_AUDIO_REFUSED_NOT_RUNNING)) {
            return APPHOST_ERROR_INVALID_ARGUMENT;
        }
        pthread_mutex_lock(&audio->lock);
        issued = call->audio_activation_finished.audio_request != APPHOST_AUDIO_REQUEST_INVALID &&
                 call->audio_activation_finished.audio_request <= audio->last_request;
        pthread_mutex_unlock(&audio->lock);
        return issued ? APPHOST_OK : APPHOST_ERROR_INVALID_HANDLE;
    case AHR_CALL_AUDIO_INTERRUPTION_BEGAN:
        return is_interruption_reason(call->audio_interruption_began.interruption_reason)
                   ? APPHOST_OK
                   : APPHOST_ERROR_INVALID_ARGUMENT;
    case AHR_CALL_AUDIO_INTERRUPTION_ENDED:
        return is_interruption_reason(call->audio_interruption_ended.interruption_reason)
                   ? APPHOST_OK
                   : APPHOST_ERROR_INVALID_ARGUMENT;
    case AHR_CALL_AUDIO_ROUTE_CHANGED:
        return in_range(call->audio_route_changed.route_change_reason, APPHOST_AUDIO_ROUTE_NEW_DEVICE_AVAILABLE,
                        APPHOST_AUDIO_ROUTE_OVERRIDE) &&
                       is_output(call->audio_route_changed.output) && is_input(call->audio_route_changed.input) &&
                       is_output(call->audio_route_changed.previous_output) &&
                       is_input(call->audio_route_changed.previous_input)
                   ? APPHOST_OK
                   : APPHOST_ERROR_INVALID_ARGUMENT;
    case AHR_CALL_SECONDARY_AUDIO_HINT:
    case AHR_CALL_MEDIA_SERVICES_RESET:
        /* A bool, or nothing: no value out of range. */
        break;
    case AHR_CALL_AUDIO_RENDER_DEMOTED:
        return in_range((int32_t)call->audio_render_demoted.demotion_reason, APPHOST_AUDIO_DEMOTED_MISSED_DEADLINES,
                        APPHOST_AUDIO_DEMOTED_REALTIME_LIMIT)
                   ? APPHOST_OK
                   : APPHOST_ERROR_INVALID_ARGUMENT;
    default:
        break;
    }
    return APPHOST_OK;
}

/* The mirror follows each call under the lock, before the guest hears of it. */

static void set_up(ahr_audio *audio, const ahr_call_audio_setup *call)
{
    pthread_mutex_lock(&audio->lock);
    audio->sample_rate = call->sample_rate;
    audio->period_frames = call->period_frames;
    audio->channel_count = call->channel_count;
    audio->output = call->output;
    audio->input = call->input;
    pthread_mutex_unlock(&audio->lock);
}

static void finish_activation(ahr_audio *audio, const ahr_call_audio_activation_finished *call)
{
    pthread_mutex_lock(&audio->lock);
    /* A deactivate after the request was made wins over its answer. */
    if (call->activation_result == APPHOST_AUDIO_ACTIVATED && call->audio_request > audio->deactivated_through) {
        audio->active = true;
        tell_renderer(audio);
    }
    pthread_mutex_unlock(&audio->lock);
}

static void interrupt(ahr_audio *audio)
{
    pthread_mutex_lock(&audio->lock);
    audio->active = false;
    tell_renderer(audio);
    pthread_mutex_unlock(&audio->lock);
}

static void change_route(ahr_audio *audio, const ahr_call_audio_route_changed *call)
{
    pthread_mutex_lock(&audio->lock);
    audio->output = call->output;
    audio->input = call->input;
    pthread_mutex_unlock(&audio->lock);
}

static void reset_media_services(ahr_audio *audio)
{
    pthread_mutex_lock(&audio->lock);
    reset_session(audio);
    pthread_mutex_unlock(&audio->lock);
}

int32_t ahr_audio_handle(ahr_audio *audio, const apphost_guest_audio_t *callbacks, const ahr_call *call)
{
    apphost_audio_route_t previous;
    apphost_audio_route_t current;

    switch (call->kind) {
    case AHR_CALL_AUDIO_SETUP:
        set_up(audio, &call->audio_setup);
        return APPHOST_OK;
    case AHR_CALL_AUDIO_ACTIVATION_FINISHED:
        finish_activation(audio, &call->audio_activation_finished);
        if (callbacks != NULL && callbacks->activation_finished != NULL) {
            callbacks->activation_finished(call->audio_activation_finished.audio_request,
                                           call->audio_activation_finished.activation_result);
        }
        return APPHOST_OK;
    case AHR_CALL_AUDIO_INTERRUPTION_BEGAN:
        /* Already inactive when the guest hears of it (CONTRACT C6). */
        interrupt(audio);
        if (callbacks != NULL && callbacks->interruption_began != NULL) {
            callbacks->interruption_began(call->audio_interruption_began.interruption_reason);
        }
        return APPHOST_OK;
    case AHR_CALL_AUDIO_INTERRUPTION_ENDED:
        if (callbacks != NULL && callbacks->interruption_ended != NULL) {
            callbacks->interruption_ended(call->audio_interruption_ended.interruption_reason,
                                          call->audio_interruption_ended.should_resume ? 1 : 0);
        }
        return APPHOST_OK;
    case AHR_CALL_AUDIO_ROUTE_CHANGED:
        change_route(audio, &call->audio_route_changed);
        if (callbacks != NULL && callbacks->route_changed != NULL) {
            const ahr_call_audio_route_changed *change = &call->audio_route_changed;

            previous = (apphost_audio_route_t){sizeof previous, change->previous_output, change->previous_input};
            current = (apphost_audio_route_t){sizeof current, change->output, change->input};
            callbacks->route_changed(change->route_change_reason, &previous, &current);
        }
        return APPHOST_OK;
    case AHR_CALL_SECONDARY_AUDIO_HINT:
        if (callbacks != NULL && callbacks->secondary_audio_hint != NULL) {
            callbacks->secondary_audio_hint(call->secondary_audio_hint.silence_secondary ? 1 : 0);
        }
        return APPHOST_OK;
    case AHR_CALL_MEDIA_SERVICES_RESET:
        /* As at launch (CONTRACT C15), for the guest to set it up again. */
        reset_media_services(audio);
        if (callbacks != NULL && callbacks->media_services_reset != NULL) {
            callbacks->media_services_reset();
        }
        return APPHOST_OK;
    case AHR_CALL_AUDIO_RENDER_DEMOTED:
        /* The thread already runs under ordinary scheduling: the guest is told
         * (ABI 1.9; a NULL member, or a table of 1.8, hears nothing). */
        if (callbacks != NULL && callbacks->render_demoted != NULL) {
            callbacks->render_demoted((int32_t)call->audio_render_demoted.demotion_reason);
        }
        return APPHOST_OK;
    default:
        break;
    }
    return APPHOST_ERROR_INVALID_ARGUMENT;
}

/* ---- The session's sound (CONTRACT C13) ------------------------------------ */

/* How long a stop waits for the guest's render to return: far longer than
 * any period, so that only a hung render is left behind. */
static const int64_t RENDER_STOP_TIMEOUT_NS = 1000000000;

int32_t ahr_audio_take_stream(ahr_audio *audio, const apphost_host_t *host, const apphost_guest_audio_t *callbacks,
                              const ahr_call *stream)
{
    const ahr_call_audio_stream *call = &stream->audio_stream;
    ahr_host_context *context;
    char error[256];
    ahr_audio_renderer *previous;
    ahr_audio_renderer *renderer;
    uint32_t sample_rate;
    uint32_t period_frames;
    uint32_t channel_count;
    bool active;
    bool recording;

    if (call->audio_memfd < 0 || call->audio_wake_fd < 0) {
        if (call->audio_memfd >= 0) {
            close(call->audio_memfd);
        }
        if (call->audio_wake_fd >= 0) {
            close(call->audio_wake_fd);
        }
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    if (callbacks == NULL || callbacks->render == NULL) {
        /* Nothing would render: the host mixes no stream for this guest. */
        close(call->audio_memfd);
        close(call->audio_wake_fd);
        return APPHOST_ERROR_UNSUPPORTED;
    }
    pthread_mutex_lock(&audio->lock);
    previous = audio->renderer;
    audio->renderer = NULL;
    sample_rate = audio->sample_rate;
    period_frames = audio->period_frames;
    channel_count = audio->channel_count;
    pthread_mutex_unlock(&audio->lock);
    if (!ahr_audio_renderer_stop(previous, RENDER_STOP_TIMEOUT_NS)) {
        audio->renderer_stuck = true;
    }
    if (sample_rate == 0) {
        /* Before AUDIO_SETUP: no format to check the region against. */
        close(call->audio_memfd);
        close(call->audio_wake_fd);
        return APPHOST_ERROR_INVALID_STATE;
    }
    pthread_mutex_lock(&audio->lock);
    active = audio->active;
    recording = records(audio->category);
    pthread_mutex_unlock(&audio->lock);
    renderer = ahr_audio_renderer_start(call->audio_memfd, call->audio_wake_fd, callbacks->render, sample_rate,
                                        period_frames, channel_count, active, recording, error, sizeof error);
    if (renderer == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    context = ahr_registry_acquire(host);
    pthread_mutex_lock(&audio->lock);
    audio->renderer = renderer;
    /* What changed since the snapshot above. */
    tell_renderer(audio);
    if (context != NULL) {
        ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_AUDIO_THREAD,
                                               .audio_thread = {.id = (uint64_t)ahr_audio_renderer_thread_id(renderer),
                                                                .flag = ahr_audio_renderer_realtime(renderer)}});
    }
    pthread_mutex_unlock(&audio->lock);
    ahr_registry_release(context);
    return APPHOST_OK;
}

bool ahr_audio_stop_rendering(ahr_audio *audio)
{
    ahr_audio_renderer *renderer;

    pthread_mutex_lock(&audio->lock);
    renderer = audio->renderer;
    audio->renderer = NULL;
    pthread_mutex_unlock(&audio->lock);
    if (!ahr_audio_renderer_stop(renderer, RENDER_STOP_TIMEOUT_NS)) {
        audio->renderer_stuck = true;
    }
    return !audio->renderer_stuck;
}

/* ---- The guest's functions, from any thread ------------------------------- */

/* One function's call, carried out under the extension's lock while it
 * accepts calls. */
typedef struct session_request session_request;

/* What a function does once the extension is known to accept calls, under
 * its lock; returns the function's status. */
typedef apphost_status_t (*session_body)(session_request *request);

struct session_request {
    ahr_host_context *context;
    session_body body;
    int32_t category;
    int32_t mode;
    uint32_t options;
    apphost_audio_request_t *out_request;
    bool flag;
    double gain;
    int32_t output_override;
};

/* CONTRACT X7: spends one of the window's requests, under the lock; false
 * when the window's are spent. A window begins at the first request after
 * the last one ended. The host keeps the same limit (FloodGuard), and stops
 * a guest that keeps at it. */
static bool spend_request(ahr_audio *audio)
{
    struct timespec now;
    uint64_t now_ns;

    clock_gettime(CLOCK_MONOTONIC, &now);
    now_ns = (uint64_t)now.tv_sec * UINT64_C(1000000000) + (uint64_t)now.tv_nsec;
    if (audio->budget_spent == 0 || now_ns - audio->budget_since >= AHR_AUDIO_REQUEST_WINDOW_NS) {
        audio->budget_since = now_ns;
        audio->budget_spent = 0;
    }
    if (audio->request_limit != 0 && audio->budget_spent >= audio->request_limit) {
        return false;
    }
    audio->budget_spent++;
    return true;
}

/* on_session's body, under the extension's lock (ahr_guest_call). */
static apphost_status_t session_locked(ahr_host_context *context, void *argument)
{
    session_request *request = argument;

    if (!spend_request(context->audio)) {
        return APPHOST_ERROR_LIMIT_REACHED;
    }
    request->context = context;
    return request->body(request);
}

/* Runs `body` on `request` for the guest of `host` and returns its status:
 * before that, APPHOST_ERROR_INVALID_ARGUMENT for a host the registry does
 * not know, APPHOST_ERROR_INVALID_STATE while the extension does not
 * accept calls (init, deinit, from will_terminate on), and
 * APPHOST_ERROR_LIMIT_REACHED once the window's requests are spent
 * (CONTRACT X7). */
static apphost_status_t on_session(const apphost_host_t *host, session_request *request, session_body body)
{
    request->body = body;
    return ahr_guest_call_running(host, AHR_LOCK_AUDIO, session_locked, request);
}

/* CONTRACT A6: the guest is refused and the operator told, by the name the
 * host maps to the entitlement missing (SANDBOX_REFUSED in
 * apphost_messages.h); the request budget bounds how often. */
static apphost_status_t refuse_recording(session_request *request)
{
    const char *name = request->category == APPHOST_AUDIO_CATEGORY_RECORD ? "set_configuration(RECORD)"
                                                                           : "set_configuration(PLAY_AND_RECORD)";

    ahr_report_send(request->context,
                    &(ahr_report){.kind = AHR_REPORT_SANDBOX_REFUSED,
                                  .sandbox_refused = {.text = name, .text_length = strlen(name)}});
    return APPHOST_ERROR_NOT_DECLARED;
}

static apphost_status_t configure_locked(session_request *request)
{
    ahr_audio *audio = request->context->audio;

    if (records(request->category) && !audio->input_declared) {
        return refuse_recording(request);
    }
    audio->category = request->category;
    audio->mode = request->mode;
    audio->options = request->options;
    tell_renderer(audio);
    ahr_report_send(request->context, &(ahr_report){.kind = AHR_REPORT_AUDIO_CONFIGURED,
                                                    .audio_configured = {.category = request->category,
                                                                         .mode = request->mode,
                                                                         .options = request->options}});
    return APPHOST_OK;
}

/* Unknown values are INVALID_ARGUMENT before the table is looked at, so that
 * a guest built against a later header learns which it is. */
static apphost_status_t set_configuration(const apphost_host_t *host, int32_t category, int32_t mode,
                                          uint32_t options)
{
    session_request request;

    if (!is_category(category) || !is_mode(mode) || (options & ~KNOWN_OPTIONS) != 0) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    if ((options & ~options_of(category)) != 0 || !takes_mode(category, mode)) {
        return APPHOST_ERROR_INVALID_COMBINATION;
    }
    memset(&request, 0, sizeof request);
    request.category = category;
    request.mode = mode;
    /* Kept as it works: DUCK_OTHERS and INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS mix. */
    request.options = (options & MIXING_OPTIONS) != 0 ? options | APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS : options;
    return on_session(host, &request, configure_locked);
}

/* ahr_background_if_time_left's body: gives out the next request id. */
static void request_activation(void *argument)
{
    session_request *request = argument;
    ahr_audio *audio = request->context->audio;

    /* Before the host hears of it, so that the id is there for an
     * activation_finished that comes before this returns. */
    *request->out_request = ++audio->last_request;
    ahr_report_send(request->context,
                    &(ahr_report){.kind = AHR_REPORT_AUDIO_ACTIVATION_REQUESTED,
                                  .audio_activation_requested = {.id = audio->last_request}});
}

static apphost_status_t activate_locked(session_request *request)
{
    /* While the host suspends the guest, nothing would answer. */
    return ahr_background_if_time_left(request->context->background, request_activation, request)
               ? APPHOST_OK
               : APPHOST_ERROR_INVALID_STATE;
}

static apphost_status_t activate(const apphost_host_t *host, apphost_audio_request_t *out_request)
{
    session_request request;

    if (out_request == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    /* A guest that ignores the status holds the invalid id. */
    *out_request = APPHOST_AUDIO_REQUEST_INVALID;
    memset(&request, 0, sizeof request);
    request.out_request = out_request;
    return on_session(host, &request, activate_locked);
}

static apphost_status_t deactivate_locked(session_request *request)
{
    ahr_audio *audio = request->context->audio;

    audio->active = false;
    tell_renderer(audio);
    /* The answers to the requests made so far no longer activate. */
    audio->deactivated_through = audio->last_request;
    ahr_report_send(request->context, &(ahr_report){.kind = AHR_REPORT_AUDIO_DEACTIVATED,
                                                    .audio_deactivated = {.flag = request->flag}});
    return APPHOST_OK;
}

static apphost_status_t deactivate(const apphost_host_t *host, uint32_t flags)
{
    session_request request;

    if ((flags & ~(uint32_t)APPHOST_AUDIO_NOTIFY_OTHERS) != 0) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    memset(&request, 0, sizeof request);
    request.flag = (flags & APPHOST_AUDIO_NOTIFY_OTHERS) != 0;
    return on_session(host, &request, deactivate_locked);
}

static apphost_status_t rendering_locked(session_request *request)
{
    ahr_report_send(request->context, &(ahr_report){.kind = AHR_REPORT_AUDIO_RENDERING,
                                                    .audio_rendering = {.flag = request->flag}});
    return APPHOST_OK;
}

/* The host keeps it, not the mirror: get_session does not tell it. */
static apphost_status_t set_rendering(const apphost_host_t *host, int32_t rendering)
{
    session_request request;

    if (rendering != 0 && rendering != 1) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    memset(&request, 0, sizeof request);
    request.flag = rendering == 1;
    return on_session(host, &request, rendering_locked);
}

static apphost_status_t gain_locked(session_request *request)
{
    request->context->audio->gain = request->gain;
    ahr_report_send(request->context, &(ahr_report){.kind = AHR_REPORT_AUDIO_GAIN,
                                                    .audio_gain = {.gain = request->gain}});
    return APPHOST_OK;
}

static apphost_status_t set_gain(const apphost_host_t *host, double gain)
{
    session_request request;

    /* NaN fails every comparison. */
    if (!(gain >= 0.0 && gain <= 1.0)) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    memset(&request, 0, sizeof request);
    request.gain = gain;
    return on_session(host, &request, gain_locked);
}

static apphost_status_t override_locked(session_request *request)
{
    /* The only category with a choice of output. */
    if (request->context->audio->category != APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD) {
        return APPHOST_ERROR_INVALID_STATE;
    }
    ahr_report_send(request->context, &(ahr_report){.kind = AHR_REPORT_AUDIO_OUTPUT_OVERRIDDEN,
                                                    .audio_output_overridden = {.output_override = request->output_override}});
    return APPHOST_OK;
}

/* The route changes when the host says so (AUDIO_ROUTE_CHANGED), not here. */
static apphost_status_t override_output(const apphost_host_t *host, int32_t output_override)
{
    session_request request;

    if (output_override != APPHOST_AUDIO_OVERRIDE_NONE && output_override != APPHOST_AUDIO_OVERRIDE_SPEAKER) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    memset(&request, 0, sizeof request);
    request.output_override = output_override;
    return on_session(host, &request, override_locked);
}

/* The apphost_audio_session_t of ABI 1.4, whose members every caller needs. */
enum { AHR_AUDIO_SESSION_MIN_BYTES = 48 };

/*
 * Written as scene_size writes (scenes.c): the guest says in
 * out_session->struct_size how large its struct is, the runtime writes the
 * members of its own struct (never past the guest's), and sets struct_size
 * to the bytes it wrote. A struct_size smaller than the struct of ABI 1.4:
 * INVALID_ARGUMENT, nothing written. Answers at any time, during init and
 * deinit too: the mirror is there from load until ahr_stop.
 */
/* get_session's body: a copy of the session, under the extension's lock. */
static apphost_status_t session_copy_locked(ahr_host_context *context, void *argument)
{
    const ahr_audio *audio = context->audio;
    apphost_audio_session_t *session = argument;

    session->category = audio->category;
    session->mode = audio->mode;
    session->options = audio->options;
    session->active = audio->active ? 1 : 0;
    session->output = audio->output;
    session->input = audio->input;
    session->sample_rate = audio->sample_rate;
    session->period_frames = audio->period_frames;
    session->channel_count = audio->channel_count;
    session->gain = audio->gain;
    return APPHOST_OK;
}

static apphost_status_t get_session(const apphost_host_t *host, apphost_audio_session_t *out_session)
{
    apphost_audio_session_t session;
    apphost_status_t status;
    uint32_t declared = ahr_declared_size(out_session, AHR_AUDIO_SESSION_MIN_BYTES);

    if (declared == 0) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    memset(&session, 0, sizeof session);
    status = ahr_guest_call(host, AHR_LOCK_AUDIO, session_copy_locked, &session);
    if (status == APPHOST_OK) {
        ahr_write_sized_struct(out_session, declared, &session, sizeof session);
    }
    return status;
}

static const apphost_audio_t extension = {
    sizeof(apphost_audio_t), set_configuration, activate, deactivate, set_rendering, set_gain, override_output,
    get_session,
};

const apphost_audio_t *ahr_audio_extension(void) { return &extension; }
