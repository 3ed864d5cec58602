/*
 * The output latency benchmark (LatencyBenchmark.swift): how long a rendered period takes from
 * its guest to the sink, measured rather than configured. Built with cc twice, as
 * wake_pingpong.c is:
 *
 *   - with -shared, a sink for mix_engine (mix_stream.h's kind table), opened through dlsym: at
 *     each write it notes the CLOCK_MONOTONIC time and what the period's stamp says (below) in
 *     arrays the benchmark owns, one entry per cycle, until they are full;
 *   - with -DLATENCY_RENDERER_MAIN and Sources/ApphostMixing/mix_region.c, the guest side of a
 *     session region in a process of its own, on the inherited fds, as
 *     Plugins/Fixtures/region_renderer.c plays it:
 *
 *       latency_probe MEMFD WAKE_FD
 *
 *     For every period requested it renders a 1 kHz sine at a quarter of full scale (in double,
 *     as the fixture does), then stamps the period: its first 8 samples (interleaved, whatever
 *     the channels) carry the period's number plus one and the CLOCK_MONOTONIC time just before
 *     mix_region_done, 16 bits a sample as k / 65536 (exact in a float, and mix_period's
 *     0 + sample * 1.0 keeps them exact with one session at gain 1). It asks for SCHED_FIFO 60,
 *     as the guest runtime's audio thread does (audio_renderer.c), and runs without where that
 *     is refused. Until killed.
 *
 * CLOCK_MONOTONIC is one clock for every process of the machine, so the renderer's stamp and
 * the sink's time compare directly.
 */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

enum { STAMP_SAMPLES = 8 };

static uint64_t now_ns(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

#ifndef LATENCY_RENDERER_MAIN

#include "mix_stream.h"

struct stamp_sink {
    mix_sink base;
    uint64_t *written_ns;
    uint64_t *rendered_ns;
    uint64_t *periods;
    uint64_t capacity;
    /* The caller's: cycles noted so far. */
    uint64_t *count;
};

static uint64_t decode(const float *samples)
{
    uint64_t value = 0;

    for (int i = 0; i < 4; i++) {
        float sample = samples[i];

        /* Silence, a clipped or a foreign sample: no stamp. */
        if (!(sample >= 0.0f && sample < 1.0f)) {
            return 0;
        }
        value |= (uint64_t)(sample * 65536.0f) << (16 * i);
    }
    return value;
}

static bool stamp_write(mix_stream *base, const float *samples, uint32_t frames)
{
    struct stamp_sink *sink = (struct stamp_sink *)base;
    uint64_t written = now_ns();

    uint64_t cycle = *sink->count;

    if (frames * base->channels >= STAMP_SAMPLES && cycle < sink->capacity) {
        sink->written_ns[cycle] = written;
        sink->periods[cycle] = decode(samples);
        sink->rendered_ns[cycle] = decode(samples + 4);
        *sink->count = cycle + 1;
    }
    return true;
}

static const mix_stream_kind stamp_kind = {.write = stamp_write};

/* A sink of `sample_rate` and `channels` that notes, for cycle c (its c-th write) while c <
 * `capacity`: written_ns[c], the time of the write; periods[c], the stamped period's number plus
 * one (0: no stamp, the period was silence); rendered_ns[c], the stamped render time (0: none);
 * and in `*count` how many cycles it noted. The arrays and the count stay the caller's (the
 * engine frees the sink when it stops): read them once mix_engine_stop returned. NULL when out
 * of memory. */
EXPORT mix_sink *apphost_bench_stamp_sink_open(uint32_t sample_rate, uint32_t channels, uint64_t *written_ns,
                                               uint64_t *rendered_ns, uint64_t *periods, uint64_t capacity,
                                               uint64_t *count)
{
    /* Not mix_stream_new: this library is built alone, without ApphostMixing. */
    struct stamp_sink *sink = calloc(1, sizeof *sink);

    if (sink == NULL) {
        return NULL;
    }
    sink->base.stream.kind = &stamp_kind;
    sink->base.stream.sample_rate = sample_rate;
    sink->base.stream.channels = channels;
    sink->written_ns = written_ns;
    sink->rendered_ns = rendered_ns;
    sink->periods = periods;
    sink->capacity = capacity;
    sink->count = count;
    *count = 0;
    return &sink->base;
}

#else

#include "mix_region.h"

static void encode(float *samples, uint64_t value)
{
    for (int i = 0; i < 4; i++) {
        samples[i] = (float)((value >> (16 * i)) & 0xffffu) / 65536.0f;
    }
}

int main(int argc, char **argv)
{
    char error[MIX_REGION_ERROR_BYTES] = "";
    struct sched_param parameters = {.sched_priority = 60};
    mix_region *region;

    if (argc != 3) {
        fprintf(stderr, "usage: latency_probe MEMFD WAKE_FD\n");
        return 2;
    }
    region = mix_region_map(atoi(argv[1]), atoi(argv[2]), error, sizeof error);
    if (region == NULL) {
        fprintf(stderr, "latency_probe: %s\n", error);
        return 2;
    }
    (void)sched_setscheduler(0, SCHED_FIFO, &parameters);
    for (;;) {
        uint64_t period = mix_region_wait(region, -1);
        uint32_t frames = mix_region_frames(region);
        uint32_t channels = mix_region_channels(region);
        float *samples;

        if (period == MIX_REGION_NONE) {
            continue;
        }
        samples = mix_region_buffer(region, period);
        for (uint32_t frame = 0; frame < frames; frame++) {
            double time = (double)(period * frames + frame) / 48000.0;
            float value = (float)(0.25 * sin(2 * M_PI * 1000.0 * time));

            for (uint32_t channel = 0; channel < channels; channel++) {
                samples[frame * channels + channel] = value;
            }
        }
        if (frames * channels >= STAMP_SAMPLES) {
            encode(samples, period + 1);
            encode(samples + 4, now_ns());
        }
        mix_region_done(region, period);
    }
}

#endif
