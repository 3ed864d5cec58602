/*
 * A guest that plays a sound session, as sdk/examples/tone.c does, and
 * misbehaves beside it, for the benchmark of healthy sessions beside hostile
 * ones (issue 34, point 9). -DHOSTILE_KIND= chooses how:
 *   1  its render spins (busy-waits) for one and a half periods, every period,
 *      then sleeps 50 us: which the kernel's RLIMIT_RTTIME, that counts the
 *      time a real-time thread runs without sleeping, does not catch
 *   2  its render blocks: sleeps for three periods, every period
 *   3  its render crashes (abort) after 100 periods
 *   4  a thread of its own flaps rendering on and off in a tight loop
 *   5  a thread of its own flaps its session: activate, deactivate, in a loop
 *   6  its main queue spins: work that burns 100 ms, then queues itself again
 *   7  two threads of its own spin for ever
 * Every kind plays a sine as long as it can and declares background audio,
 * so that the host keeps it running in background (CONTRACT B6). BENCH_ID tells the copies apart.
 * Built by the benchmarks with cc (-lm -lpthread).
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <apphost/apphost.h>

#ifndef BENCH_ID
#define BENCH_ID "org.apphost.bench.hostile"
#endif
#ifndef HOSTILE_KIND
#define HOSTILE_KIND 1
#endif

static const apphost_host_t *host;
static const apphost_audio_t *audio;
static const apphost_background_t *background;
static atomic_int playing;
static atomic_int stopping;
static pthread_t threads[2];
static int thread_count;
/* Only the audio thread touches it. */
static unsigned long periods_rendered;

static uint64_t now_ns(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void spin_for(uint64_t nanoseconds)
{
    uint64_t until = now_ns() + nanoseconds;

    while (now_ns() < until && !atomic_load(&stopping)) {
    }
}

static void *flap_rendering(void *unused)
{
    while (!atomic_load(&stopping)) {
        audio->set_rendering(host, 0);
        audio->set_rendering(host, 1);
    }
    return unused;
}

static void *flap_session(void *unused)
{
    apphost_audio_request_t request;

    while (!atomic_load(&stopping)) {
        audio->activate(host, &request);
        audio->deactivate(host, 0);
    }
    return unused;
}

static void *spin(void *unused)
{
    while (!atomic_load(&stopping)) {
        spin_for(1000000);
    }
    return unused;
}

static void spin_on_main_queue(void *context)
{
    spin_for(100000000);
    if (!atomic_load(&stopping)) {
        background->dispatch_async(host, spin_on_main_queue, context);
    }
}

static void start_thread(void *(*body)(void *))
{
    if (thread_count < 2 && pthread_create(&threads[thread_count], NULL, body, NULL) == 0) {
        thread_count++;
    }
}

static apphost_status_t did_finish_launching(void)
{
    apphost_audio_request_t request;

    if (audio == NULL) {
        return APPHOST_ERROR_GUEST_FAILED;
    }
    audio->set_configuration(host, APPHOST_AUDIO_CATEGORY_PLAYBACK, APPHOST_AUDIO_MODE_DEFAULT,
                             APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS);
    audio->activate(host, &request);
    switch (HOSTILE_KIND) {
    case 4:
        start_thread(flap_rendering);
        break;
    case 5:
        start_thread(flap_session);
        break;
    case 6:
        if (background != NULL) {
            background->dispatch_async(host, spin_on_main_queue, NULL);
        }
        break;
    case 7:
        start_thread(spin);
        start_thread(spin);
        break;
    default:
        break;
    }
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

/* [audio-thread] The sine of tone.c, then the kind's misbehaviour. */
static void render(const apphost_audio_buffer_t *buffer)
{
    uint64_t first = buffer->period * buffer->frame_count;
    uint64_t period_ns = (uint64_t)buffer->frame_count * 1000000000u / buffer->sample_rate;

    if (atomic_load(&playing)) {
        for (uint32_t frame = 0; frame < buffer->frame_count; frame++) {
            double phase = fmod((double)(first + frame) * 330.0, buffer->sample_rate) / buffer->sample_rate;
            float sample = (float)(0.25 * sin(2.0 * 3.14159265358979323846 * phase));

            for (uint32_t channel = 0; channel < buffer->channel_count; channel++) {
                buffer->output[frame * buffer->channel_count + channel] = sample;
            }
        }
    }
    periods_rendered++;
    switch (HOSTILE_KIND) {
    case 1: {
        struct timespec pause = {0, 50000};

        spin_for(period_ns + period_ns / 2);
        nanosleep(&pause, NULL);
        break;
    }
    case 2: {
        struct timespec pause = {0, (long)(3 * period_ns)};

        nanosleep(&pause, NULL);
        break;
    }
    case 3:
        if (periods_rendered == 100) {
            abort();
        }
        break;
    default:
        break;
    }
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, NULL, NULL,
};

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
    background = h->get_extension(h, APPHOST_BACKGROUND_EXTENSION_ID);
    return APPHOST_OK;
}

static void deinit(void)
{
    atomic_store(&stopping, 1);
    for (int i = 0; i < thread_count; i++) {
        pthread_join(threads[i], NULL);
    }
    thread_count = 0;
    audio = NULL;
    background = NULL;
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
    sizeof(apphost_guest_descriptor_t), BENCH_ID, "Hostile", "1.0.0", NULL, NULL, APPHOST_CAPABILITY_BACKGROUND_AUDIO,
    NULL,
};

const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
