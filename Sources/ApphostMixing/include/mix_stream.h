/*
 * Where the mixed periods go and where the host's captured input comes from
 * (`--audio-output`, `--audio-input`): the one interface the mixer writes
 * through and record sessions' input is read through, whatever the sink (a
 * WAV file, nothing, an ALSA device) or the source (silence, a tone, a WAV
 * file, an ALSA device). A sink and a source are the same thing going the
 * other way, a stream: one kind table of the same shape, one record of the
 * format, the frames so far and the first failure. Each opening function
 * gives a mix_sink or a mix_source; the mixer then only writes or reads, a
 * period at a time, and at the end closes.
 *
 * A source never runs dry: every read fills all the frames asked for, with
 * silence where there is nothing to give (a device behind the host's
 * clock), so that a record session always receives whole periods.
 */
#ifndef MIX_STREAM_H
#define MIX_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mix_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room for a stream's one-line error text, NUL included. */
enum { MIX_STREAM_ERROR_BYTES = 512 };

typedef struct mix_stream mix_stream;

/* What a sink or a source does; each kind has one static table of these.
 * None is called again after one failed. */
typedef struct mix_stream_kind {
    /* A sink's: takes `frames` frames; false when they could not all be
     * written, with the error set. NULL for a source. */
    bool (*write)(mix_stream *stream, const float *samples, uint32_t frames);
    /* A source's: fills all `frames` frames; false when it could not, with
     * the error set (what it filled then does not matter). NULL for a
     * sink. */
    bool (*read)(mix_stream *stream, float *samples, uint32_t frames);
    /* Finishes what the stream writes (a file's last sizes) and releases
     * all it holds but its own memory; false, with the error set, when
     * that failed. Called once, by the close, even after a failure; NULL
     * when there is nothing to finish. */
    bool (*finish)(mix_stream *stream);
} mix_stream_kind;

/* The part every sink and source shares; a sink's or source's own struct
 * starts with it, and is one block from mix_stream_new (the close frees
 * it with free). */
struct mix_stream {
    const mix_stream_kind *kind;
    uint32_t sample_rate;
    uint32_t channels;
    /* Frames the sink took, or the source gave, so far. */
    uint64_t frames;
    /* Set at the first failure; later writes or reads fail at once with
     * this text. */
    bool failed;
    /* One line, no newline, saying what failed: empty until then. */
    char error[MIX_STREAM_ERROR_BYTES];
};

/* A sink and a source: a stream each, apart so that neither is taken for
 * the other. */
typedef struct mix_sink {
    mix_stream stream;
} mix_sink;

typedef struct mix_source {
    mix_stream stream;
} mix_source;

/*
 * Writes `frames` interleaved frames of sink->stream.channels samples from
 * `samples` (owned by the caller, read before this returns). False when the
 * sink failed, now or before: mix_sink_error says why. Real-time safe but
 * for the sink's own write (a file's write(2), which may block on the disk).
 * The thread that writes (the mixer's): one at a time.
 */
bool mix_sink_write(mix_sink *sink, const float *samples, uint32_t frames);

/*
 * Fills `samples` (owned by the caller, room for frames * channels) with
 * exactly `frames` interleaved frames of source->stream.channels samples.
 * False when the source failed, now or before: then `samples` holds
 * silence, and mix_source_error says why. Real-time safe but for an ALSA
 * source's read from its device (mix_alsa_source.h). The thread that reads
 * (the mixer's): one at a time.
 */
bool mix_source_read(mix_source *source, float *samples, uint32_t frames);

/* The one-line error text; "" while it has not failed. */
const char *mix_sink_error(const mix_sink *sink);
const char *mix_source_error(const mix_source *source);

/*
 * Finishes the sink or source (a WAV file's sizes, a device closed) and
 * frees it, whatever happens; NULL is fine. False when finishing failed or
 * it had failed before: then, when `error` is not NULL and `error_size` not
 * 0, `error` holds why (NUL-terminated, cut to fit). Not real-time safe:
 * may block and frees. Any thread, once the writing or reading thread is
 * done with it.
 */
bool mix_sink_close(mix_sink *sink, char *error, size_t error_size);
bool mix_source_close(mix_source *source, char *error, size_t error_size);

/* For opening functions: a zeroed block of `size` bytes (at least a
 * mix_stream's) that starts with a stream of `kind` and this format; NULL
 * when memory runs out. */
void *mix_stream_new(size_t size, const mix_stream_kind *kind, uint32_t sample_rate, uint32_t channels);

/* For kinds: sets stream->failed and stream->error from a printf format; a
 * later failure keeps the first text. Not real-time safe (vsnprintf): for
 * the failure path only, which ends the stream. */
void mix_stream_fail(mix_stream *stream, const char *format, ...) MIX_PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

#endif
