#include "mix_level.h"

#include <math.h>

mix_level mix_level_measure(const float *buffer, size_t samples)
{
    mix_level level = {0.0f, 0.0, (uint64_t)samples};
    size_t i;

    if (buffer == NULL) {
        return level;
    }
    for (i = 0; i < samples; i++) {
        float sample = buffer[i];
        float magnitude = fabsf(sample);

        /* A NaN fails every comparison: it is neither a peak nor summed. */
        if (magnitude > level.peak) {
            level.peak = magnitude;
        }
        if (sample == sample) {
            level.sum_of_squares += (double)sample * sample;
        }
    }
    return level;
}

void mix_level_add(mix_level *total, mix_level more)
{
    if (more.peak > total->peak) {
        total->peak = more.peak;
    }
    total->sum_of_squares += more.sum_of_squares;
    total->samples += more.samples;
}

double mix_level_rms(mix_level level)
{
    if (level.samples == 0) {
        return 0.0;
    }
    return sqrt(level.sum_of_squares / (double)level.samples);
}

double mix_level_dbfs(double linear)
{
    /* pow(10, floor / 20): the linear value the floor stands for. */
    static const double floor_linear = 1e-6;

    if (!(linear > floor_linear)) {
        return MIX_LEVEL_FLOOR_DBFS;
    }
    return 20.0 * log10(linear);
}

void mix_level_window_init(mix_level_window *window, uint64_t span_samples)
{
    const mix_level empty = {0.0f, 0.0, 0};

    window->span_samples = span_samples == 0 ? 1 : span_samples;
    window->current = empty;
    window->last = empty;
    window->spans = 0;
}

void mix_level_window_add(mix_level_window *window, mix_level period)
{
    const mix_level empty = {0.0f, 0.0, 0};

    mix_level_add(&window->current, period);
    if (window->current.samples >= window->span_samples) {
        window->last = window->current;
        window->current = empty;
        window->spans++;
    }
}
