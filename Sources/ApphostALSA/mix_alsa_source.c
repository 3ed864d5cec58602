#include "mix_alsa_source.h"

#include "alsa_quiet.h"

#include <alsa/asoundlib.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    /* Periods the device's buffer holds: room for the host's reads to come
     * late by up to 3 periods before the device overruns. */
    BUFFER_PERIODS = 4
};

typedef struct alsa_source {
    mix_source base;
    snd_pcm_t *pcm;
    uint64_t underruns;
    uint64_t overruns;
    /* For error texts, which name the device; NUL-terminated. */
    char device[];
} alsa_source;

/* Brings the device back from an overrun (-EPIPE) or a suspend
 * (-ESTRPIPE), counts it and starts it again; false, with the source
 * failed, for any other error or when it cannot be recovered. */
static bool recover(alsa_source *alsa, int failure)
{
    if (failure == -EPIPE || failure == -ESTRPIPE) {
        /* Silent: alsa-lib would print a line on stderr for each. */
        failure = snd_pcm_recover(alsa->pcm, failure, 1);
        if (failure == 0) {
            alsa->overruns++;
            /* Prepared again after an overrun; a resumed device runs. */
            if (snd_pcm_state(alsa->pcm) == SND_PCM_STATE_PREPARED) {
                failure = snd_pcm_start(alsa->pcm);
            }
        }
        if (failure == 0) {
            return true;
        }
    }
    mix_source_fail(&alsa->base, "alsa:%s: cannot read: %s", alsa->device, snd_strerror(failure));
    return false;
}

static bool alsa_read(mix_source *source, float *samples, uint32_t frames)
{
    alsa_source *alsa = (alsa_source *)source;
    uint32_t channels = source->channels;
    uint32_t done = 0;
    /* One recovery a read: a device that overruns again at once is read
     * as having nothing, not retried without end. */
    bool recovered = false;

    if (snd_pcm_state(alsa->pcm) == SND_PCM_STATE_PREPARED) {
        int failure = snd_pcm_start(alsa->pcm);

        if (failure < 0) {
            mix_source_fail(source, "alsa:%s: cannot start capture: %s", alsa->device, snd_strerror(failure));
            return false;
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
            if (!recover(alsa, (int)got)) {
                return false;
            }
            recovered = true;
            continue;
        }
        if (got < 0) {
            mix_source_fail(source, "alsa:%s: cannot read: %s", alsa->device, snd_strerror((int)got));
            return false;
        }
        done += (uint32_t)got;
    }
    if (done < frames) {
        /* The rest is the silence above. */
        alsa->underruns++;
    }
    return true;
}

static bool alsa_finish(mix_source *source)
{
    alsa_source *alsa = (alsa_source *)source;
    bool finished = true;
    int failure;

    snd_pcm_drop(alsa->pcm);
    failure = snd_pcm_close(alsa->pcm);
    if (failure < 0) {
        mix_source_fail(source, "alsa:%s: cannot close: %s", alsa->device, snd_strerror(failure));
        finished = false;
    }
    alsa->pcm = NULL;
    return finished;
}

static const mix_source_kind alsa_kind = {alsa_read, alsa_finish};

mix_source *mix_alsa_source_open(const char *device, uint32_t sample_rate, uint32_t channels,
    uint32_t period_frames, char *error, size_t error_size)
{
    size_t device_bytes = strlen(device) + 1;
    /* snd_pcm_set_params takes the buffer as a latency in microseconds, and
     * makes periods of a quarter of it. */
    uint64_t latency_us = (uint64_t)period_frames * BUFFER_PERIODS * 1000000u / (sample_rate == 0 ? 1 : sample_rate);
    alsa_source *alsa;
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
    failure = snd_pcm_open(&alsa->pcm, device, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK);
    if (failure < 0) {
        if (error != NULL && error_size > 0) {
            snprintf(error, error_size, "alsa:%s: cannot open for capture: %s", device, snd_strerror(failure));
        }
        free(alsa);
        return NULL;
    }
    failure = snd_pcm_set_params(alsa->pcm, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_ACCESS_RW_INTERLEAVED, channels,
        sample_rate, 1, latency_us > UINT32_MAX ? UINT32_MAX : (unsigned int)latency_us);
    if (failure < 0) {
        if (error != NULL && error_size > 0) {
            snprintf(error, error_size, "alsa:%s: cannot capture %u channels of float samples at %u Hz: %s",
                device, channels, sample_rate, snd_strerror(failure));
        }
        snd_pcm_close(alsa->pcm);
        free(alsa);
        return NULL;
    }
    return &alsa->base;
}

uint64_t mix_alsa_source_underruns(const mix_source *source) { return ((const alsa_source *)source)->underruns; }

uint64_t mix_alsa_source_overruns(const mix_source *source) { return ((const alsa_source *)source)->overruns; }
