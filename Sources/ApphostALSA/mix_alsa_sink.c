#include "mix_alsa_sink.h"

#include "alsa_quiet.h"

#include <alsa/asoundlib.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    /* Periods the device's buffer holds: room for the host's wakes to come
     * late by up to 3 periods before the device underruns, for 4 periods
     * of latency (40 ms at the default 10 ms period). */
    BUFFER_PERIODS = 4
};

typedef struct alsa_sink {
    mix_sink base;
    snd_pcm_t *pcm;
    uint64_t underruns;
    uint64_t overflows;
    /* For error texts, which name the device; NUL-terminated. */
    char device[];
} alsa_sink;

/* Brings the device back from an underrun (-EPIPE) or a suspend
 * (-ESTRPIPE) and counts it; false, with the sink failed, for any other
 * error or when it cannot be recovered. */
static bool recover(alsa_sink *alsa, int failure, const char *doing)
{
    if (failure == -EPIPE || failure == -ESTRPIPE) {
        /* Silent: alsa-lib would print a line on stderr for each. */
        int recovered = snd_pcm_recover(alsa->pcm, failure, 1);

        if (recovered == 0) {
            alsa->underruns++;
            return true;
        }
        failure = recovered;
    }
    mix_sink_fail(&alsa->base, "alsa:%s: cannot %s: %s", alsa->device, doing, snd_strerror(failure));
    return false;
}

static bool alsa_write(mix_sink *sink, const float *samples, uint32_t frames)
{
    alsa_sink *alsa = (alsa_sink *)sink;
    snd_pcm_sframes_t room = snd_pcm_avail_update(alsa->pcm);
    snd_pcm_sframes_t written;

    if (room < 0) {
        if (!recover(alsa, (int)room, "write")) {
            return false;
        }
        room = snd_pcm_avail_update(alsa->pcm);
    }
    if (room < 0) {
        mix_sink_fail(sink, "alsa:%s: cannot write: %s", alsa->device, snd_strerror((int)room));
        return false;
    }
    /* A period is dropped whole rather than cut: a part of a period played
     * would be a click where the drop is only a gap. */
    if ((snd_pcm_uframes_t)room < frames) {
        alsa->overflows++;
        return true;
    }
    written = snd_pcm_writei(alsa->pcm, samples, frames);
    if (written == -EPIPE || written == -ESTRPIPE) {
        if (!recover(alsa, (int)written, "write")) {
            return false;
        }
        written = snd_pcm_writei(alsa->pcm, samples, frames);
    }
    if (written == -EAGAIN) {
        /* Room said there was room; a device that disagrees still only
         * costs the period. */
        alsa->overflows++;
        return true;
    }
    if (written < 0) {
        mix_sink_fail(sink, "alsa:%s: cannot write: %s", alsa->device, snd_strerror((int)written));
        return false;
    }
    if ((snd_pcm_uframes_t)written < frames) {
        /* The rest of the period did not fit: dropped, as above. */
        alsa->overflows++;
    }
    return true;
}

static bool alsa_finish(mix_sink *sink)
{
    alsa_sink *alsa = (alsa_sink *)sink;
    bool finished = true;
    int failure;

    /* Dropped, not drained: draining would play out up to a buffer of the
     * mix after the host decided to stop, and block while it does. */
    snd_pcm_drop(alsa->pcm);
    failure = snd_pcm_close(alsa->pcm);
    if (failure < 0) {
        mix_sink_fail(sink, "alsa:%s: cannot close: %s", alsa->device, snd_strerror(failure));
        finished = false;
    }
    alsa->pcm = NULL;
    return finished;
}

static const mix_sink_kind alsa_kind = {alsa_write, alsa_finish};

mix_sink *mix_alsa_sink_open(const char *device, uint32_t sample_rate, uint32_t channels, uint32_t period_frames,
    char *error, size_t error_size)
{
    size_t device_bytes = strlen(device) + 1;
    /* snd_pcm_set_params takes the buffer as a latency in microseconds, and
     * makes periods of a quarter of it. */
    uint64_t latency_us = (uint64_t)period_frames * BUFFER_PERIODS * 1000000u / (sample_rate == 0 ? 1 : sample_rate);
    alsa_sink *alsa;
    int failure;

    if (error != NULL && error_size > 0) {
        error[0] = '\0';
    }
    alsa = calloc(1, sizeof *alsa + device_bytes);
    if (alsa == NULL) {
        if (error != NULL && error_size > 0) {
            snprintf(error, error_size, "alsa:%s: out of memory", device);
        }
        return NULL;
    }
    memcpy(alsa->device, device, device_bytes);
    alsa->base.kind = &alsa_kind;
    alsa->base.sample_rate = sample_rate;
    alsa->base.channels = channels;

    alsa_quiet();
    failure = snd_pcm_open(&alsa->pcm, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK);
    if (failure < 0) {
        if (error != NULL && error_size > 0) {
            snprintf(error, error_size, "alsa:%s: cannot open for playback: %s", device, snd_strerror(failure));
        }
        free(alsa);
        return NULL;
    }
    /* Resampling allowed: a plug device then converts a rate the card does
     * not take; a hw: device refuses it here. */
    failure = snd_pcm_set_params(alsa->pcm, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_ACCESS_RW_INTERLEAVED, channels,
        sample_rate, 1, latency_us > UINT32_MAX ? UINT32_MAX : (unsigned int)latency_us);
    if (failure < 0) {
        if (error != NULL && error_size > 0) {
            snprintf(error, error_size,
                "alsa:%s: cannot play %u channels of float samples at %u Hz: %s", device, channels, sample_rate,
                snd_strerror(failure));
        }
        snd_pcm_close(alsa->pcm);
        free(alsa);
        return NULL;
    }
    return &alsa->base;
}

uint64_t mix_alsa_sink_underruns(const mix_sink *sink) { return ((const alsa_sink *)sink)->underruns; }

uint64_t mix_alsa_sink_overflows(const mix_sink *sink) { return ((const alsa_sink *)sink)->overflows; }
