#include "alsa_pcm.h"

#include "alsa_quiet.h"
#include "mix_error.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

snd_pcm_t *alsa_pcm_open(const char *device, snd_pcm_stream_t stream, uint32_t sample_rate, uint32_t channels,
    uint32_t period_frames, char *error, size_t error_size)
{
    bool playback = stream == SND_PCM_STREAM_PLAYBACK;
    /* snd_pcm_set_params takes the buffer as a latency in microseconds, and
     * makes periods of a quarter of it. */
    uint64_t latency_us =
        (uint64_t)period_frames * ALSA_BUFFER_PERIODS * 1000000u / (sample_rate == 0 ? 1 : sample_rate);
    snd_pcm_t *pcm;
    int failure;

    alsa_quiet();
    failure = snd_pcm_open(&pcm, device, stream, SND_PCM_NONBLOCK);
    if (failure < 0) {
        mix_set_error(error, error_size, "alsa:%s: cannot open for %s: %s", device,
            playback ? "playback" : "capture", snd_strerror(failure));
        return NULL;
    }
    /* Resampling allowed: a plug device then converts a rate the card does
     * not take; a hw: device refuses it here. */
    failure = snd_pcm_set_params(pcm, SND_PCM_FORMAT_FLOAT_LE, SND_PCM_ACCESS_RW_INTERLEAVED, channels, sample_rate, 1,
        latency_us > UINT32_MAX ? UINT32_MAX : (unsigned int)latency_us);
    if (failure < 0) {
        mix_set_error(error, error_size, "alsa:%s: cannot %s %u channels of float samples at %u Hz: %s", device,
            playback ? "play" : "capture", channels, sample_rate, snd_strerror(failure));
        snd_pcm_close(pcm);
        return NULL;
    }
    return pcm;
}

void *alsa_pcm_new(size_t size, size_t pcm_offset, size_t device_offset, const char *device, snd_pcm_stream_t stream,
    uint32_t sample_rate, uint32_t channels, uint32_t period_frames, char *error, size_t error_size)
{
    size_t device_bytes = strlen(device) + 1;
    char *block;
    snd_pcm_t *pcm;

    mix_clear_error(error, error_size);
    block = calloc(1, size + device_bytes);
    if (block == NULL) {
        mix_set_error(error, error_size, "alsa:%s: out of memory", device);
        return NULL;
    }
    memcpy(block + device_offset, device, device_bytes);
    pcm = alsa_pcm_open(device, stream, sample_rate, channels, period_frames, error, error_size);
    if (pcm == NULL) {
        free(block);
        return NULL;
    }
    memcpy(block + pcm_offset, &pcm, sizeof pcm);
    return block;
}

int alsa_pcm_close(snd_pcm_t **pcm)
{
    int failure;

    snd_pcm_drop(*pcm);
    failure = snd_pcm_close(*pcm);
    *pcm = NULL;
    return failure;
}
