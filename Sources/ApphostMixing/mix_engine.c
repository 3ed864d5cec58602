#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif /* pthread scheduling attributes, CLOCK_THREAD_CPUTIME_ID */
#include "mix_engine.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mix_error.h"
#include "mix_level.h"
#include "mix_period.h"

/* The mixer must never wait on a lock: its shared words must be atomic
 * instructions, not libatomic's locks. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "32-bit atomics must be lock-free");

enum {
    MAX_CAPACITY = 1024,
    NANOSECONDS_PER_SECOND = 1000000000,
    /* The free clock's poll for completed periods. */
    FREE_POLL_NS = 50000,
    /* Words of the largest meter a seqlock carries. */
    METER_WORDS = 12
};

#define NO_CYCLE UINT64_MAX
#define DEFAULT_FREE_WAIT_NS 200000000ULL

/* A slot's life: only the host makes a slot free or in use, and retiring;
 * only the thread (while it runs) makes it retired. */
enum {
    SLOT_FREE = 0,
    SLOT_ACTIVE = 1,
    SLOT_RETIRING = 2,
    SLOT_RETIRED = 3
};

/* The mix state in one word, so that the thread never sees half a change:
 * the gain's bits low, the flags above. */
#define MIX_MIXED (1ULL << 32)
#define MIX_INPUT (1ULL << 33)

_Static_assert(sizeof(mix_session_meter) % sizeof(uint64_t) == 0, "whole words");
_Static_assert(sizeof(mix_output_meter) % sizeof(uint64_t) == 0, "whole words");
_Static_assert(sizeof(mix_session_meter) <= METER_WORDS * sizeof(uint64_t), "meter fits");
_Static_assert(sizeof(mix_output_meter) <= METER_WORDS * sizeof(uint64_t), "meter fits");

/* One writer's snapshot for any number of readers: the writer makes the
 * sequence odd, writes, makes it even; a reader retries while it is odd or
 * changed under it. Atomic words, so that a torn read is a retry and never
 * a data race; the writer never waits. */
typedef struct seqlock {
    _Atomic uint64_t sequence;
    _Atomic uint64_t words[METER_WORDS];
} seqlock;

typedef struct engine_slot {
    _Atomic uint32_t state;
    /* MIX_MIXED, MIX_INPUT and the gain's bits: the host's to store. */
    _Atomic uint64_t mix;
    /* The host sets it while the slot is free; the state's store publishes
     * it. */
    mix_region *region;
    /* The thread's own from then on (the host resets them while free). */
    uint64_t requested;
    /* The free clock: whether it waits for this session's periods, and the
     * period it last gave up on. */
    bool keeping_up;
    uint64_t dropped_at;
    mix_level_window window;
    uint64_t collected;
    uint64_t xruns;
    uint64_t bad_samples;
    seqlock meter;
} engine_slot;

struct mix_engine {
    mix_engine_config config;
    uint32_t samples;
    uint64_t period_ns;
    uint64_t free_wait_ns;
    uint64_t span_samples;
    engine_slot *slots;
    /* The thread's scratch, allocated at create: the output, the input, a
     * session's period as taken from its region (mix_sanitize), the slots it
     * handles this cycle and those the free clock waits for. */
    float *out;
    float *input;
    float *taken;
    int32_t *handled;
    int32_t *waiting;
    /* The host's. */
    pthread_t thread;
    bool started;
    bool joined;
    bool sink_closed;
    _Atomic bool realtime;
    /* Between the thread and everyone. */
    _Atomic bool stop;
    _Atomic bool finished;
    _Atomic uint64_t cycle;
    _Atomic bool failed;
    /* Written once, before `failed` is set. */
    char failure[MIX_ENGINE_ERROR_BYTES];
    seqlock output;
    /* The thread's own. */
    mix_pacer pacer;
    mix_level_window out_window;
    uint64_t clipped;
    uint64_t overruns;
    uint64_t max_late_ns;
    uint64_t input_failures;
};

static void seqlock_write(seqlock *lock, const void *value, size_t bytes)
{
    uint64_t words[METER_WORDS];
    uint64_t sequence = atomic_load_explicit(&lock->sequence, memory_order_relaxed);

    memcpy(words, value, bytes);
    atomic_store_explicit(&lock->sequence, sequence + 1, memory_order_relaxed);
    /* The odd sequence before any word. */
    atomic_thread_fence(memory_order_release);
    for (size_t i = 0; i < bytes / sizeof(uint64_t); i++) {
        atomic_store_explicit(&lock->words[i], words[i], memory_order_relaxed);
    }
    atomic_store_explicit(&lock->sequence, sequence + 2, memory_order_release);
}

