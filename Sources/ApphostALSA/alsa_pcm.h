/*
 * What the ALSA sink and source share: a device opened and set up the one
 * way both use it, and closed without waiting for it. Apart so that the two
 * cannot drift in how they ask for a device (non-blocking, interleaved
 * float32, a buffer of ALSA_BUFFER_PERIODS periods) or in what an
 * operator's bad --audio-output or --audio-input reads like.
 */
#ifndef ALSA_PCM_H
#define ALSA_PCM_H

#include <alsa/asoundlib.h>
#include <stddef.h>
#include <stdint.h>

enum {
    /* Periods the device's buffer holds: room for the host's wakes (the
     * sink's writes, the source's reads) to come late by up to 3 periods
     * before the device underruns or overruns, for 4 periods of latency
     * (40 ms at the default 10 ms period). */
    ALSA_BUFFER_PERIODS = 4
};

/*
 * Opens `device` for `stream` (SND_PCM_STREAM_PLAYBACK or _CAPTURE),
 * non-blocking, for `channels` interleaved float32 channels at
 * `sample_rate` frames a second with a buffer of ALSA_BUFFER_PERIODS
 * periods of `period_frames`, alsa-lib's own error lines silenced
 * (alsa_quiet.h). NULL when the device cannot be opened or set up: then
 * `error` (mix_error.h) holds one line such as "alsa:nope: cannot open for
 * playback: No such file or directory". Not real-time safe.
 */
snd_pcm_t *alsa_pcm_open(const char *device, snd_pcm_stream_t stream, uint32_t sample_rate, uint32_t channels,
    uint32_t period_frames, char *error, size_t error_size);

/*
 * The sink's or source's own struct: `size` bytes, zeroed, with a copy of
 * `device` in its flexible `char device[]` at `device_offset` (the struct
 * is allocated with room for it) and the device, opened by alsa_pcm_open,
 * in its `snd_pcm_t *` at `pcm_offset`. NULL, with `error` set, when memory
 * runs out ("alsa:nope: out of memory") or alsa_pcm_open fails. Free it
 * with free once alsa_pcm_close closed the device.
 */
void *alsa_pcm_new(size_t size, size_t pcm_offset, size_t device_offset, const char *device, snd_pcm_stream_t stream,
    uint32_t sample_rate, uint32_t channels, uint32_t period_frames, char *error, size_t error_size);

/*
 * Drops what the device holds rather than play it out or read it (that
 * would go on after the host decided to stop, and block while it does),
 * closes it and sets *pcm to NULL: 0, or alsa-lib's negative error from
 * closing. Not real-time safe.
 */
int alsa_pcm_close(snd_pcm_t **pcm);

#endif
