/*
 * The silence source (`--audio-input silence`): every read is zeros, so that
 * record sessions run, and receive whole periods, on a machine with no
 * microphone and no file to play them.
 */
#ifndef MIX_SILENCE_SOURCE_H
#define MIX_SILENCE_SOURCE_H

#include <stdint.h>

#include "mix_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A source of zeros (its reads always succeed). NULL when memory runs out;
 * `channels` and `sample_rate` at least 1. Close it with mix_source_close.
 * Any thread. */
mix_source *mix_silence_source_open(uint32_t sample_rate, uint32_t channels);

#ifdef __cplusplus
}
#endif

#endif
