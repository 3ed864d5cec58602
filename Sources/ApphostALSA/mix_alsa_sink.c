#include "mix_alsa_sink.h"

#include "alsa_pcm.h"

#include <alsa/asoundlib.h>
#include <errno.h>
#include <stddef.h>

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
    int failure = alsa_pcm_close(&alsa->pcm);

    if (failure < 0) {
        mix_sink_fail(sink, "alsa:%s: cannot close: %s", alsa->device, snd_strerror(failure));
        return false;
    }
    return true;
}

static const mix_sink_kind alsa_kind = {alsa_write, alsa_finish};

mix_sink *mix_alsa_sink_open(const char *device, uint32_t sample_rate, uint32_t channels, uint32_t period_frames,
    char *error, size_t error_size)
{
    alsa_sink *alsa = alsa_pcm_new(sizeof *alsa, offsetof(alsa_sink, pcm), offsetof(alsa_sink, device), device,
        SND_PCM_STREAM_PLAYBACK, sample_rate, channels, period_frames, error, error_size);

    if (alsa == NULL) {
        return NULL;
    }
    alsa->base = (mix_sink){.kind = &alsa_kind, .sample_rate = sample_rate, .channels = channels};
    return &alsa->base;
}

uint64_t mix_alsa_sink_underruns(const mix_sink *sink) { return ((const alsa_sink *)sink)->underruns; }

uint64_t mix_alsa_sink_overflows(const mix_sink *sink) { return ((const alsa_sink *)sink)->overflows; }
