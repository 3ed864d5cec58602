/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The background extension, "apphost.background/1": background tasks with a
 * time budget the host enforces (CONTRACT B1 to B4), and timers and async
 * work that the host runs on the guest's main queue, so that it can hold
 * them while the guest is suspended (B7, B8).
 *
 * Get it from the host interface:
 *
 *     const apphost_background_t *background =
 *         host->get_extension(host, APPHOST_BACKGROUND_EXTENSION_ID);
 *
 * NULL means the host does not offer it. The table is owned by the host and
 * valid until deinit returns. Check struct_size before using a member that a
 * later revision of this header adds.
 *
 * The budget: while any of the guest's scenes is in the foreground, time is
 * unlimited. When the guest enters background its budget starts (30 s by
 * default), shared by all its tasks. A grace period (5 s by default) before
 * the budget ends, the expiration handler of every open task runs on the
 * main queue; it must end its task. A guest that still holds tasks when the
 * budget ends is suspended (or terminated, by the host's policy). Returning
 * to the foreground resets the budget. A guest in background with no open
 * task is suspended shortly after (1 s by default, CONTRACT B6).
 *
 * Thread tags are those of host.h. Every function tolerates a NULL host,
 * NULL pointers and unknown ids: it returns an error code or an invalid id
 * instead (CONTRACT X3). During init and deinit no background work is
 * possible: begin_task returns APPHOST_TASK_INVALID, and schedule_timer and
 * dispatch_async return APPHOST_ERROR_INVALID_STATE. Any function that
 * allocates may return APPHOST_ERROR_OUT_OF_MEMORY (or the invalid id).
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_BACKGROUND_H
#define APPHOST_BACKGROUND_H

#include <stdint.h>

#include "host.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define APPHOST_BACKGROUND_EXTENSION_ID "apphost.background/1"

/* A background task's id. Zero is never a valid id. */
typedef uint64_t apphost_task_t;

/* A host-run timer's id. Zero is never a valid id. */
typedef uint64_t apphost_timer_t;

/* The invalid ids: zero as a uint64_t, without a cast (which C++'s
 * -Wold-style-cast flags). Swift's importer reads no function-like macro such
 * as UINT64_C, so Swift gets 0ULL, which it imports as UInt64 too. */
#ifdef __swift__
#define APPHOST_TASK_INVALID 0ULL
#define APPHOST_TIMER_INVALID 0ULL
#else
#define APPHOST_TASK_INVALID UINT64_C(0)
#define APPHOST_TIMER_INVALID UINT64_C(0)
#endif

/* What time_remaining reports while the guest is in the foreground. */
#define APPHOST_BACKGROUND_TIME_UNLIMITED 1.0e300

/* The longest task name the host keeps, in bytes; longer names are cut at a
 * character boundary. */
enum { APPHOST_TASK_NAME_MAX_BYTES = 256 };

/* Runs on the guest's main queue when `task`'s time is nearly up. `context`
 * is the pointer given to begin_task. */
typedef void (*apphost_expiration_handler_t)(void *context, apphost_task_t task);

/* Work the host runs on the guest's main queue: a timer's or dispatch_async's.
 * `context` is the pointer given with it. */
typedef void (*apphost_work_t)(void *context);

typedef struct apphost_background apphost_background_t;

struct apphost_background {
    /* sizeof(apphost_background_t) as the host built it. */
    uint32_t struct_size;

    /* [thread-safe] Begins a background task named `name` (UTF-8,
     * NUL-terminated; NULL reads as ""), which the host shows to operators.
     * The host copies the name before returning; the caller keeps ownership.
     * `on_expiration` (may be NULL) runs at most once, on the main queue, a
     * grace period before the budget ends if the task is still open then;
     * `context` is passed to it and stays the caller's. Returns the task's
     * id, or APPHOST_TASK_INVALID when background work is not possible: the
     * guest is being suspended or terminated, or its budget in background
     * has run out (CONTRACT B1). Each valid id must be ended once. */
    apphost_task_t (*begin_task)(const apphost_host_t *host, const char *name,
                                 apphost_expiration_handler_t on_expiration, void *context);

    /* [thread-safe] Ends `task`. Returns APPHOST_ERROR_INVALID_HANDLE for
     * APPHOST_TASK_INVALID, an id this guest never got, or one already ended
     * (CONTRACT B1). Called on the main queue, its expiration handler never
     * runs after end_task returns; called from another thread, a handler
     * already starting may still run (end_task does not wait for it, so that
     * a handler may wait for a thread that ends the task). */
    apphost_status_t (*end_task)(const apphost_host_t *host, apphost_task_t task);

    /* [thread-safe] Writes the seconds left of the guest's background budget
     * to *out_seconds: APPHOST_BACKGROUND_TIME_UNLIMITED in the foreground,
     * counting down to 0 in background (CONTRACT B2). */
    apphost_status_t (*time_remaining)(const apphost_host_t *host, double *out_seconds);

    /* [thread-safe] Runs `work(context)` on the main queue after
     * `delay_nanoseconds`, then every `interval_nanoseconds` if that is not
     * 0, until cancel_timer. A timer that falls due while the guest is
     * suspended runs once when it resumes, however many times it fell due
     * (CONTRACT B7, B8). `context` stays the caller's; the host never frees
     * it. Writes the timer's id to *out_timer. APPHOST_ERROR_INVALID_ARGUMENT
     * for a NULL `work` or `out_timer`. */
    apphost_status_t (*schedule_timer)(const apphost_host_t *host, uint64_t delay_nanoseconds,
                                       uint64_t interval_nanoseconds, apphost_work_t work, void *context,
                                       apphost_timer_t *out_timer);

    /* [thread-safe] Cancels `timer`: its work never starts after cancel_timer
     * returns (a run already under way finishes). APPHOST_ERROR_INVALID_HANDLE
     * for an unknown or cancelled timer, or a one-shot timer that has run. */
    apphost_status_t (*cancel_timer)(const apphost_host_t *host, apphost_timer_t timer);

    /* [thread-safe] Runs `work(context)` once on the main queue, after the
     * callbacks and work already queued there; held while the guest is
     * suspended. `context` stays the caller's. APPHOST_ERROR_INVALID_ARGUMENT
     * for a NULL `work`. */
    apphost_status_t (*dispatch_async)(const apphost_host_t *host, apphost_work_t work, void *context);
};

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_BACKGROUND_H */
