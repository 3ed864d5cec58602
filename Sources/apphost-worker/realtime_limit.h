/* What the worker does when a real-time thread of its guest runs too long
 * without sleeping (CONTRACT X7). */
#ifndef REALTIME_LIMIT_H
#define REALTIME_LIMIT_H

#include <stdint.h>

/* Catches SIGXCPU, which the kernel sends the thread that reached
 * RLIMIT_RTTIME's soft limit: the handler puts that thread back to ordinary
 * scheduling and lowers RLIMIT_RTPRIO to 0, so that no thread of the worker
 * may ask for real time again. RLIMIT_RTTIME counts real-time time only, so
 * the hard limit's SIGKILL never comes. */
void realtime_limit_watch(void);

/* Starts, once, the thread that hands each thread the handler demoted to
 * `report`, with `context`, as soon as it is demoted: called when the guest's
 * first audio stream arrives, so that a worker without sound has no such
 * thread, nor its pipe. Without it (or where it cannot start), a thread is
 * demoted all the same, unreported. */
void realtime_limit_report_to(void (*report)(void *context, int32_t thread), void *context);

#endif
