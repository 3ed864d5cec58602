#include "mix_silence_source.h"

#include <string.h>

static bool silence_read(mix_stream *stream, float *samples, uint32_t frames)
{
    /* All bits zero is 0.0f in IEEE 754. */
    memset(samples, 0, (size_t)frames * stream->channels * sizeof *samples);
    return true;
}

static const mix_stream_kind silence_kind = {.read = silence_read};

mix_source *mix_silence_source_open(uint32_t sample_rate, uint32_t channels)
{
    return mix_stream_new(sizeof(mix_source), &silence_kind, sample_rate, channels);
}
