#define _POSIX_C_SOURCE 200809L /* clock_gettime, clock_nanosleep, TIMER_ABSTIME */

#include "mix_pacer.h"

#include <errno.h>
#include <time.h>

enum { NANOSECONDS_PER_SECOND = 1000000000 };

static uint64_t now_ns(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * NANOSECONDS_PER_SECOND + (uint64_t)now.tv_nsec;
}

void mix_pacer_init(mix_pacer *pacer, mix_clock clock, uint32_t sample_rate, uint32_t period_frames)
{
    pacer->clock = clock;
    pacer->sample_rate = sample_rate == 0 ? 1 : sample_rate;
    pacer->period_frames = period_frames == 0 ? 1 : period_frames;
    pacer->start_ns = 0;
    pacer->next_period = 0;
    pacer->ticks = 0;
    pacer->missed = 0;
    pacer->late_max_ns = 0;
    pacer->late_total_ns = 0;
}

void mix_pacer_start(mix_pacer *pacer)
{
    pacer->start_ns = pacer->clock == MIX_CLOCK_REAL ? now_ns() : 0;
    pacer->next_period = 0;
    pacer->ticks = 0;
    pacer->missed = 0;
    pacer->late_max_ns = 0;
    pacer->late_total_ns = 0;
}

uint64_t mix_pacer_period_start_ns(const mix_pacer *pacer, uint64_t period)
{
    /* Whole seconds and the frames left apart: frames * 1e9 would overflow
     * 64 bits after 4.4 days at 48 kHz; this way only after centuries. */
    uint64_t frames = period * pacer->period_frames;
    uint64_t seconds = frames / pacer->sample_rate;
    uint64_t rest = frames % pacer->sample_rate;

    return seconds * NANOSECONDS_PER_SECOND + rest * NANOSECONDS_PER_SECOND / pacer->sample_rate;
}

/* The period under way `elapsed_ns` after the start: the last one that
 * started at or before it. Computed, not counted up to, so that a mixer
 * frozen for an hour does not loop through 360,000 periods. */
static uint64_t period_at(const mix_pacer *pacer, uint64_t elapsed_ns)
{
    uint64_t seconds = elapsed_ns / NANOSECONDS_PER_SECOND;
    uint64_t rest = elapsed_ns % NANOSECONDS_PER_SECOND;
    uint64_t frames = seconds * pacer->sample_rate + rest * pacer->sample_rate / NANOSECONDS_PER_SECOND;
    uint64_t period = frames / pacer->period_frames;

    /* The divisions round down on both sides: settle the last nanosecond. */
    while (mix_pacer_period_start_ns(pacer, period + 1) <= elapsed_ns) {
        period++;
    }
    while (period > 0 && mix_pacer_period_start_ns(pacer, period) > elapsed_ns) {
        period--;
    }
    return period;
}

static void sleep_until(uint64_t deadline_ns)
{
    struct timespec deadline;

    deadline.tv_sec = (time_t)(deadline_ns / NANOSECONDS_PER_SECOND);
    deadline.tv_nsec = (long)(deadline_ns % NANOSECONDS_PER_SECOND);
    /* An absolute deadline: resuming after a signal sleeps no longer. */
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR) {
    }
}

void mix_pacer_wait(mix_pacer *pacer, mix_tick *tick)
{
    uint64_t period = pacer->next_period;
    uint64_t deadline;
    uint64_t now;
    uint64_t late;
    uint64_t missed = 0;

    if (pacer->clock == MIX_CLOCK_FREE) {
        tick->period = period;
        tick->late_ns = 0;
        tick->missed = 0;
        pacer->next_period = period + 1;
        pacer->ticks++;
        return;
    }
    deadline = pacer->start_ns + mix_pacer_period_start_ns(pacer, period);
    now = now_ns();
    if (now < deadline) {
        sleep_until(deadline);
        now = now_ns();
    }
    late = now > deadline ? now - deadline : 0;
    /* Periods whose successor is due already were over before we came:
     * let the one under way now go. */
    if (now >= pacer->start_ns + mix_pacer_period_start_ns(pacer, period + 1)) {
        uint64_t current = period_at(pacer, now - pacer->start_ns);

        missed = current - period;
        period = current;
    }
    tick->period = period;
    tick->late_ns = late;
    tick->missed = missed;
    pacer->next_period = period + 1;
    pacer->ticks++;
    pacer->missed += missed;
    pacer->late_total_ns += late;
    if (late > pacer->late_max_ns) {
        pacer->late_max_ns = late;
    }
}
