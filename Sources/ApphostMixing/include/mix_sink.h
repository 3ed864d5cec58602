/*
 * Where the mixed periods go: the one interface the mixer writes through,
 * whatever the sink (a WAV file, nothing, an ALSA device). Each sink's
 * opening function gives a mix_sink; the mixer then only writes and, at the
 * end, closes.
 */
#ifndef MIX_SINK_H
#define MIX_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mix_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room for a sink's one-line error text, NUL included. */
enum { MIX_SINK_ERROR_BYTES = 512 };

typedef struct mix_sink mix_sink;

/* What a sink does; each sink kind has one static table of these. */
typedef struct mix_sink_kind {
    /* Takes `frames` frames; false when they could not all be written, with
     * sink->error set. Never called again after it failed. */
    bool (*write)(mix_sink *sink, const float *samples, uint32_t frames);
    /* Finishes what the sink writes (a file's last sizes) and releases all
     * it holds but the sink's own memory; false, with sink->error set, when
     * finishing failed. Called once, by mix_sink_close, even after a
     * failure. */
    bool (*finish)(mix_sink *sink);
} mix_sink_kind;

/* The part every sink shares; a sink's own struct starts with it, and is one
 * malloc'd block (mix_sink_close frees it with free). */
struct mix_sink {
    const mix_sink_kind *kind;
    uint32_t sample_rate;
    uint32_t channels;
    /* Frames the sink took so far. */
    uint64_t frames_written;
    /* Set at the first failure; later writes fail at once with this text. */
    bool failed;
    /* One line, no newline, saying what failed: empty until then. */
    char error[MIX_SINK_ERROR_BYTES];
};

/*
 * Writes `frames` interleaved frames of sink->channels samples from
 * `samples` (owned by the caller, read before this returns). False when the
 * sink failed, now or before: mix_sink_error says why. Real-time safe but
 * for the sink's own write (a file's write(2), which may block on the disk).
 * The thread that writes (the mixer's): one at a time.
 */
bool mix_sink_write(mix_sink *sink, const float *samples, uint32_t frames);

/* The sink's one-line error text; "" while it has not failed. */
const char *mix_sink_error(const mix_sink *sink);

/*
 * Finishes the sink (a WAV file's sizes) and frees it, whatever happens;
 * NULL is fine. False when finishing failed or the sink had failed before:
 * then, when `error` is not NULL and `error_size` not 0, `error` holds why
 * (NUL-terminated, cut to fit). Not real-time safe: may block and frees.
 * Any thread, once the writing thread is done with the sink.
 */
bool mix_sink_close(mix_sink *sink, char *error, size_t error_size);

/* For sinks: sets sink->failed and sink->error from a printf format; a
 * later failure keeps the first text. Not real-time safe (vsnprintf): for
 * the failure path only, which ends the sink. */
void mix_sink_fail(mix_sink *sink, const char *format, ...) MIX_PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

#endif
