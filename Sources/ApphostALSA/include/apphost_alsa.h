/*
 * The ALSA sink and source (`--audio-output alsa:DEVICE`,
 * `--audio-input alsa:DEVICE`), on ApphostMixing's mix_stream.h, through
 * alsa-lib (libasound):
 *
 *   mix_alsa_sink.h     an ALSA playback device, written without waiting
 *   mix_alsa_source.h   an ALSA capture device, read without waiting
 *
 * A target of their own so that only the host links libasound: the guest
 * runtime, and with it every worker process, needs ApphostMixing's region
 * and nothing of ALSA.
 */
#ifndef APPHOST_ALSA_H
#define APPHOST_ALSA_H

#include "mix_alsa_sink.h"
#include "mix_alsa_source.h"

#endif
