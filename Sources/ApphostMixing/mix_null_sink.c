#include "mix_null_sink.h"

static bool null_write(mix_stream *stream, const float *samples, uint32_t frames)
{
    (void)stream;
    (void)samples;
    (void)frames;
    return true;
}

static const mix_stream_kind null_kind = {.write = null_write};

mix_sink *mix_null_sink_open(uint32_t sample_rate, uint32_t channels)
{
    return mix_stream_new(sizeof(mix_sink), &null_kind, sample_rate, channels);
}
