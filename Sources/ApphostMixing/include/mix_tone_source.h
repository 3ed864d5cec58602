/*
 * The tone source (`--audio-input tone:HZ`): a sine of a given frequency and
 * amplitude, the same sample on every channel, as a known input for tests
 * and demos of record sessions (its level and pitch are what the math
 * says, so what a session records can be checked).
 *
 * The CLI plays it at amplitude 0.5, a peak of -6 dBFS (an RMS of
 * -9 dBFS): loud enough to measure far above any noise, with headroom left
 * for a session that adds gain.
 *
 * The sine is phase-continuous across reads of any sizes: its phase is
 * kept in double, in cycles, and wrapped into [0, 1) at each sample, so it
 * neither jumps between periods nor loses precision over hours.
 */
#ifndef MIX_TONE_SOURCE_H
#define MIX_TONE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "mix_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The amplitude `--audio-input tone:HZ` plays at: -6 dBFS peak. */
#define MIX_TONE_DEFAULT_AMPLITUDE 0.5

/*
 * A sine of `frequency_hz` at `amplitude` (linear, full scale 1), starting
 * at phase 0, for `channels` channels at `sample_rate` (each at least 1).
 * NULL when the frequency is not above 0 and below half the rate (the
 * highest a rate carries), the amplitude is outside [0, 1], or memory runs
 * out: then, when `error` is not NULL and `error_size` not 0, `error` holds
 * one line saying why, such as "tone:30000: the frequency must be above 0
 * and below 24000 Hz, half the rate" (cut to fit).
 *
 * Reads are real-time safe (sin(3) per frame, nothing else). Not
 * real-time safe to open (allocates). Any thread.
 */
mix_source *mix_tone_source_open(uint32_t sample_rate, uint32_t channels, double frequency_hz, double amplitude,
    char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
