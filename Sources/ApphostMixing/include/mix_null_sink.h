/*
 * The null sink (`--audio-output null`, the default): takes every period and
 * writes nothing, so that the mixer runs, meters and counts its xruns paced
 * by the host's own clock (mix_pacer.h) on a machine with no sound card and
 * no file to fill.
 */
#ifndef MIX_NULL_SINK_H
#define MIX_NULL_SINK_H

#include <stdint.h>

#include "mix_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sink that drops what it is given (its writes always succeed; it counts
 * its frames as any sink). NULL when memory runs out; `channels` and
 * `sample_rate` at least 1. Close it with mix_sink_close. Any thread. */
mix_sink *mix_null_sink_open(uint32_t sample_rate, uint32_t channels);

#ifdef __cplusplus
}
#endif

#endif
