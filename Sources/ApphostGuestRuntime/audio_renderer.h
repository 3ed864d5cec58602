/*
 * The guest's audio thread (CONTRACT C13, audio.h's render): a real-time
 * thread of the runtime, in the guest's process, that waits on the session's
 * region (ApphostMixing's mix_region.h) for the host's mixer to ask for a
 * period, has the guest's render fill it, and marks it done.
 *
 * The runtime starts one when the host hands it a session's region
 * (AHR_CALL_AUDIO_STREAM) and the guest implements render. render is called
 * only while the session is active (ahr_audio_renderer_set, from the
 * mirror, read by the thread without a lock); otherwise, and before render
 * runs, the period is silence. Either way the period is marked done, so that
 * a period the host asks for while the guest still thinks its session
 * inactive costs silence, not an xrun.
 *
 * Priority: SCHED_FIFO when the process may (root, or RLIMIT_RTPRIO), as
 * audio threads are; else an ordinary thread, which the host's mixer
 * tolerates as it tolerates any late guest (an xrun). Never a failure.
 */
#ifndef AHR_AUDIO_RENDERER_H
#define AHR_AUDIO_RENDERER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apphost_guest_runtime.h"

/* The thread and what it uses, on the heap: a thread stuck in the guest's
 * render keeps it after ahr_audio_renderer_stop (see there). */
typedef struct ahr_audio_renderer ahr_audio_renderer;

/*
 * Maps the region of `memfd` and `wake_fd` (ownership of both passes here,
 * whatever happens) and starts the thread calling `render` for periods at
 * `sample_rate`, with the session `active` and `records` as given. The
 * region must hold periods of `period_frames` frames of `channel_count`
 * channels, the format the host announced. NULL, with one line in `error`,
 * when the region is refused or the thread cannot start.
 */
ahr_audio_renderer *ahr_audio_renderer_start(int memfd, int wake_fd,
                                             void (*render)(const apphost_audio_buffer_t *buffer),
                                             uint32_t sample_rate, uint32_t period_frames, uint32_t channel_count,
                                             bool active, bool records, char *error, size_t error_size);

/* The audio thread's id (gettid), and whether it runs under SCHED_FIFO:
 * known once ahr_audio_renderer_start returned. */
int32_t ahr_audio_renderer_thread_id(const ahr_audio_renderer *renderer);
bool ahr_audio_renderer_realtime(const ahr_audio_renderer *renderer);

/* Whether render is called (the session is active and not interrupted) and
 * gets the recorded input (its category records), from the next period on.
 * Any thread; NULL is ignored. */
void ahr_audio_renderer_set(ahr_audio_renderer *renderer, bool active, bool records);

/*
 * Stops the thread, closes the region and frees the renderer, waiting up to
 * `timeout_ns` for the thread to come back from the guest's render. True
 * when it did (or for NULL). False when render hangs: the thread is left
 * detached inside the guest's code, with the region and this struct, which
 * are leaked on purpose, and the guest's library must then stay loaded.
 * Not on the audio thread.
 */
bool ahr_audio_renderer_stop(ahr_audio_renderer *renderer, int64_t timeout_ns);

#endif
