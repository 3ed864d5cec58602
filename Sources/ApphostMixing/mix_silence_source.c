#include "mix_silence_source.h"

#include <stdlib.h>
#include <string.h>

static bool silence_read(mix_source *source, float *samples, uint32_t frames)
{
    /* All bits zero is 0.0f in IEEE 754. */
    memset(samples, 0, (size_t)frames * source->channels * sizeof *samples);
    return true;
}

static bool silence_finish(mix_source *source)
{
    (void)source;
    return true;
}

static const mix_source_kind silence_kind = {silence_read, silence_finish};

mix_source *mix_silence_source_open(uint32_t sample_rate, uint32_t channels)
{
    mix_source *source = calloc(1, sizeof *source);

    if (source == NULL) {
        return NULL;
    }
    source->kind = &silence_kind;
    source->sample_rate = sample_rate;
    source->channels = channels;
    return source;
}
