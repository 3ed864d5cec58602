/*
 * The audio extension of one guest, "apphost.audio/1"
 * (sdk/include/apphost/audio.h): the mirror of its one audio session
 * (CONTRACT C1), as the guest's calls and the host's last set it.
 *
 * The runtime answers the guest at once: it checks each call, the C2 to C4
 * table included, gives out the activation request ids itself, per guest,
 * counting from 1, and keeps what get_session tells; the reporter tells the
 * host of every accepted call (ahr_reporter), and the host arbitrates and
 * answers with the audio calls of ahr_handle.
 *
 * The guest's threads call the extension's functions (audio.c) at any time:
 * everything below is under `lock`, and every reporter call is made with it
 * held, so that the host hears of the calls in the order they changed the
 * mirror. activate also holds the background extension's lock meanwhile
 * (ahr_background_if_time_left), so that a request is either reported
 * before a BACKGROUND_TIME of 0 is handled or refused after it. Lock order:
 * this one, then the background's; never the other way round.
 */
#ifndef AHR_AUDIO_H
#define AHR_AUDIO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "apphost_guest_runtime.h"
#include "audio_renderer.h"

typedef struct ahr_audio {
    pthread_mutex_t lock;
    /* From a successful ahr_start until will_terminate is delivered or
     * ahr_stop begins: every function but get_session is accepted. */
    bool accepting;
    /* The session as get_session tells it: category, mode and options as
     * set_configuration accepted them (implied MIX_WITH_OTHERS included). */
    int32_t category;
    int32_t mode;
    uint32_t options;
    bool active;
    double gain;
    /* AUDIO_SETUP's, then the last AUDIO_ROUTE_CHANGED's; 0 until then. */
    int32_t output;
    int32_t input;
    uint32_t sample_rate;
    uint32_t period_frames;
    uint32_t channel_count;
    /* The last activation request given out; 0 before the first. */
    apphost_audio_request_t last_request;
    /* The last request given out when deactivate was last called: an
     * ACTIVATED answer to it, or to any before it, leaves the session
     * inactive. */
    apphost_audio_request_t deactivated_through;
    /* The audio thread rendering the session's region (AUDIO_STREAM), told
     * of every change of `active` and `category` under the lock; NULL
     * before a stream, or for a guest without render. */
    ahr_audio_renderer *renderer;
    /* A renderer stuck in the guest's render outlived its stop: the guest's
     * library must stay loaded. */
    bool renderer_stuck;
    /* CONTRACT X7: the requests made in the window that began at
     * `budget_since` (CLOCK_MONOTONIC, ns), at most `request_limit`;
     * a window begins at the first request after the last one ended. */
    uint64_t budget_since;
    uint32_t budget_spent;
    /* AHR_AUDIO_REQUEST_LIMIT unless ahr_set_audio_request_limit said
     * otherwise; 0 for none. */
    uint32_t request_limit;
    /* CONTRACT A6: the descriptor declares APPHOST_CAPABILITY_AUDIO_INPUT,
     * without which the recording categories are refused. */
    bool input_declared;
} ahr_audio;

/* The session as at launch: soloAmbient, default mode, no options,
 * inactive, gain 1, no format or route yet. */
void ahr_audio_init(ahr_audio *audio, bool input_declared);

void ahr_audio_destroy(ahr_audio *audio);

/* [thread-safe] See ahr_set_audio_request_limit. */
void ahr_audio_set_request_limit(ahr_audio *audio, uint32_t limit);

/* The guest started (true), will_terminate is being delivered or the guest
 * is being stopped (false): see `accepting`. */
void ahr_audio_set_accepting(ahr_audio *audio, bool accepting);

/* True for a call of the AUDIO area (apphost_messages.h). */
bool ahr_audio_is_call(const ahr_call *call);

/* APPHOST_OK for any call but an audio call with a value out of its enum's
 * range or a format of 0 (APPHOST_ERROR_INVALID_ARGUMENT), or an
 * AUDIO_ACTIVATION_FINISHED for a request never given out
 * (APPHOST_ERROR_INVALID_HANDLE), as ahr_handle documents. */
int32_t ahr_audio_check_call(ahr_audio *audio, const ahr_call *call);

/* [main-queue] Handles an audio call that passed ahr_audio_check_call, as
 * ahr_handle documents: updates the mirror, then calls the guest's member
 * of `callbacks` (NULL when it has none) without the lock held, so that it
 * may call every function of the extension. */
int32_t ahr_audio_handle(ahr_audio *audio, const apphost_guest_audio_t *callbacks, const ahr_call *call);

/* [main-queue] AUDIO_STREAM, as ahr_handle documents: takes `call`'s two
 * descriptors whatever it returns, and starts rendering the session's region
 * with the guest's render (replacing a previous stream's thread); reports the
 * new thread (AHR_REPORT_AUDIO_THREAD) through `host`'s reporter. */
int32_t ahr_audio_take_stream(ahr_audio *audio, const apphost_host_t *host, const apphost_guest_audio_t *callbacks,
                              const ahr_call *call);

/* Stops the audio thread, before deinit: render is not called once this
 * returns. False when render hung past a second (renderer_stuck): the
 * library must not be unloaded then. */
bool ahr_audio_stop_rendering(ahr_audio *audio);

/* The extension's table, for get_extension: one for every guest, since each
 * function finds its guest by its `host` argument. */
const apphost_audio_t *ahr_audio_extension(void);

#endif
