#include "mix_null_sink.h"

#include <stdlib.h>

static bool null_write(mix_sink *sink, const float *samples, uint32_t frames)
{
    (void)sink;
    (void)samples;
    (void)frames;
    return true;
}

static bool null_finish(mix_sink *sink)
{
    (void)sink;
    return true;
}

static const mix_sink_kind null_kind = {null_write, null_finish};

mix_sink *mix_null_sink_open(uint32_t sample_rate, uint32_t channels)
{
    mix_sink *sink = calloc(1, sizeof *sink);

    if (sink == NULL) {
        return NULL;
    }
    sink->kind = &null_kind;
    sink->sample_rate = sample_rate;
    sink->channels = channels;
    return sink;
}
