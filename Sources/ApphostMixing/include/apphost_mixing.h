/*
 * The host's mixing building blocks (CONTRACT C13), in C so that the mixer's
 * real-time thread runs code that never allocates, locks or enters the
 * Swift runtime:
 *
 *   mix_period.h          sums sessions' float32 periods, each times its
 *                         gain, and clips (C8, C9, C12 are the gains'
 *                         business); takes a session's period out of its
 *                         shared memory, silence when a sample is not a
 *                         number (X7)
 *   mix_level.h           peak and RMS of a period, in linear and dBFS, and
 *                         over a span of periods (a session's level for
 *                         `ctl audio`)
 *   mix_stream.h          where mixed periods go and where the host's
 *                         captured input comes from, which record sessions
 *                         receive: the one interface of every sink and
 *                         every source
 *   mix_wav_sink.h        a WAV file (32-bit float) a killed host leaves
 *                         readable
 *   mix_null_sink.h       nothing written: the mixer paced by the host's
 *                         clock
 *   mix_silence_source.h  zeros: record sessions run with no input at all
 *   mix_tone_source.h     a sine, phase-continuous: an input of known level
 *                         and pitch
 *   mix_wav_source.h      a WAV file, read whole at open and looped
 *   mix_pacer.h           the period clock: absolute monotonic deadlines, or
 *                         none at all for faster-than-real-time offline
 *                         renders
 *   mix_region.h          a session's shared memory: the periods a guest
 *                         renders in its own process for the mixer to collect
 *                         at its deadline, and the eventfd that asks for each
 *   mix_engine.h          the mixer: a real-time thread that, once per
 *                         period, collects the sessions' regions, mixes them
 *                         into the sink with their gains, meters them and
 *                         asks again
 *   mix_error.h           the one line of why an opening function writes to
 *                         its caller's error buffer (here and in
 *                         ApphostALSA)
 *
 * Frames are interleaved float32: a frame is one sample per channel; a
 * period is `frames` frames, `frames * channels` samples. Nothing here
 * knows of guests or sessions: the host wires them. The ALSA sink and source
 * are apart, in ApphostALSA (apphost_alsa.h), so that what links this
 * target (the guest runtime, for mix_region.h, and with it every worker)
 * does not load libasound.
 *
 * Real-time safety: what runs once per period (mix_period and its steps,
 * mix_sanitize, mix_level_*, mix_sink_write, mix_source_read, mix_pacer_wait,
 * mix_region_request/collect, the guest's wait/buffer/done, and the
 * mix_engine thread's cycle, made of them) allocates
 * nothing and takes no lock but alsa-lib's own per-device one; its only
 * system calls are the pacer's sleep, the sink's write, an ALSA device's
 * non-blocking reads and writes and the region's eventfd write, read and
 * ppoll. Opening and closing sinks and sources, and creating, mapping and
 * closing regions, allocate and may block: do them off the real-time
 * threads.
 */
#ifndef APPHOST_MIXING_H
#define APPHOST_MIXING_H

#include "mix_engine.h"
#include "mix_level.h"
#include "mix_null_sink.h"
#include "mix_pacer.h"
#include "mix_period.h"
#include "mix_region.h"
#include "mix_silence_source.h"
#include "mix_stream.h"
#include "mix_tone_source.h"
#include "mix_wav_sink.h"
#include "mix_wav_source.h"

#endif
