/* tone.c: a guest that plays a sine from its launch (ABI 1.5), the smallest
 * one that makes sound. It asks for a playback session that mixes with
 * others (so the host grants it at launch, when a guest is in background;
 * it is heard once it comes to the foreground, and in background only with
 * APPHOST_CAPABILITY_BACKGROUND_AUDIO, CONTRACT B9),
 * and once the host says it is active, its render callback writes a 1 kHz tone at half of
 * full scale (-6.02 dBFS peak, -9.03 dBFS RMS) on every channel. Build from
 * the repository root:
 *   cc -std=c99 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags sdk/apphost.pc) \
 *      -Wl,--version-script=sdk/apphost.map sdk/examples/tone.c -lm -o tone.so
 * and hear it in a file: apphost launch --audio-output wav:tone.wav tone.so
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <apphost/apphost.h>

/* -D to change them, as the benchmarks do to run many copies side by side. */
#ifndef TONE_ID
#define TONE_ID "org.example.tone"
#endif
#ifndef TONE_HZ
#define TONE_HZ 1000.0
#endif
/* APPHOST_CAPABILITY_BACKGROUND_AUDIO to keep playing in background, where a
 * guest without it is silent, then suspended (CONTRACT B9, B6). */
#ifndef TONE_CAPABILITIES
#define TONE_CAPABILITIES 0
#endif
#define TONE_AMPLITUDE 0.5

static const apphost_host_t *host;   /* from init, valid until deinit returns */
static const apphost_audio_t *audio; /* NULL when the host offers no audio */

/* Set on the main queue, read on the audio thread: an atomic, never a lock. */
static atomic_int playing;

static apphost_status_t did_finish_launching(void)
{
    apphost_audio_request_t request;

    if (audio == NULL) {
        host->log(host, APPHOST_LOG_WARNING, "tone: the host offers no audio");
        return APPHOST_OK;
    }
    audio->set_configuration(host, APPHOST_AUDIO_CATEGORY_PLAYBACK, APPHOST_AUDIO_MODE_DEFAULT,
                             APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS);
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
    (void)reason;
    atomic_store(&playing, 0);
}

static void interruption_ended(int32_t reason, int32_t should_resume)
{
    apphost_audio_request_t request;

    (void)reason;
    if (should_resume) {
        audio->activate(host, &request);
    }
}

/* [audio-thread] No locks, no allocation, no I/O: arithmetic only. The
 * phase comes from the period's number, so the tone runs on without a click
 * from one period to the next, whatever was skipped. */
static void render(const apphost_audio_buffer_t *buffer)
{
    uint64_t first = buffer->period * buffer->frame_count;

    if (!atomic_load(&playing)) {
        return; /* the buffer holds silence already */
    }
    for (uint32_t frame = 0; frame < buffer->frame_count; frame++) {
        /* Where the frame falls in the tone's cycle, from 0 to 1: exact in a
         * double for days of frames, so the tone stays pure however long the
         * host runs. */
        double phase = fmod((double)(first + frame) * TONE_HZ, buffer->sample_rate) / buffer->sample_rate;
        float sample = (float)(TONE_AMPLITUDE * sin(2.0 * 3.14159265358979323846 * phase));

        for (uint32_t channel = 0; channel < buffer->channel_count; channel++) {
            buffer->output[frame * buffer->channel_count + channel] = sample;
        }
    }
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, NULL, NULL,
};

/* Members this guest does not implement are NULL; render is the last. */
static const apphost_guest_audio_t audio_callbacks = {
    sizeof(apphost_guest_audio_t), activation_finished, interruption_began, interruption_ended, NULL, NULL, NULL,
    render,
};

static apphost_status_t init(const apphost_host_t *h)
{
    if (h == NULL || h->log == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    host = h;
    audio = h->get_extension(h, APPHOST_AUDIO_EXTENSION_ID);
    return APPHOST_OK;
}

static void deinit(void)
{
    audio = NULL;
    host = NULL;
}

static const void *query(const char *interface_id)
{
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_AUDIO_CALLBACKS_ID) == 0) {
        return &audio_callbacks;
    }
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t),
    TONE_ID,            /* id: never change it, it names the saved state */
    "Tone",             /* name */
    "1.0.0",            /* version */
    NULL,               /* vendor */
    NULL,               /* description */
    TONE_CAPABILITIES,  /* capabilities */
    NULL,               /* actions (ABI 1.6, actions.h) */
};

const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