static void seqlock_read(const seqlock *lock, void *value, size_t bytes)
{
    uint64_t words[METER_WORDS];

    for (;;) {
        uint64_t before = atomic_load_explicit(&lock->sequence, memory_order_acquire);

        if (before & 1) {
            sched_yield();
            continue;
        }
        for (size_t i = 0; i < bytes / sizeof(uint64_t); i++) {
            words[i] = atomic_load_explicit(&lock->words[i], memory_order_relaxed);
        }
        /* The words before the second look at the sequence. */
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&lock->sequence, memory_order_relaxed) == before) {
            break;
        }
    }
    memcpy(value, words, bytes);
}

static uint64_t pack_mix(bool mixed, float gain, bool wants_input)
{
    uint32_t bits;

    memcpy(&bits, &gain, sizeof bits);
    return (uint64_t)bits | (mixed ? MIX_MIXED : 0) | (wants_input ? MIX_INPUT : 0);
}

static float gain_of(uint64_t mix)
{
    uint32_t bits = (uint32_t)mix;
    float gain;

    memcpy(&gain, &bits, sizeof gain);
    return gain;
}

static uint64_t now_ns(clockid_t clock)
{
    struct timespec now;

    clock_gettime(clock, &now);
    return (uint64_t)now.tv_sec * NANOSECONDS_PER_SECOND + (uint64_t)now.tv_nsec;
}

static void sleep_ns(uint64_t duration)
{
    struct timespec span = {(time_t)(duration / NANOSECONDS_PER_SECOND), (long)(duration % NANOSECONDS_PER_SECOND)};

    clock_nanosleep(CLOCK_MONOTONIC, 0, &span, NULL);
}

/* A free slot made ready for `region`: the host's, while the thread never
 * touches a free slot. */
static void reset_slot(mix_engine *engine, engine_slot *slot, mix_region *region)
{
    mix_session_meter meter = {MIX_LEVEL_FLOOR_DBFS, MIX_LEVEL_FLOOR_DBFS, 0, 0, 0, MIX_REGION_NONE, 0};

    slot->region = region;
    slot->requested = MIX_REGION_NONE;
    slot->keeping_up = true;
    slot->dropped_at = MIX_REGION_NONE;
    mix_level_window_init(&slot->window, engine->span_samples);
    slot->collected = 0;
    slot->xruns = 0;
    slot->bad_samples = 0;
    seqlock_write(&slot->meter, &meter, sizeof meter);
    atomic_store_explicit(&slot->mix, pack_mix(false, 0.0f, false), memory_order_seq_cst);
}

/* A span's level in dBFS, the floor before the first span closed. */
static void window_dbfs(const mix_level_window *window, double *peak, double *rms)
{
    if (window->spans == 0) {
        *peak = MIX_LEVEL_FLOOR_DBFS;
        *rms = MIX_LEVEL_FLOOR_DBFS;
        return;
    }
    *peak = mix_level_peak_dbfs(window->last);
    *rms = mix_level_rms_dbfs(window->last);
}

/* `on_thread`: the CPU time is the mixer thread's, read on it. */
static void publish_output(mix_engine *engine, uint64_t cycles, bool on_thread)
{
    mix_output_meter meter;

    meter.cycles = cycles;
    window_dbfs(&engine->out_window, &meter.peak_dbfs, &meter.rms_dbfs);
    meter.clipped_samples = engine->clipped;
    meter.overruns = engine->overruns;
    meter.max_late_ns = engine->max_late_ns;
    meter.cpu_ns = on_thread ? now_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
    meter.input_failures = engine->input_failures;
    meter.finished = atomic_load_explicit(&engine->finished, memory_order_relaxed) ? 1 : 0;
    seqlock_write(&engine->output, &meter, sizeof meter);
}

/* Steps 3 and 4: collects period c - 1 of every mixed session, mixes it
 * into the sink and measures. Returns how many slots it handled (in use,
 * their indices in engine->handled).
 *
 * A session's period is taken into the mixer's own memory first
 * (mix_sanitize): what is mixed and metered is that copy, silence when the
 * guest put a sample that is not a number in it (X7), counted as its bad
 * samples. So one guest's NaN, infinity or absurd value reaches neither the
 * mix nor its own meter, and a guest writing its region while the mixer
 * reads it cannot change what was checked. */
