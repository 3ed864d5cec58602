#include "mix_alsa_source.h"

#include "alsa_pcm.h"

#include <alsa/asoundlib.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

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
    int failure = alsa_pcm_close(&alsa->pcm);

    if (failure < 0) {
        mix_source_fail(source, "alsa:%s: cannot close: %s", alsa->device, snd_strerror(failure));
        return false;
    }
    return true;
}

static const mix_source_kind alsa_kind = {alsa_read, alsa_finish};

mix_source *mix_alsa_source_open(const char *device, uint32_t sample_rate, uint32_t channels,
    uint32_t period_frames, char *error, size_t error_size)
{
    alsa_source *alsa = alsa_pcm_new(sizeof *alsa, offsetof(alsa_source, pcm), offsetof(alsa_source, device), device,
        SND_PCM_STREAM_CAPTURE, sample_rate, channels, period_frames, error, error_size);

    if (alsa == NULL) {
        return NULL;
    }
    alsa->base = (mix_source){.kind = &alsa_kind, .sample_rate = sample_rate, .channels = channels};
    return &alsa->base;
}

uint64_t mix_alsa_source_underruns(const mix_source *source) { return ((const alsa_source *)source)->underruns; }

uint64_t mix_alsa_source_overruns(const mix_source *source) { return ((const alsa_source *)source)->overruns; }
