/*
 * A guest whose render goes wrong (CONTRACT C13, C14, X2): it plays a sine,
 * as sdk/examples/tone.c does, for FIXTURE_FAULT_AFTER periods of playing,
 * then, inside render:
 *   -DFIXTURE_FAULT=1  crashes (abort)
 *   -DFIXTURE_FAULT=2  hangs (sleeps for ever, holding the audio thread)
 *   -DFIXTURE_FAULT=3  plays on, with a NaN in every period (CONTRACT X7)
 *   -DFIXTURE_FAULT=4  plays on, with a +Inf in every period
 *   -DFIXTURE_FAULT=5  plays on, with a 1e30 in every period
 *   -DFIXTURE_FAULT=6  plays on, late: spins for one and a half periods in
 *                      every render, then sleeps 50 us (so that RLIMIT_RTTIME,
 *                      which counts the time a real-time thread runs without
 *                      sleeping, never ends it)
 *   -DFIXTURE_FAULT=7  plays on, spinning: one and a half periods of work in
 *                      every render and no sleep, so that its real-time
 *                      thread never sleeps and reaches RLIMIT_RTTIME's limit
 *   none               goes on playing
 * FIXTURE_ID and FIXTURE_HZ (default 440) tell it apart from a tone beside it.
 * It logs "render demoted <reason>" when the host says its render thread lost
 * real-time priority (ABI 1.9).
 * -DFIXTURE_RECORD=1 makes it a recorder instead: a playAndRecord session
 * that plays back what it hears (the host's --audio-input), period for
 * period, rather than a sine. -DFIXTURE_RECORD=2 makes it a record session
 * that renders its sine all the same, though record has no output: the host
 * must never let it be heard (CONTRACT C13); it logs "configure record =
 * <status name>". A record session does not mix with others, so that one
 * activates once its scene is active (C5). A recorder declares audio input
 * (A6) unless -DFIXTURE_INPUT=0.
 * It declares background audio: beside a tone in the foreground, it plays
 * in background (B9). -DFIXTURE_SNEAK=1 makes it a guest that does not, and
 * sneaks its sound into background all the same: when going to background
 * interrupts its session, it begins a background task and activates an
 * ambient session that mixes with others, which the host grants there; the
 * host must keep it silent (B9).
 * Built by the tests with cc, -lm.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <apphost/apphost.h>

#ifndef FIXTURE_ID
#define FIXTURE_ID "org.apphost.fixtures.render-fault"
#endif
#ifndef FIXTURE_HZ
#define FIXTURE_HZ 440.0
#endif
#ifndef FIXTURE_FAULT_AFTER
#define FIXTURE_FAULT_AFTER 50
#endif
#ifndef FIXTURE_FAULT
#define FIXTURE_FAULT 0
#endif
#ifndef FIXTURE_RECORD
#define FIXTURE_RECORD 0
#endif
#ifndef FIXTURE_SNEAK
#define FIXTURE_SNEAK 0
#endif
#ifndef FIXTURE_INPUT
#define FIXTURE_INPUT 1
#endif

static const apphost_host_t *host;
static const apphost_audio_t *audio;
static atomic_int playing;
/* Only the audio thread touches it. */
static unsigned long periods_played;

static void did_become_active(apphost_scene_t scene)
{
    apphost_audio_request_t request;

    (void)scene;
    if (FIXTURE_RECORD == 2 && !atomic_load(&playing)) {
        audio->activate(host, &request);
    }
}

static apphost_status_t did_finish_launching(void)
{
    apphost_audio_request_t request;

    if (FIXTURE_RECORD == 2) {
        char line[64];

        snprintf(line, sizeof line, "configure record = %s",
                 apphost_status_name(
                     audio->set_configuration(host, APPHOST_AUDIO_CATEGORY_RECORD, APPHOST_AUDIO_MODE_DEFAULT, 0)));
        host->log(host, APPHOST_LOG_INFO, line);
        return APPHOST_OK;
    } else {
        audio->set_configuration(host,
                                 FIXTURE_RECORD ? APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD : APPHOST_AUDIO_CATEGORY_PLAYBACK,
                                 APPHOST_AUDIO_MODE_DEFAULT, APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS);
    }
    audio->activate(host, &request);
    return APPHOST_OK;
}

static void activation_finished(apphost_audio_request_t request, int32_t result)
{
    (void)request;
    if (result == APPHOST_AUDIO_ACTIVATED) {
        atomic_store(&playing, 1);
        audio->set_rendering(host, 1);
    }
}

