/*
 * The period clock of the mixer: when each period is due.
 *
 * MIX_CLOCK_REAL: period k is due at start + k * frames / rate seconds on
 * CLOCK_MONOTONIC, an absolute deadline computed from the start (not from
 * the last wake), so that wakes that come late do not add up into drift and
 * rates such as 44.1 kHz, whose periods are not whole nanoseconds, keep
 * time. The pacer sleeps with clock_nanosleep(TIMER_ABSTIME) and says how
 * late each wake was. A mixer that overran (it came back to wait after the
 * next deadline had passed as well) has missed periods: the pacer counts
 * them and skips them, rather than hurry through a burst of periods to
 * catch up, which is what a sound card would have done too (it played
 * silence meanwhile); the mixer counts them as its own overruns.
 *
 * MIX_CLOCK_FREE (`--audio-clock free`): no sleep at all. Periods follow
 * one another as fast as the mixer goes, none is ever late or missed: for
 * deterministic offline renders (a WAV file) in tests and CI, faster than
 * real time.
 *
 * One thread uses a pacer (the mixer's); the struct is the caller's.
 */
#ifndef MIX_PACER_H
#define MIX_PACER_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mix_clock {
    MIX_CLOCK_REAL = 0,
    MIX_CLOCK_FREE = 1
} mix_clock;

/* One period the pacer let go. */
typedef struct mix_tick {
    /* The period now due, counting from 0; after missed periods, the
     * first one whose deadline has not passed a whole period ago. */
    uint64_t period;
    /* Nanoseconds between the deadline of the period waited for and the
     * wake (0 in free mode; for a missed period, more than a period). */
    uint64_t late_ns;
    /* Periods skipped since the last tick because they were over before
     * the mixer came back to wait: 0 when it kept up. */
    uint64_t missed;
} mix_tick;

typedef struct mix_pacer {
    mix_clock clock;
    uint32_t sample_rate;
    uint32_t period_frames;
    /* CLOCK_MONOTONIC at mix_pacer_start, in nanoseconds. */
    uint64_t start_ns;
    /* The period the next mix_pacer_wait lets go (at the earliest). */
    uint64_t next_period;
    /* Since the start: ticks given, periods missed, the latest wake and the
     * sum of lateness (for an average). */
    uint64_t ticks;
    uint64_t missed;
    uint64_t late_max_ns;
    uint64_t late_total_ns;
} mix_pacer;

/* A pacer of periods of `period_frames` frames at `sample_rate` (each at
 * least 1), not started. */
void mix_pacer_init(mix_pacer *pacer, mix_clock clock, uint32_t sample_rate, uint32_t period_frames);

/* Starts the clock now: period 0 is due at once. Resets the counts. */
void mix_pacer_start(mix_pacer *pacer);

/*
 * Waits until the next period is due (real mode; free mode returns at once)
 * and describes it in *tick. Real-time safe: clock_gettime (the vDSO) and
 * clock_nanosleep, which it resumes when a signal interrupts it.
 */
void mix_pacer_wait(mix_pacer *pacer, mix_tick *tick);

/* Nanoseconds from the start to the start of `period`, as the pacer counts
 * them (exact to the nanosecond, without overflow for centuries). */
uint64_t mix_pacer_period_start_ns(const mix_pacer *pacer, uint64_t period);

#ifdef __cplusplus
}
#endif

#endif
