/*
 * The background extension of one guest, "apphost.background/1"
 * (sdk/include/apphost/background.h): its open tasks, timers and async work,
 * and the budget the host last gave it.
 *
 * The runtime gives out the ids itself and answers the guest at once; the
 * reporter tells the host (ahr_reporter), which runs the budget and the timers and
 * later sends EXPIRE_TASK, FIRE_TIMER and RUN_WORK, handled here on the
 * guest's main queue. The guest's threads call the extension's functions
 * (background.c) at any time: everything below is under `lock`, and every
 * reporter call is made with it held, so that what the host hears about one id
 * comes in the order it happened, and a begin_task that returned a valid id
 * is reported before the reply to any call handled after it (the host
 * relies on that to suspend safely: CONTRACT B1, B7).
 */
#ifndef AHR_BACKGROUND_H
#define AHR_BACKGROUND_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "apphost_guest_runtime.h"

/* An open task, a live timer or work not yet run. */
typedef struct ahr_background_entry {
    uint64_t id;
    /* Tasks: the handler (may be NULL), and whether it has started. */
    apphost_expiration_handler_t on_expiration;
    bool expired;
    /* Timers and work: never NULL; `repeats` for a timer with an interval. */
    apphost_work_t work;
    bool repeats;
    void *context;
    /* Ended, cancelled or run: kept until the table is compacted. */
    bool gone;
} ahr_background_entry;

/*
 * Entries in the order of their ids, which grow: found by binary search.
 * Removing one only marks it gone; the table is compacted once most of it
 * is, so that a guest with many pieces of work pays little for each.
 */
typedef struct ahr_background_table {
    ahr_background_entry *entries;
    size_t count;
    size_t capacity;
    size_t live;
    /* The last id given out; 0 before the first. */
    uint64_t last_id;
} ahr_background_table;

typedef struct ahr_background {
    pthread_mutex_t lock;
    /* From a successful ahr_start until ahr_stop: timers and async work are
     * accepted. */
    bool running;
    /* `running`, and will_terminate not yet delivered: tasks may begin. */
    bool accepting_tasks;
    /* False until a BACKGROUND_TIME with a duration arrives: unlimited. */
    bool limited;
    /* What was left when it arrived, and when (CLOCK_MONOTONIC). */
    int64_t budget_ns;
    struct timespec budget_since;
    ahr_background_table tasks;
    ahr_background_table timers;
    ahr_background_table work;
} ahr_background;

void ahr_background_init(ahr_background *background);

/* Frees every table. Call once no host function can reach `background`. */
void ahr_background_destroy(ahr_background *background);

/* The guest started (true), or is being stopped (false): see `running`. */
void ahr_background_set_running(ahr_background *background, bool running);

/* will_terminate is being delivered: begin_task returns the invalid id from
 * now on (CONTRACT B1). */
void ahr_background_will_terminate(ahr_background *background);

/* Runs `body(context)` only while the budget leaves background time (no
 * BACKGROUND_TIME of a duration yet, or some of it left), holding the lock so
 * that a BACKGROUND_TIME handled meanwhile waits for it; returns whether it
 * ran. For audio.c's activate, which holds its own lock around this (audio.h
 * gives the order); the body must take no lock of the runtime's. */
bool ahr_background_if_time_left(ahr_background *background, void (*body)(void *context), void *context);

/* True for EXPIRE_TASK, FIRE_TIMER, RUN_WORK and BACKGROUND_TIME. */
bool ahr_background_is_call(const ahr_call *call);

/* False for a background call whose values are out of range. */
bool ahr_background_call_is_valid(const ahr_call *call);

/* [main-queue] Handles a background call, as ahr_handle documents; runs the
 * guest's function, if any, without the lock. */
int32_t ahr_background_handle(ahr_background *background, const ahr_call *call);

/* The extension's table, for get_extension: one for every guest, since each
 * function finds its guest by its `host` argument. */
const apphost_background_t *ahr_background_extension(void);

#endif
