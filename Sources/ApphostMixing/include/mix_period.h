/* Mixing one period: the sum of every session's samples times its gain. */
#ifndef MIX_PERIOD_H
#define MIX_PERIOD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Writes into `out` (frames * channels interleaved samples, owned by the
 * caller) the sum of the `count` sources, each times gains[i], clipped to
 * [-1, 1]. sources[i] holds frames * channels samples like `out`; a NULL
 * source is silence (a session that was not ready this period), as is a
 * gain of 0 (muted or inactive: its samples are not even read). A sample
 * that is not a number (a guest's NaN in shared memory) counts as clipped
 * and becomes 0, so that one guest's garbage cannot poison the whole mix.
 * `out` must not overlap a source. With `count` 0, `out` is silence.
 *
 * Returns how many samples of `out` were clipped (or were NaN).
 *
 * Real-time safe; any thread, reentrant: it touches only its arguments.
 */
uint32_t mix_period(float *out, const float *const *sources, const float *gains, size_t count, uint32_t frames,
    uint32_t channels);

/*
 * The largest magnitude a guest's sample may have: +24 dBFS. A float
 * sample past full scale (1.0) is legitimate, and is clipped in the mix
 * like any loud sound; one 16 times past it is not a signal but garbage
 * (uninitialised memory, a filter that blew up), as are NaN and the
 * infinities (CONTRACT X7; docs/decisions.md, "Samples that are not
 * numbers").
 */
#define MIX_SAMPLE_LIMIT 16.0f

/*
 * Copies a guest's period of `samples` samples from `in` (its shared
 * memory) into `out` (the mixer's own), and returns how many of them were
 * bad: not finite, or beyond MIX_SAMPLE_LIMIT in magnitude. A period with
 * any bad sample is silence in `out`, all of it: the guest's own silence
 * (X7), never a NaN, an infinity or a pinned output in the mix of the
 * others. What is checked is the copy, so a guest that writes while the
 * mixer reads cannot slip a bad sample past the check.
 *
 * Real-time safe; any thread, reentrant; a constant cost per sample.
 */
uint32_t mix_sanitize(float *out, const float *in, size_t samples);

/* mix_period's two steps, for a mixer that takes its sources one by one:
 * adds `in` times `gain` into `out`, and clips `out` to [-1, 1] (a NaN
 * becomes 0), returning how many samples it clipped. */
void mix_period_add(float *out, const float *in, float gain, size_t samples);
uint32_t mix_period_clip(float *out, size_t samples);

#ifdef __cplusplus
}
#endif

#endif
