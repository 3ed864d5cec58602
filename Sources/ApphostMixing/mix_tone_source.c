#include "mix_tone_source.h"

#include "mix_error.h"

#include <math.h>
#include <stdio.h>

typedef struct tone_source {
    mix_source base;
    double amplitude;
    /* Where the next sample is in its cycle, in [0, 1). */
    double phase;
    /* Cycles a sample: frequency / rate, below 0.5. */
    double step;
} tone_source;

static bool tone_read(mix_stream *stream, float *samples, uint32_t frames)
{
    tone_source *tone = (tone_source *)stream;
    uint32_t channels = stream->channels;
    double phase = tone->phase;

    for (uint32_t frame = 0; frame < frames; frame++) {
        float value = (float)(tone->amplitude * sin(2.0 * M_PI * phase));

        for (uint32_t channel = 0; channel < channels; channel++) {
            samples[(size_t)frame * channels + channel] = value;
        }
        phase += tone->step;
        if (phase >= 1.0) {
            phase -= 1.0;
        }
    }
    tone->phase = phase;
    return true;
}

static const mix_stream_kind tone_kind = {.read = tone_read};

mix_source *mix_tone_source_open(uint32_t sample_rate, uint32_t channels, double frequency_hz, double amplitude,
    char *error, size_t error_size)
{
    double nyquist = sample_rate / 2.0;
    tone_source *tone;

    mix_clear_error(error, error_size);
    /* Written so that NaN fails both tests too. */
    if (!(frequency_hz > 0 && frequency_hz < nyquist)) {
        mix_set_error(error, error_size, "tone:%g: the frequency must be above 0 and below %g Hz, half the rate",
            frequency_hz, nyquist);
        return NULL;
    }
    if (!(amplitude >= 0 && amplitude <= 1)) {
        mix_set_error(error, error_size, "tone:%g: the amplitude %g is outside 0 to 1", frequency_hz, amplitude);
        return NULL;
    }
    tone = mix_stream_new(sizeof *tone, &tone_kind, sample_rate, channels);
    if (tone == NULL) {
        mix_set_error(error, error_size, "tone:%g: out of memory", frequency_hz);
        return NULL;
    }
    tone->amplitude = amplitude;
    tone->step = frequency_hz / sample_rate;
    return &tone->base;
}
