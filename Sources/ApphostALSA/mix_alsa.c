/*
 * The ALSA sink and source (mix_alsa_sink.h, mix_alsa_source.h): one ALSA
 * stream, opened, recovered and closed the one way, that a sink writes to
 * and a source reads from. One file so that the two cannot drift in how
 * they ask for a device (non-blocking, interleaved float32, a buffer of
 * BUFFER_PERIODS periods), in how they recover it, or in what an operator's
 * bad --audio-output or --audio-input reads like.
 */
#include "apphost_alsa.h"

#include "alsa_quiet.h"

#include <alsa/asoundlib.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum {
    /* Periods the device's buffer holds: room for the host's wakes (the
     * sink's writes, the source's reads) to come late by up to 3 periods
     * before the device underruns or overruns, for 4 periods of latency
     * (40 ms at the default 10 ms period). */
    BUFFER_PERIODS = 4
};

typedef struct alsa_stream {
    /* Its mix_sink's or mix_source's: both are the stream alone. */
    mix_stream base;
    snd_pcm_t *pcm;
    /* Underruns (playback) or overruns (capture) the device was brought
     * back from. */
    uint64_t recovered;
    /* Periods the device could not take or give whole: a sink's dropped
     * ones (overflows), a source's filled with silence (underruns). */
    uint64_t missed;
    /* For error texts, which name the device; NUL-terminated. */
    char device[];
} alsa_stream;

/* Fails the stream with "alsa:DEVICE: cannot DOING: WHY"; false. */
static bool fail(alsa_stream *alsa, const char *doing, long failure)
{
    mix_stream_fail(&alsa->base, "alsa:%s: cannot %s: %s", alsa->device, doing, snd_strerror((int)failure));
    return false;
}

/* Brings the device back from an xrun (-EPIPE) or a suspend (-ESTRPIPE)
 * and counts it; a capture device is started again (prepared after an
 * overrun; a resumed one runs). False, with the stream failed, for any other
 * error or when it cannot be recovered. */
static bool recover(alsa_stream *alsa, long failure, const char *doing)
{
    if (failure == -EPIPE || failure == -ESTRPIPE) {
        /* Silent: alsa-lib would print a line on stderr for each. */
        failure = snd_pcm_recover(alsa->pcm, (int)failure, 1);
        if (failure == 0) {
            alsa->recovered++;
            if (snd_pcm_stream(alsa->pcm) == SND_PCM_STREAM_CAPTURE &&
                snd_pcm_state(alsa->pcm) == SND_PCM_STATE_PREPARED) {
                failure = snd_pcm_start(alsa->pcm);
            }
        }
        if (failure == 0) {
            return true;
        }
    }
    return fail(alsa, doing, failure);
}

static bool alsa_write(mix_stream *stream, const float *samples, uint32_t frames)
{
    alsa_stream *alsa = (alsa_stream *)stream;
    snd_pcm_sframes_t room = snd_pcm_avail_update(alsa->pcm);
    snd_pcm_sframes_t written;

    if (room < 0) {
        if (!recover(alsa, room, "write")) {
            return false;
        }
        room = snd_pcm_avail_update(alsa->pcm);
    }
    if (room < 0) {
        return fail(alsa, "write", room);
    }
    /* A period is dropped whole rather than cut: a part of a period played
     * would be a click where the drop is only a gap. */
    if ((snd_pcm_uframes_t)room < frames) {
        alsa->missed++;
        return true;
    }
    written = snd_pcm_writei(alsa->pcm, samples, frames);
    if (written == -EPIPE || written == -ESTRPIPE) {
        if (!recover(alsa, written, "write")) {
            return false;
        }
        written = snd_pcm_writei(alsa->pcm, samples, frames);
    }
    if (written == -EAGAIN) {
        /* Room said there was room; a device that disagrees still only
         * costs the period. */
        alsa->missed++;
        return true;
    }
    if (written < 0) {
        return fail(alsa, "write", written);
    }
    if ((snd_pcm_uframes_t)written < frames) {
        /* The rest of the period did not fit: dropped, as above. */
        alsa->missed++;
    }
    return true;
}

static bool alsa_read(mix_stream *stream, float *samples, uint32_t frames)
{
    alsa_stream *alsa = (alsa_stream *)stream;
    uint32_t channels = stream->channels;
    uint32_t done = 0;
    /* One recovery a read: a device that overruns again at once is read
     * as having nothing, not retried without end. */
    bool recovered = false;

    if (snd_pcm_state(alsa->pcm) == SND_PCM_STATE_PREPARED) {
        int failure = snd_pcm_start(alsa->pcm);

        if (failure < 0) {
            return fail(alsa, "start capture", failure);
        }
    }
    /* Silence first, then what the device gives over it: alsa-lib's `null`
     * device says it read frames without writing any, which would leave
     * the caller's last period in place. One memset a period. */
    memset(samples, 0, (size_t)frames * channels * sizeof *samples);
    while (done < frames) {
        snd_pcm_sframes_t got = snd_pcm_readi(alsa->pcm, samples + (size_t)done * channels, frames - done);

        if (got == -EAGAIN || got == 0) {
            break;
        }
        if (got == -EPIPE || got == -ESTRPIPE) {
            if (recovered) {
                break;
            }
            if (!recover(alsa, got, "read")) {
                return false;
            }
            recovered = true;
            continue;
        }
        if (got < 0) {
            return fail(alsa, "read", got);
        }
        done += (uint32_t)got;
    }
    if (done < frames) {
        /* The rest is the silence above. */
        alsa->missed++;
    }
    return true;
}

