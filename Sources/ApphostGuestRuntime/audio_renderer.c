#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif /* pthread_timedjoin_np */
#include "audio_renderer.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mix_region.h"

/* Below the host mixer's priority: a guest's renderer must never preempt
 * the thread that collects it. */
enum { RENDERER_PRIORITY = 60 };

struct ahr_audio_renderer {
    mix_region *region;
    pthread_t thread;
    void (*render)(const apphost_audio_buffer_t *buffer);
    uint32_t sample_rate;
    _Atomic bool active;
    _Atomic bool records;
    /* Published by the thread as it starts; start waits for it. */
    _Atomic int32_t thread_id;
    bool realtime;
};

static void *render_loop(void *argument)
{
    ahr_audio_renderer *renderer = argument;
    mix_region *region = renderer->region;
    uint32_t frames = mix_region_frames(region);
    uint32_t channels = mix_region_channels(region);
    size_t bytes = (size_t)frames * channels * sizeof(float);
    struct sched_param parameters;
    int policy;

    renderer->realtime = pthread_getschedparam(pthread_self(), &policy, &parameters) == 0 && policy == SCHED_FIFO;
    atomic_store_explicit(&renderer->thread_id, (int32_t)syscall(SYS_gettid), memory_order_release);
    for (;;) {
        uint64_t period = mix_region_wait(region, -1);
        float *output;

        if (period == MIX_REGION_NONE) {
            /* Interrupted: the runtime is stopping this thread. */
            return NULL;
        }
        output = mix_region_buffer(region, period);
        memset(output, 0, bytes);
        if (atomic_load_explicit(&renderer->active, memory_order_acquire)) {
            bool records = atomic_load_explicit(&renderer->records, memory_order_relaxed);
            apphost_audio_buffer_t buffer = {
                .struct_size = sizeof buffer,
                .frame_count = frames,
                .channel_count = channels,
                .sample_rate = renderer->sample_rate,
                .period = period,
                .output = output,
                .input = records ? mix_region_input(region, period) : NULL,
            };

            renderer->render(&buffer);
        }
        mix_region_done(region, period);
    }
}

/* SCHED_FIFO where permitted, else the default policy. */
static int start_thread(ahr_audio_renderer *renderer)
{
    pthread_attr_t attributes;
    struct sched_param parameters = {.sched_priority = RENDERER_PRIORITY};
    int status;

    pthread_attr_init(&attributes);
    pthread_attr_setinheritsched(&attributes, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attributes, SCHED_FIFO);
    pthread_attr_setschedparam(&attributes, &parameters);
    status = pthread_create(&renderer->thread, &attributes, render_loop, renderer);
    pthread_attr_destroy(&attributes);
    if (status == EPERM) {
        status = pthread_create(&renderer->thread, NULL, render_loop, renderer);
    }
    return status;
}

ahr_audio_renderer *ahr_audio_renderer_start(int memfd, int wake_fd,
                                             void (*render)(const apphost_audio_buffer_t *buffer),
                                             uint32_t sample_rate, uint32_t period_frames, uint32_t channel_count,
                                             bool active, bool records, char *error, size_t error_size)
{
    mix_region *region = mix_region_map(memfd, wake_fd, error, error_size);
    ahr_audio_renderer *renderer;
    int status;

    if (region == NULL) {
        close(memfd);
        close(wake_fd);
        return NULL;
    }
    if (mix_region_frames(region) != period_frames || mix_region_channels(region) != channel_count) {
        snprintf(error, error_size, "audio region of %u frames of %u channels, the host announced %u of %u",
                 mix_region_frames(region), mix_region_channels(region), period_frames, channel_count);
        mix_region_close(region);
        return NULL;
    }
    renderer = calloc(1, sizeof *renderer);
    if (renderer == NULL) {
        snprintf(error, error_size, "audio thread: out of memory");
        mix_region_close(region);
        return NULL;
    }
    renderer->region = region;
    renderer->render = render;
    renderer->sample_rate = sample_rate;
    atomic_init(&renderer->active, active);
    atomic_init(&renderer->records, records);
    status = start_thread(renderer);
    if (status != 0) {
        snprintf(error, error_size, "audio thread: pthread_create: %s", strerror(status));
        mix_region_close(region);
        free(renderer);
        return NULL;
    }
    /* Its id, for the host to find it by: published before the thread's
     * first wait, within microseconds. */
    while (atomic_load_explicit(&renderer->thread_id, memory_order_acquire) == 0) {
        sched_yield();
    }
    return renderer;
}

int32_t ahr_audio_renderer_thread_id(const ahr_audio_renderer *renderer)
{
    return atomic_load_explicit(&renderer->thread_id, memory_order_acquire);
}

bool ahr_audio_renderer_realtime(const ahr_audio_renderer *renderer)
{
    /* Written before the thread id was published, read after it. */
    return atomic_load_explicit(&renderer->thread_id, memory_order_acquire) != 0 && renderer->realtime;
}

void ahr_audio_renderer_set(ahr_audio_renderer *renderer, bool active, bool records)
{
    if (renderer == NULL) {
        return;
    }
    atomic_store_explicit(&renderer->records, records, memory_order_relaxed);
    atomic_store_explicit(&renderer->active, active, memory_order_release);
}

bool ahr_audio_renderer_stop(ahr_audio_renderer *renderer, int64_t timeout_ns)
{
    struct timespec deadline;

    if (renderer == NULL) {
        return true;
    }
    mix_region_interrupt(renderer->region);
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)(timeout_ns / 1000000000);
    deadline.tv_nsec += (long)(timeout_ns % 1000000000);
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000;
    }
    if (pthread_timedjoin_np(renderer->thread, NULL, &deadline) != 0) {
        /* Stuck in the guest's render: the thread keeps what it uses. */
        pthread_detach(renderer->thread);
        return false;
    }
    mix_region_close(renderer->region);
    free(renderer);
    return true;
}
