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

#ifdef __cplusplus
}
#endif

#endif
