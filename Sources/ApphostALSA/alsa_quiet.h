/* alsa-lib's own error lines, kept off the host's standard error. */
#ifndef ALSA_QUIET_H
#define ALSA_QUIET_H

/*
 * Replaces alsa-lib's error handler, which prints "ALSA lib pcm.c:2666:
 * (snd_pcm_open_noupdate) Unknown PCM nope" on stderr before our own one
 * line says the same ("alsa:nope: cannot open for playback: ..."): an
 * operator's bad --audio-output gets one line, as every bad argument does.
 * The handler is process-wide; the host is alsa-lib's only user. Once, from
 * any thread, before the first snd_pcm_open.
 */
void alsa_quiet(void);

#endif