static size_t mix_cycle(mix_engine *engine, uint64_t cycle)
{
    uint32_t frames = engine->config.period_frames;
    size_t handled = 0;
    mix_level level;

    /* All bits 0 is 0.0f in IEEE 754: the empty mix. */
    memset(engine->out, 0, engine->samples * sizeof(float));

    for (uint32_t i = 0; i < engine->config.capacity; i++) {
        engine_slot *slot = &engine->slots[i];
        uint32_t state = atomic_load_explicit(&slot->state, memory_order_seq_cst);
        const float *samples = NULL;
        mix_session_meter meter;
        uint64_t mix;
        float gain;

        if (state == SLOT_RETIRING) {
            /* Release: every touch of the region before the host sees it
             * retired. */
            atomic_store_explicit(&slot->state, SLOT_RETIRED, memory_order_release);
            continue;
        }
        if (state != SLOT_ACTIVE) {
            continue;
        }
        engine->handled[handled++] = (int32_t)i;
        mix = atomic_load_explicit(&slot->mix, memory_order_seq_cst);
        gain = gain_of(mix);
        if ((mix & MIX_MIXED) && slot->requested != MIX_REGION_NONE && slot->requested + 1 == cycle) {
            const float *shared = mix_region_collect(slot->region, cycle - 1);

            if (shared == NULL) {
                slot->xruns++;
            } else {
                slot->collected++;
                slot->keeping_up = true;
                slot->bad_samples += mix_sanitize(engine->taken, shared, engine->samples);
                samples = engine->taken;
                /* A muted session adds nothing: skipped. */
                if (gain != 0.0f) {
                    mix_period_add(engine->out, samples, gain, engine->samples);
                }
            }
        }
        /* As mixed: silence while not collected, samples times the gain. */
        level = mix_level_measure(samples, engine->samples);
        level.peak *= fabsf(gain);
        level.sum_of_squares *= (double)gain * gain;
        mix_level_window_add(&slot->window, level);
        window_dbfs(&slot->window, &meter.peak_dbfs, &meter.rms_dbfs);
        meter.periods_collected = slot->collected;
        meter.frames_rendered = slot->collected * frames;
        meter.xruns = slot->xruns;
        meter.last_cycle = cycle;
        meter.bad_samples = slot->bad_samples;
        seqlock_write(&slot->meter, &meter, sizeof meter);
    }
    engine->clipped += mix_period_clip(engine->out, engine->samples);
    if (!atomic_load_explicit(&engine->failed, memory_order_relaxed) &&
        !mix_sink_write(engine->config.sink, engine->out, frames)) {
        /* The sink's text is final once it failed: copied once, then
         * published. */
        snprintf(engine->failure, sizeof engine->failure, "%s", mix_sink_error(engine->config.sink));
        atomic_store_explicit(&engine->failed, true, memory_order_release);
    }
    mix_level_window_add(&engine->out_window, mix_level_measure(engine->out, engine->samples));
    publish_output(engine, cycle + 1, true);
    return handled;
}

/* Step 5: the input for period c, then the requests. Returns how many
 * sessions it asked, their indices moved to the front of engine->handled. */
static size_t request_cycle(mix_engine *engine, uint64_t cycle, size_t handled)
{
    size_t asked = 0;

    if (engine->config.read_input != NULL &&
        !engine->config.read_input(engine->config.input, engine->input, engine->config.period_frames)) {
        memset(engine->input, 0, engine->samples * sizeof(float));
        engine->input_failures++;
    }
    for (size_t i = 0; i < handled; i++) {
        engine_slot *slot = &engine->slots[engine->handled[i]];
        uint64_t mix = atomic_load_explicit(&slot->mix, memory_order_relaxed);

        if (!(mix & MIX_MIXED)) {
            continue;
        }
        if (mix & MIX_INPUT) {
            memcpy(mix_region_input(slot->region, cycle), engine->input, engine->samples * sizeof(float));
        }
        mix_region_request(slot->region, cycle);
        slot->requested = cycle;
        engine->handled[asked++] = engine->handled[i];
    }
    return asked;
}

/* The free clock after the requests: waits for the sessions that keep up to
 * complete `cycle`, free_wait_ns at most; a period of real time when it has
 * none to wait for. */
