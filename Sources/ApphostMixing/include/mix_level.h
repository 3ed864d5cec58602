/*
 * How loud a buffer is: its peak and RMS, in linear amplitude (full scale is
 * 1.0) and in dBFS, and the same over a span of periods, so that `ctl audio`
 * can show a session's level over the last second rather than over one
 * 10 ms period.
 *
 * dBFS is 20 log10 of the linear value, as sox's `stats` gives it: a full
 * scale sine has a peak of 0 dBFS and an RMS of -3.01 dBFS (not the AES17
 * convention, which adds 3 dB to RMS). Silence, and anything quieter than
 * MIX_LEVEL_FLOOR_DBFS, reads as MIX_LEVEL_FLOOR_DBFS rather than -inf, so
 * that every level is a finite number JSON can carry.
 *
 * Levels are over all channels at once (every sample of the interleaved
 * buffer), as sox's "Overall" column.
 */
#ifndef MIX_LEVEL_H
#define MIX_LEVEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The level silence reads as: below 16-bit audio's noise floor (-96 dBFS)
 * and anything anyone could hear, yet finite. */
#define MIX_LEVEL_FLOOR_DBFS (-120.0)

/* A measured stretch of samples. Sums rather than the RMS itself, so that
 * stretches add up exactly (mix_level_add). */
typedef struct mix_level {
    /* The largest magnitude, 0 to 1 for a clipped mix (a guest's own buffer
     * may go past 1; NaNs are not counted). */
    float peak;
    /* The sum of the squares of the samples, in double: a second of 48 kHz
     * stereo is 96,000 of them, too many for a float's 24 bits. */
    double sum_of_squares;
    uint64_t samples;
} mix_level;

/* The level of `samples` samples at `buffer` (owned by the caller). A NULL
 * buffer is that many samples of silence. Real-time safe; any thread. */
mix_level mix_level_measure(const float *buffer, size_t samples);

/* Adds the stretch `more` to `total`, as if measured together. */
void mix_level_add(mix_level *total, mix_level more);

/* The RMS in linear amplitude; 0 for no samples. */
double mix_level_rms(mix_level level);

/* 20 log10(linear), and MIX_LEVEL_FLOOR_DBFS for anything at or below the
 * floor (0 and negative values included). */
double mix_level_dbfs(double linear);

static inline double mix_level_peak_dbfs(mix_level level) { return mix_level_dbfs(level.peak); }
static inline double mix_level_rms_dbfs(mix_level level) { return mix_level_dbfs(mix_level_rms(level)); }

/*
 * A level over spans of `span_samples` samples (a second's worth, say): the
 * periods measured add up in `current`; once it holds a whole span, it
 * becomes `last` and `current` starts again. `last` is what a reader shows:
 * always a whole span, never the half-measured one. A period is not split:
 * a span closes at the first period that reaches its length.
 *
 * One thread at a time (the mixer's): the host gives readers a copy by its
 * own means.
 */
typedef struct mix_level_window {
    uint64_t span_samples;
    mix_level current;
    mix_level last;
    /* How many spans closed: 0 while `last` is still empty. */
    uint64_t spans;
} mix_level_window;

/* An empty window; `span_samples` at least 1. */
void mix_level_window_init(mix_level_window *window, uint64_t span_samples);

/* Adds one period's level. Real-time safe. */
void mix_level_window_add(mix_level_window *window, mix_level period);

#ifdef __cplusplus
}
#endif

#endif
