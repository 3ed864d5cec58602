/*
 * The WAV sink (`--audio-output wav:PATH`): the mix as a WAV file of 32-bit
 * IEEE float samples (WAVE_FORMAT_IEEE_FLOAT, with the fact chunk non-PCM
 * formats need).
 *
 * Why float and not 16-bit PCM: the mix is float32 already, so the file is
 * the mix bit for bit, with no conversion on the real-time thread and no
 * rounding or dither to account for when tests measure it (a level in the
 * file is the level the mixer made, to float precision); sox, ffmpeg,
 * Audacity and every DAW read it. It costs twice the bytes of 16-bit
 * (384 kB a second at 48 kHz stereo), which a test or a debugging render
 * does not mind. For any channel count the format tag is plain
 * IEEE_FLOAT, not WAVE_FORMAT_EXTENSIBLE: no speaker mask to invent, and
 * the readers above take it.
 *
 * A WAV file's sizes are in its header, which a writer killed mid-render
 * never finishes. So the header is rewritten every `header_every` writes
 * and at close: a host killed at any point leaves a valid file holding at
 * least every period up to its last header update (the periods after it lie
 * past the data chunk's stated end, where readers ignore them). A WAV's
 * sizes are 32-bit: the sink fails, with an error, rather than write past
 * 4 GiB (3.1 hours at 48 kHz stereo).
 *
 * Samples are written as the host holds them: this sink needs a
 * little-endian machine, as WAV is (it does not build elsewhere).
 */
#ifndef MIX_WAV_SINK_H
#define MIX_WAV_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "mix_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The header this sink writes: RIFF, fmt (18 bytes), fact and data chunks'
 * headers. Samples start at this offset. */
enum { MIX_WAV_HEADER_BYTES = 58 };

/*
 * Creates (or truncates) the file at `path` and writes its header, for
 * `channels` channels at `sample_rate` frames a second (each at least 1).
 * `header_every`: how many writes between header updates (0 reads as 1);
 * with one write per period, 10 means a killed host loses at most the last
 * 9 periods, for one pwrite(2) of 58 bytes every 10 periods.
 *
 * Returns the sink, to write with mix_sink_write and close with
 * mix_sink_close; each write is one write(2) of the frames (more only on a
 * short write). NULL when the file cannot be created or its header written
 * (a full disk included) or memory runs out: then, when `error` is not NULL
 * and `error_size` not 0, `error` holds one line saying why, such as
 * "wav:/x/out.wav: cannot create: Permission denied" (cut to fit).
 *
 * Not real-time safe (opens, allocates): open before the mixer starts. Any
 * thread.
 */
mix_sink *mix_wav_sink_open(const char *path, uint32_t sample_rate, uint32_t channels, uint32_t header_every,
    char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