static void free_wait(mix_engine *engine, uint64_t cycle, size_t asked)
{
    size_t waiting = 0;
    uint64_t deadline;

    for (size_t i = 0; i < asked; i++) {
        engine_slot *slot = &engine->slots[engine->handled[i]];

        if (!slot->keeping_up) {
            uint64_t rendered = mix_region_rendered(slot->region);

            /* It completed a period after the one it was dropped at: it is
             * back, waited for again. */
            if (rendered != MIX_REGION_NONE && slot->dropped_at != MIX_REGION_NONE && rendered >= slot->dropped_at &&
                rendered <= cycle) {
                slot->keeping_up = true;
            }
        }
        if (slot->keeping_up) {
            engine->waiting[waiting++] = engine->handled[i];
        }
    }
    if (waiting == 0) {
        sleep_ns(engine->period_ns);
        return;
    }
    deadline = now_ns(CLOCK_MONOTONIC) + engine->free_wait_ns;
    for (;;) {
        size_t left = 0;

        for (size_t i = 0; i < waiting; i++) {
            engine_slot *slot = &engine->slots[engine->waiting[i]];

            if (mix_region_rendered(slot->region) != cycle) {
                engine->waiting[left++] = engine->waiting[i];
            }
        }
        waiting = left;
        if (waiting == 0 || atomic_load_explicit(&engine->stop, memory_order_relaxed)) {
            return;
        }
        if (now_ns(CLOCK_MONOTONIC) >= deadline) {
            for (size_t i = 0; i < waiting; i++) {
                engine_slot *slot = &engine->slots[engine->waiting[i]];

                slot->keeping_up = false;
                slot->dropped_at = cycle;
            }
            return;
        }
        sleep_ns(FREE_POLL_NS);
    }
}

static void *run(void *argument)
{
    mix_engine *engine = argument;
    uint64_t limit = engine->config.cycles;
    uint64_t cycle;

    mix_pacer_start(&engine->pacer);
    for (cycle = 0; limit == 0 || cycle < limit; cycle++) {
        size_t handled;
        size_t asked;

        if (atomic_load_explicit(&engine->stop, memory_order_acquire)) {
            return NULL;
        }
        if (engine->config.clock == MIX_CLOCK_REAL) {
            mix_tick tick;

            mix_pacer_wait(&engine->pacer, &tick);
            engine->overruns += tick.missed;
            if (tick.late_ns > engine->max_late_ns) {
                engine->max_late_ns = tick.late_ns;
            }
        }
        /* Before any session's state is read: what mix_engine_set's answer
         * rests on. */
        atomic_store_explicit(&engine->cycle, cycle, memory_order_seq_cst);
        handled = mix_cycle(engine, cycle);
        asked = request_cycle(engine, cycle, handled);
        if (engine->config.clock == MIX_CLOCK_FREE) {
            free_wait(engine, cycle, asked);
        }
    }
    atomic_store_explicit(&engine->finished, true, memory_order_release);
    publish_output(engine, cycle, true);
    return NULL;
}

mix_engine *mix_engine_create(const mix_engine_config *config, char *error, size_t error_size)
{
    mix_engine *engine;
    const char *bad = NULL;
    double span;

    if (config == NULL) {
        mix_set_error(error, error_size, "audio engine: no config");
        return NULL;
    }
    span = config->meter_span_seconds == 0 ? 1.0 : config->meter_span_seconds;
    if (config->sample_rate < 1) {
        bad = "sample rate";
    } else if (config->channels < 1 || config->channels > MIX_REGION_MAX_CHANNELS) {
        bad = "channels";
    } else if (config->period_frames < 1 || config->period_frames > MIX_REGION_MAX_FRAMES) {
        bad = "frames per period";
    } else if (config->capacity < 1 || config->capacity > MAX_CAPACITY) {
        bad = "sessions (capacity)";
    } else if (config->clock != MIX_CLOCK_REAL && config->clock != MIX_CLOCK_FREE) {
        bad = "clock";
    } else if (!(span > 0 && span <= 3600)) {
        bad = "meter span";
    } else if (config->sink == NULL) {
        bad = "sink (none)";
    } else if (config->sink->stream.channels != config->channels ||
        config->sink->stream.sample_rate != config->sample_rate) {
        bad = "sink's format";
    }
    if (bad != NULL) {
        mix_set_error(error, error_size,
            "audio engine: %s out of bounds (%u Hz, %u channels, %u frames, %u sessions, %g s meters)", bad,
            config->sample_rate, config->channels, config->period_frames, config->capacity, span);
        mix_sink_close(config->sink, NULL, 0);
        return NULL;
    }
    engine = calloc(1, sizeof *engine);
    if (engine == NULL) {
        mix_set_error(error, error_size, "audio engine: out of memory");
        mix_sink_close(config->sink, NULL, 0);
        return NULL;
    }
    engine->config = *config;
    engine->samples = config->period_frames * config->channels;
    engine->period_ns =
        (uint64_t)config->period_frames * NANOSECONDS_PER_SECOND / config->sample_rate;
    engine->free_wait_ns = config->free_wait_ns == 0 ? DEFAULT_FREE_WAIT_NS : config->free_wait_ns;
    engine->span_samples = (uint64_t)llround(span * config->sample_rate) * config->channels;
    engine->slots = calloc(config->capacity, sizeof *engine->slots);
    engine->out = calloc(engine->samples, sizeof(float));
    engine->input = calloc(engine->samples, sizeof(float));
    engine->taken = calloc(engine->samples, sizeof(float));
    engine->handled = calloc(config->capacity, sizeof *engine->handled);
    engine->waiting = calloc(config->capacity, sizeof *engine->waiting);
    if (engine->slots == NULL || engine->out == NULL || engine->input == NULL || engine->taken == NULL ||
        engine->handled == NULL || engine->waiting == NULL) {
        mix_set_error(error, error_size, "audio engine: out of memory");
        mix_engine_destroy(engine);
        return NULL;
    }
    atomic_store_explicit(&engine->cycle, NO_CYCLE, memory_order_relaxed);
    mix_pacer_init(&engine->pacer, config->clock, config->sample_rate, config->period_frames);
    mix_level_window_init(&engine->out_window, engine->span_samples);
    publish_output(engine, 0, false);
    return engine;
}