static void interruption_began(int32_t reason)
{
    apphost_audio_request_t request;
    const apphost_background_t *background;

    atomic_store(&playing, 0);
    if (!FIXTURE_SNEAK || reason != APPHOST_AUDIO_INTERRUPTION_APP_WENT_TO_BACKGROUND) {
        return;
    }
    background = host->get_extension(host, APPHOST_BACKGROUND_EXTENSION_ID);
    if (background != NULL) {
        (void)background->begin_task(host, "keep playing", NULL, NULL);
    }
    audio->set_configuration(host, APPHOST_AUDIO_CATEGORY_AMBIENT, APPHOST_AUDIO_MODE_DEFAULT,
                             APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS);
    audio->activate(host, &request);
}

static void render(const apphost_audio_buffer_t *buffer)
{
    uint64_t first = buffer->period * buffer->frame_count;
    int bad = 0;

    if (!atomic_load(&playing)) {
        return;
    }
    if (FIXTURE_FAULT != 0 && ++periods_played > FIXTURE_FAULT_AFTER) {
        if (FIXTURE_FAULT == 1) {
            abort();
        }
        if (FIXTURE_FAULT == 2) {
            for (;;) {
                sleep(1);
            }
        }
        if (FIXTURE_FAULT == 6 || FIXTURE_FAULT == 7) {
            struct timespec now;
            struct timespec pause = {0, 50000};
            uint64_t until;

            clock_gettime(CLOCK_MONOTONIC, &now);
            until = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec +
                    (uint64_t)buffer->frame_count * 1500000000u / buffer->sample_rate;
            do {
                clock_gettime(CLOCK_MONOTONIC, &now);
            } while ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec < until);
            if (FIXTURE_FAULT == 6) {
                nanosleep(&pause, NULL);
            }
        }
        bad = FIXTURE_FAULT >= 3 && FIXTURE_FAULT <= 5;
    }
    if (FIXTURE_RECORD == 1) {
        if (buffer->input != NULL) {
            memcpy(buffer->output, buffer->input,
                   (size_t)buffer->frame_count * buffer->channel_count * sizeof buffer->output[0]);
        }
        return;
    }
    for (uint32_t frame = 0; frame < buffer->frame_count; frame++) {
        double phase = fmod((double)(first + frame) * FIXTURE_HZ, buffer->sample_rate) / buffer->sample_rate;
        float sample = (float)(0.5 * sin(2.0 * 3.14159265358979323846 * phase));

        for (uint32_t channel = 0; channel < buffer->channel_count; channel++) {
            buffer->output[frame * buffer->channel_count + channel] = sample;
        }
    }
    if (bad) {
        /* One sample of the period, the rest a sine as before: a glitch, not a stream of garbage. */
        buffer->output[(buffer->period % buffer->frame_count) * buffer->channel_count] =
            FIXTURE_FAULT == 3 ? NAN : FIXTURE_FAULT == 4 ? INFINITY : 1e30f;
    }
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, NULL, NULL,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), NULL, NULL, did_become_active, NULL, NULL, NULL,
};

/* ABI 1.9: logs "render demoted <reason>" (CONTRACT X7). */
static void render_demoted(int32_t reason)
{
    char line[48];

    snprintf(line, sizeof line, "render demoted %d", (int)reason);
    host->log(host, APPHOST_LOG_INFO, line);
}

static const apphost_guest_audio_t audio_callbacks = {
    sizeof(apphost_guest_audio_t), activation_finished, interruption_began, NULL, NULL, NULL, NULL, render,
    render_demoted,
};

static apphost_status_t init(const apphost_host_t *h)
{
    host = h;
    audio = h->get_extension(h, APPHOST_AUDIO_EXTENSION_ID);
    return audio != NULL ? APPHOST_OK : APPHOST_ERROR_UNSUPPORTED;
}

static void deinit(void) {}

static const void *query(const char *interface_id)
{
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_AUDIO_CALLBACKS_ID) == 0) {
        return &audio_callbacks;
    }
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_SCENE_CALLBACKS_ID) == 0) {
        return &scene_callbacks;
    }
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t), FIXTURE_ID, "Render fault", "1.0.0", "apphost tests",
    "Plays a sine, then crashes or hangs inside render.",
    (FIXTURE_SNEAK ? 0 : APPHOST_CAPABILITY_BACKGROUND_AUDIO) |
        (FIXTURE_RECORD && FIXTURE_INPUT ? APPHOST_CAPABILITY_AUDIO_INPUT : 0),
};

APPHOST_EXPORT const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