/* Drops what the device holds rather than play it out or read it (that
 * would go on after the host decided to stop, and block while it does),
 * and closes it. */
static bool alsa_finish(mix_stream *stream)
{
    alsa_stream *alsa = (alsa_stream *)stream;
    int failure;

    snd_pcm_drop(alsa->pcm);
    failure = snd_pcm_close(alsa->pcm);
    alsa->pcm = NULL;
    return failure >= 0 || fail(alsa, "close", failure);
}

static const mix_stream_kind sink_kind = {.write = alsa_write, .finish = alsa_finish};
static const mix_stream_kind source_kind = {.read = alsa_read, .finish = alsa_finish};

/* Opens `device` for `direction`, non-blocking, for `channels` interleaved
 * float32 channels at `sample_rate` frames a second with a buffer of
 * BUFFER_PERIODS periods of `period_frames`, alsa-lib's own error lines
 * silenced (alsa_quiet.h). NULL, with `error` set (mix_error.h), when memory
 * runs out or the device cannot be opened or set up. */
static alsa_stream *open_stream(const char *device, snd_pcm_stream_t direction, uint32_t sample_rate,
    uint32_t channels, uint32_t period_frames, char *error, size_t error_size)
{
    bool playback = direction == SND_PCM_STREAM_PLAYBACK;
    size_t device_bytes = strlen(device) + 1;
    /* snd_pcm_set_params takes the buffer as a latency in microseconds, and
     * makes periods of a quarter of it. */
    uint64_t latency_us =
        (uint64_t)period_frames * BUFFER_PERIODS * 1000000u / (sample_rate == 0 ? 1 : sample_rate);
    alsa_stream *alsa;
    int failure;

    mix_clear_error(error, error_size);
    alsa = mix_stream_new(sizeof *alsa + device_bytes, playback ? &sink_kind : &source_kind, sample_rate, channels);
    if (alsa == NULL) {
        mix_set_error(error, error_size, "alsa:%s: out of memory", device);
        return NULL;
    }
    memcpy(alsa->device, device, device_bytes);
    alsa_quiet();
    failure = snd_pcm_open(&alsa->pcm, device, direction, SND_PCM_NONBLOCK);
    if (failure < 0) {
        mix_set_error(error, error_size, "alsa:%s: cannot open for %s: %s", device,
            playback ? "playback" : "capture", snd_strerror(failure));
        free(alsa);
        return NULL;
    }
    /* Resampling allowed: a plug device then converts a rate the card does
     * not take; a hw: device refuses it here. */
    failure = snd_pcm_set_params(alsa->pcm, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_ACCESS_RW_INTERLEAVED, channels,
        sample_rate, 1, latency_us > UINT32_MAX ? UINT32_MAX : (unsigned int)latency_us);
    if (failure < 0) {
        mix_set_error(error, error_size, "alsa:%s: cannot %s %u channels of float samples at %u Hz: %s", device,
            playback ? "play" : "capture", channels, sample_rate, snd_strerror(failure));
        snd_pcm_close(alsa->pcm);
        free(alsa);
        return NULL;
    }
    return alsa;
}

mix_sink *mix_alsa_sink_open(const char *device, uint32_t sample_rate, uint32_t channels, uint32_t period_frames,
    char *error, size_t error_size)
{
    return (mix_sink *)open_stream(device, SND_PCM_STREAM_PLAYBACK, sample_rate, channels, period_frames, error,
        error_size);
}

mix_source *mix_alsa_source_open(const char *device, uint32_t sample_rate, uint32_t channels,
    uint32_t period_frames, char *error, size_t error_size)
{
    return (mix_source *)open_stream(device, SND_PCM_STREAM_CAPTURE, sample_rate, channels, period_frames, error,
        error_size);
}

uint64_t mix_alsa_sink_underruns(const mix_sink *sink) { return ((const alsa_stream *)sink)->recovered; }

uint64_t mix_alsa_sink_overflows(const mix_sink *sink) { return ((const alsa_stream *)sink)->missed; }

uint64_t mix_alsa_source_underruns(const mix_source *source) { return ((const alsa_stream *)source)->missed; }

uint64_t mix_alsa_source_overruns(const mix_source *source) { return ((const alsa_stream *)source)->recovered; }