bool mix_engine_start(mix_engine *engine, char *error, size_t error_size)
{
    pthread_attr_t attributes;
    struct sched_param parameter = {0};
    int result;

    if (engine->started) {
        mix_set_error(error, error_size, "audio engine: started before");
        return false;
    }
    parameter.sched_priority = MIX_ENGINE_PRIORITY;
    if (parameter.sched_priority > sched_get_priority_max(SCHED_FIFO)) {
        parameter.sched_priority = sched_get_priority_max(SCHED_FIFO);
    }
    /* SCHED_FIFO when allowed (EPERM without CAP_SYS_NICE, RLIMIT_RTPRIO or
     * a real-time budget in the cgroup): a normal thread otherwise, whatever
     * the reason, rather than no mixer. */
    result = pthread_attr_init(&attributes);
    if (result == 0) {
        if (pthread_attr_setinheritsched(&attributes, PTHREAD_EXPLICIT_SCHED) == 0 &&
            pthread_attr_setschedpolicy(&attributes, SCHED_FIFO) == 0 &&
            pthread_attr_setschedparam(&attributes, &parameter) == 0) {
            result = pthread_create(&engine->thread, &attributes, run, engine);
        } else {
            result = EINVAL;
        }
        pthread_attr_destroy(&attributes);
    }
    if (result == 0) {
        atomic_store_explicit(&engine->realtime, true, memory_order_relaxed);
    } else {
        result = pthread_create(&engine->thread, NULL, run, engine);
        if (result != 0) {
            mix_set_error(error, error_size, "audio engine: cannot start the mixer thread: %s", strerror(result));
            return false;
        }
    }
    engine->started = true;
    return true;
}

bool mix_engine_realtime(const mix_engine *engine)
{
    return atomic_load_explicit(&engine->realtime, memory_order_relaxed);
}

/* Whether the thread may still touch a slot: started, not joined, not
 * ended by itself. Host thread. */
static bool thread_live(const mix_engine *engine)
{
    return engine->started && !engine->joined && !atomic_load_explicit(&engine->finished, memory_order_acquire);
}

bool mix_engine_stop(mix_engine *engine, char *error, size_t error_size)
{
    char closing[MIX_STREAM_ERROR_BYTES] = "";

    if (engine->started && !engine->joined) {
        atomic_store_explicit(&engine->stop, true, memory_order_release);
        pthread_join(engine->thread, NULL);
        engine->joined = true;
    }
    if (engine->sink_closed) {
        return true;
    }
    engine->sink_closed = true;
    if (!mix_sink_close(engine->config.sink, closing, sizeof closing)) {
        if (!atomic_load_explicit(&engine->failed, memory_order_acquire)) {
            snprintf(engine->failure, sizeof engine->failure, "%s", closing);
            atomic_store_explicit(&engine->failed, true, memory_order_release);
        }
        mix_set_error(error, error_size, "%s", engine->failure);
        return false;
    }
    if (atomic_load_explicit(&engine->failed, memory_order_acquire)) {
        mix_set_error(error, error_size, "%s", engine->failure);
        return false;
    }
    return true;
}

