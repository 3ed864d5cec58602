/*
 * The ALSA sink (`--audio-output alsa:DEVICE`): the mix played on an ALSA
 * PCM device, such as `default`, `plughw:0,0` or alsa-lib's `null`.
 *
 * The device is opened for playback as interleaved FLOAT_LE at the host's
 * rate and channel count, with a buffer of about 4 periods. Through `plug`
 * devices (`default`, `plughw:`) alsa-lib converts the format, the rate and
 * the channels to what the card takes; a `hw:` device is the card as it is,
 * and one that does not take float samples refuses to open: name it
 * `plughw:` instead.
 *
 * The host's own monotonic clock paces the mixer (mix_pacer.h), not the
 * device: the PCM is non-blocking and a write never waits. A sink that
 * blocked until the card had room would stall the mixer, and every guest
 * waiting on it, whenever the card hiccups; and some devices do not pace at
 * all (`alsa:null` takes everything at once). So the two clocks drift apart
 * and the sink absorbs the difference:
 *
 *   - a device that runs slower than the host's clock fills up: a period it
 *     has no room for is dropped whole, and counted (overflows);
 *   - a device that runs faster drains and underruns (-EPIPE): it is
 *     recovered (prepared again, so it restarts once its buffer fills) and
 *     counted (underruns), and the period is written after it.
 *
 * Any other error fails the sink with one line, as every sink does.
 * The stream's frames count every frame the sink took, dropped
 * periods included.
 */
#ifndef MIX_ALSA_SINK_H
#define MIX_ALSA_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "mix_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Opens `device` (an ALSA PCM name) for playback of `channels` channels at
 * `sample_rate` frames a second, in periods of `period_frames` frames (each
 * at least 1), with a buffer of about 4 periods.
 *
 * Returns the sink, to write with mix_sink_write (one period a write) and
 * close with mix_sink_close, which drops what the device has not played
 * yet, rather than wait for it, and closes the device. NULL when the device
 * cannot be opened or set up, or memory runs out: then, when `error` is not
 * NULL and `error_size` not 0, `error` holds one line saying why, such as
 * "alsa:nope: cannot open for playback: No such file or directory" (cut to
 * fit). alsa-lib's own error lines are silenced (alsa_quiet.h).
 *
 * Writes are real-time safe but for the device's own calls: alsa-lib
 * allocates nothing there and never waits (the device is non-blocking), but
 * makes system calls into the driver and takes its own per-device lock,
 * which only the one writing thread uses.
 *
 * Not real-time safe (opens, allocates): open before the mixer starts. Any
 * thread.
 */
mix_sink *mix_alsa_sink_open(const char *device, uint32_t sample_rate, uint32_t channels, uint32_t period_frames,
    char *error, size_t error_size);

/* Underruns the sink recovered from so far. Only for a sink from
 * mix_alsa_sink_open. The writing thread, or any thread once writing has
 * stopped (the count is a plain integer, not an atomic). Real-time safe. */
uint64_t mix_alsa_sink_underruns(const mix_sink *sink);

/* Periods the sink dropped so far because the device had no room for them.
 * Same rules as mix_alsa_sink_underruns. */
uint64_t mix_alsa_sink_overflows(const mix_sink *sink);

#ifdef __cplusplus
}
#endif

#endif
