/*
 * The ALSA source (`--audio-input alsa:DEVICE`): the host's captured input
 * from an ALSA PCM device, such as `default`, `plughw:0,0` or alsa-lib's
 * `null` (which captures silence).
 *
 * The device is opened for capture as interleaved FLOAT_LE at the host's
 * rate and channel count, with a buffer of about 4 periods; as for the
 * sink (mix_alsa_sink.h), `plug` devices convert and a `hw:` device that
 * does not give float samples needs `plughw:`. Capture starts at the first
 * read.
 *
 * As the sink does, the source follows the host's clock, not the device's:
 * the PCM is non-blocking and a read never waits. So the clocks drift
 * apart and the source absorbs the difference:
 *
 *   - a read that finds fewer frames than asked (the device is behind the
 *     host) gives what there is and fills the rest with silence, and
 *     counts it (underruns);
 *   - a device whose buffer filled because the host read too slowly
 *     overruns (-EPIPE): it is recovered (prepared and started again, what
 *     it held is lost) and counted (overruns).
 *
 * Any other error fails the source with one line.
 */
#ifndef MIX_ALSA_SOURCE_H
#define MIX_ALSA_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "mix_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Opens `device` (an ALSA PCM name) for capture of `channels` channels at
 * `sample_rate` frames a second, in periods of `period_frames` frames (each
 * at least 1), with a buffer of about 4 periods.
 *
 * Returns the source, to read with mix_source_read and close with
 * mix_source_close, which drops what the device still holds and closes it.
 * NULL when the device cannot be opened or set up, or memory runs out:
 * then, when `error` is not NULL and `error_size` not 0, `error` holds one
 * line saying why, such as "alsa:nope: cannot open for capture: No such
 * file or directory" (cut to fit). alsa-lib's own error lines are
 * silenced (alsa_quiet.h).
 *
 * Reads are real-time safe but for the device's own calls: alsa-lib
 * allocates nothing there and never waits (the device is non-blocking),
 * but makes system calls into the driver and takes its own per-device
 * lock, which only the one reading thread uses.
 *
 * Not real-time safe (opens, allocates): open before the mixer starts. Any
 * thread.
 */
mix_source *mix_alsa_source_open(const char *device, uint32_t sample_rate, uint32_t channels,
    uint32_t period_frames, char *error, size_t error_size);

/* Reads the source filled in part or whole with silence so far. Only for a
 * source from mix_alsa_source_open. The reading thread, or any thread once
 * reading has stopped (the count is a plain integer, not an atomic).
 * Real-time safe. */
uint64_t mix_alsa_source_underruns(const mix_source *source);

/* Overruns the source recovered from so far. Same rules as
 * mix_alsa_source_underruns. */
uint64_t mix_alsa_source_overruns(const mix_source *source);

#ifdef __cplusplus
}
#endif

#endif
