/*
 * Where the host's captured input comes from (`--audio-input`): the one
 * interface record sessions' input is read through, whatever the source
 * (silence, a tone, a WAV file, an ALSA device), as mix_sink.h is for what
 * the mixer writes. Each source's opening function gives a mix_source; the
 * mixer then only reads, a period at a time, and at the end closes.
 *
 * A source never runs dry: every read fills all the frames asked for, with
 * silence where there is nothing to give (a device behind the host's
 * clock), so that a record session always receives whole periods.
 */
#ifndef MIX_SOURCE_H
#define MIX_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mix_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room for a source's one-line error text, NUL included. */
enum { MIX_SOURCE_ERROR_BYTES = 512 };

typedef struct mix_source mix_source;

/* What a source does; each source kind has one static table of these. */
typedef struct mix_source_kind {
    /* Fills all `frames` frames; false when it could not, with
     * source->error set (what it filled then does not matter). Never
     * called again after it failed. */
    bool (*read)(mix_source *source, float *samples, uint32_t frames);
    /* Releases all the source holds but its own memory; false, with
     * source->error set, when that failed. Called once, by
     * mix_source_close, even after a failure. */
    bool (*finish)(mix_source *source);
} mix_source_kind;

/* The part every source shares; a source's own struct starts with it, and
 * is one malloc'd block (mix_source_close frees it with free). */
struct mix_source {
    const mix_source_kind *kind;
    uint32_t sample_rate;
    uint32_t channels;
    /* Frames the source gave so far. */
    uint64_t frames_read;
    /* Set at the first failure; later reads fail at once with this text. */
    bool failed;
    /* One line, no newline, saying what failed: empty until then. */
    char error[MIX_SOURCE_ERROR_BYTES];
};

/*
 * Fills `samples` (owned by the caller, room for frames * source->channels)
 * with exactly `frames` interleaved frames of source->channels samples.
 * False when the source failed, now or before: then `samples` holds
 * silence, and mix_source_error says why. Real-time safe but for an ALSA
 * source's read from its device (mix_alsa_source.h). The thread that reads
 * (the mixer's): one at a time.
 */
bool mix_source_read(mix_source *source, float *samples, uint32_t frames);

/* The source's one-line error text; "" while it has not failed. */
const char *mix_source_error(const mix_source *source);

/*
 * Finishes the source (closes its device) and frees it, whatever happens;
 * NULL is fine. False when finishing failed or the source had failed
 * before: then, when `error` is not NULL and `error_size` not 0, `error`
 * holds why (NUL-terminated, cut to fit). Not real-time safe: may block and
 * frees. Any thread, once the reading thread is done with the source.
 */
bool mix_source_close(mix_source *source, char *error, size_t error_size);

/* For sources: sets source->failed and source->error from a printf format;
 * a later failure keeps the first text. Not real-time safe (vsnprintf):
 * for the failure path only, which ends the source. */
void mix_source_fail(mix_source *source, const char *format, ...) MIX_PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

#endif