void mix_engine_destroy(mix_engine *engine)
{
    if (engine == NULL) {
        return;
    }
    mix_engine_stop(engine, NULL, 0);
    if (engine->slots != NULL) {
        for (uint32_t i = 0; i < engine->config.capacity; i++) {
            if (atomic_load_explicit(&engine->slots[i].state, memory_order_acquire) != SLOT_FREE) {
                mix_region_close(engine->slots[i].region);
            }
        }
    }
    free(engine->slots);
    free(engine->out);
    free(engine->input);
    free(engine->taken);
    free(engine->handled);
    free(engine->waiting);
    free(engine);
}

bool mix_engine_failed(const mix_engine *engine, char *error, size_t error_size)
{
    if (!atomic_load_explicit(&engine->failed, memory_order_acquire)) {
        return false;
    }
    mix_set_error(error, error_size, "%s", engine->failure);
    return true;
}

int32_t mix_engine_add(mix_engine *engine, mix_region *region)
{
    if (region == NULL || mix_region_frames(region) != engine->config.period_frames ||
        mix_region_channels(region) != engine->config.channels) {
        return -1;
    }
    for (uint32_t i = 0; i < engine->config.capacity; i++) {
        engine_slot *slot = &engine->slots[i];

        if (atomic_load_explicit(&slot->state, memory_order_acquire) == SLOT_FREE) {
            reset_slot(engine, slot, region);
            /* The region and the reset before the thread sees the slot in
             * use (seq_cst: a release, and in order with set's stores). */
            atomic_store_explicit(&slot->state, SLOT_ACTIVE, memory_order_seq_cst);
            return (int32_t)i;
        }
    }
    return -1;
}

static engine_slot *slot_at(const mix_engine *engine, int32_t slot)
{
    if (slot < 0 || (uint32_t)slot >= engine->config.capacity) {
        return NULL;
    }
    return &engine->slots[slot];
}

uint64_t mix_engine_set(mix_engine *engine, int32_t slot, bool mixed, float gain, bool wants_input)
{
    engine_slot *entry = slot_at(engine, slot);
    uint64_t cycle;

    if (entry != NULL && atomic_load_explicit(&entry->state, memory_order_acquire) == SLOT_ACTIVE) {
        atomic_store_explicit(&entry->mix, pack_mix(mixed, gain, wants_input), memory_order_seq_cst);
    }
    /* After the store: the thread publishes a cycle before it reads the
     * state, so every cycle after the one seen here reads the new state. */
    cycle = atomic_load_explicit(&engine->cycle, memory_order_seq_cst);
    return cycle == NO_CYCLE ? 0 : cycle + 1;
}

void mix_engine_remove(mix_engine *engine, int32_t slot)
{
    engine_slot *entry = slot_at(engine, slot);

    if (entry == NULL || atomic_load_explicit(&entry->state, memory_order_acquire) != SLOT_ACTIVE) {
        return;
    }
    atomic_store_explicit(&entry->state, thread_live(engine) ? SLOT_RETIRING : SLOT_RETIRED, memory_order_seq_cst);
}

size_t mix_engine_reap(mix_engine *engine)
{
    /* A thread that ended (stopped, or done with its cycles) will not mark
     * retiring slots: they are retired. */
    bool live = thread_live(engine);
    size_t reaped = 0;

    for (uint32_t i = 0; i < engine->config.capacity; i++) {
        engine_slot *slot = &engine->slots[i];
        uint32_t state = atomic_load_explicit(&slot->state, memory_order_acquire);

        if (state == SLOT_RETIRED || (state == SLOT_RETIRING && !live)) {
            mix_region_close(slot->region);
            slot->region = NULL;
            atomic_store_explicit(&slot->state, SLOT_FREE, memory_order_release);
            reaped++;
        }
    }
    return reaped;
}

bool mix_engine_session_meter(const mix_engine *engine, int32_t slot, mix_session_meter *out)
{
    const engine_slot *entry = slot_at(engine, slot);

    if (entry == NULL || atomic_load_explicit(&entry->state, memory_order_acquire) == SLOT_FREE) {
        return false;
    }
    seqlock_read(&entry->meter, out, sizeof *out);
    return true;
}

void mix_engine_output_meter(const mix_engine *engine, mix_output_meter *out)
{
    seqlock_read(&engine->output, out, sizeof *out);
}
