/*
 * The WAV source (`--audio-input wav:PATH`): a WAV file as the host's
 * captured input, for tests and demos of record sessions with a known
 * recording.
 *
 * The whole file is read, and converted to float32, when the source opens,
 * so that reads only copy from memory and never touch the disk on the
 * mixer's thread. Files of more than MIX_WAV_SOURCE_MAX_BYTES of samples
 * are refused (64 MiB: 5.8 minutes of 48 kHz stereo 32-bit, 11.6 minutes of
 * 16-bit), which bounds that memory.
 *
 * Formats: PCM of 16, 24 or 32 bits and IEEE float of 32 bits (format tag 1
 * or 3, or WAVE_FORMAT_EXTENSIBLE with either subformat), little-endian as
 * WAV is. The file's rate must be the host's: there is no resampling. A
 * mono file feeds every channel; a file of the host's channel count is
 * taken as it is; any other count is refused.
 *
 * At its end the file starts again: a long-lived host keeps recording for
 * as long as a session asks, so the source never runs out; the loop is a
 * hard cut, as a file made for looping expects.
 *
 * The chunks are walked as RIFF lays them out: unknown chunks (LIST, fact,
 * cue and the like) are skipped, odd sizes have their pad byte, and a chunk
 * that runs past the file's end (a truncated file) is refused with an error
 * rather than read past.
 */
#ifndef MIX_WAV_SOURCE_H
#define MIX_WAV_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "mix_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most bytes of samples (the data chunk's size) a WAV source takes. */
#define MIX_WAV_SOURCE_MAX_BYTES (64u * 1024u * 1024u)

/*
 * Reads the WAV file at `path` whole, for `channels` channels at
 * `sample_rate` (each at least 1). Returns the source, to read with
 * mix_source_read (real-time safe: a copy from memory) and close with
 * mix_source_close. NULL when the file cannot be read, is not a WAV file
 * in one of the formats above, is truncated, has another rate or channel
 * count, has no samples or too many, or memory runs out: then, when
 * `error` is not NULL and `error_size` not 0, `error` holds one line
 * saying why, such as "wav:/x/in.wav: the file is at 44100 Hz, not 48000
 * Hz (no resampling)" (cut to fit).
 *
 * Not real-time safe (reads the file, allocates): open before the mixer
 * starts. Any thread.
 */
mix_source *mix_wav_source_open(const char *path, uint32_t sample_rate, uint32_t channels, char *error,
    size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
