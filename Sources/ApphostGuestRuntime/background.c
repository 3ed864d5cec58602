/*
 * The background extension: the functions of apphost_background_t (see
 * background.h in the SDK for what each promises) and the host's calls that
 * run what they set up. Each function finds its guest through the registry
 * (host_context.h), so that any argument at all gets an answer, never a
 * crash (CONTRACT X3).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strnlen */

#include "background.h"

#include <stdlib.h>
#include <string.h>

#include "call_area.h"
#include "growth.h"
#include "host_context.h"
#include "utf8_cut.h"

enum { NANOSECONDS_PER_SECOND = 1000000000 };

/* ---- Tables --------------------------------------------------------------- */

static void table_free(ahr_background_table *table)
{
    free(table->entries);
    memset(table, 0, sizeof *table);
}

/* Drops the gone entries, keeping the order. */
static void table_compact(ahr_background_table *table)
{
    size_t kept = 0;
    size_t i;

    for (i = 0; i < table->count; i++) {
        if (!table->entries[i].gone) {
            table->entries[kept++] = table->entries[i];
        }
    }
    table->count = kept;
}

/* A new entry with the next id, zeroed but for it; NULL when out of memory
 * (no id is used up then). */
static ahr_background_entry *table_add(ahr_background_table *table)
{
    ahr_background_entry *entry;

    if (table->count == table->capacity && table->live < table->count) {
        table_compact(table);
    }
    if (!ahr_reserve_one((void **)&table->entries, &table->capacity, table->count, sizeof *table->entries)) {
        return NULL;
    }
    entry = &table->entries[table->count++];
    memset(entry, 0, sizeof *entry);
    entry->id = ++table->last_id;
    table->live++;
    return entry;
}

/* The live entry of `id`, or NULL. */
static ahr_background_entry *table_find(ahr_background_table *table, uint64_t id)
{
    size_t low = 0;
    size_t high = table->count;

    while (low < high) {
        size_t middle = low + (high - low) / 2;
        ahr_background_entry *entry = &table->entries[middle];

        if (entry->id == id) {
            return entry->gone ? NULL : entry;
        }
        if (entry->id < id) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return NULL;
}

/* Whether `id` was ever given out from `table`. */
static bool table_issued(const ahr_background_table *table, uint64_t id) { return id != 0 && id <= table->last_id; }

static void table_remove(ahr_background_table *table, ahr_background_entry *entry)
{
    entry->gone = true;
    table->live--;
    if (table->live == 0) {
        table->count = 0;
    } else if (table->count >= 64 && table->live < table->count / 4) {
        table_compact(table);
    }
}

/* ---- State ---------------------------------------------------------------- */

void ahr_background_init(ahr_background *background)
{
    memset(background, 0, sizeof *background);
    pthread_mutex_init(&background->lock, NULL);
}

void ahr_background_destroy(ahr_background *background)
{
    table_free(&background->tasks);
    table_free(&background->timers);
    table_free(&background->work);
    pthread_mutex_destroy(&background->lock);
}

void ahr_background_set_running(ahr_background *background, bool running)
{
    pthread_mutex_lock(&background->lock);
    background->running = running;
    background->accepting_tasks = running;
    pthread_mutex_unlock(&background->lock);
}

void ahr_background_will_terminate(ahr_background *background)
{
    pthread_mutex_lock(&background->lock);
    background->accepting_tasks = false;
    pthread_mutex_unlock(&background->lock);
}

/* What is left of the budget, never below 0; only when `limited`. Call with
 * the lock held. */
static int64_t remaining_ns(const ahr_background *background)
{
    struct timespec now;
    int64_t elapsed;

    clock_gettime(CLOCK_MONOTONIC, &now);
    elapsed = (int64_t)(now.tv_sec - background->budget_since.tv_sec) * NANOSECONDS_PER_SECOND +
              (now.tv_nsec - background->budget_since.tv_nsec);
    if (elapsed < 0) {
        elapsed = 0;
    }
    return elapsed >= background->budget_ns ? 0 : background->budget_ns - elapsed;
}

bool ahr_background_if_time_left(ahr_background *background, void (*body)(void *context), void *context)
{
    bool left;

    pthread_mutex_lock(&background->lock);
    /* As begin_task: spent once the host's budget is known to be over (B1). */
    left = !background->limited || remaining_ns(background) > 0;
    if (left) {
        body(context);
    }
    pthread_mutex_unlock(&background->lock);
    return left;
}

/* ---- The host's calls, on the main queue ---------------------------------- */

bool ahr_background_is_call(const ahr_call *call) { return ahr_call_area_of(call->kind) == AHR_AREA_BACKGROUND; }

bool ahr_background_call_is_valid(const ahr_call *call)
{
    return call->kind != AHR_CALL_BACKGROUND_TIME ||
           call->background_time.background_time_ns >= AHR_BACKGROUND_TIME_UNLIMITED;
}

/* EXPIRE_TASK and FIRE_TIMER: runs the task's expiration handler, at most
 * once (B1, B3), or the timer's work, without the lock. A task or timer that
 * ended meanwhile is skipped: APPHOST_OK still, and
 * APPHOST_ERROR_INVALID_HANDLE only for an id never given out. */
static int32_t expire_or_fire(ahr_background *background, uint64_t id, bool timer)
{
    ahr_background_table *table = timer ? &background->timers : &background->tasks;
    apphost_expiration_handler_t handler = NULL;
    apphost_work_t work = NULL;
    void *context = NULL;
    ahr_background_entry *entry;
    bool issued;

    pthread_mutex_lock(&background->lock);
    issued = table_issued(table, id);
    entry = table_find(table, id);
    if (entry != NULL && timer) {
        work = entry->work;
        context = entry->context;
        /* A one-shot timer is done: cancel_timer calls it unknown from now. */
        if (!entry->repeats) {
            table_remove(table, entry);
        }
    } else if (entry != NULL && !entry->expired) {
        entry->expired = true;
        handler = entry->on_expiration;
        context = entry->context;
    }
    pthread_mutex_unlock(&background->lock);
    if (handler != NULL) {
        handler(context, id);
    }
    if (work != NULL) {
        work(context);
    }
    return issued ? APPHOST_OK : APPHOST_ERROR_INVALID_HANDLE;
}

static int32_t run_work(ahr_background *background, uint64_t id)
{
    apphost_work_t work = NULL;
    void *context = NULL;
    ahr_background_entry *entry;

    pthread_mutex_lock(&background->lock);
    entry = table_find(&background->work, id);
    if (entry != NULL) {
        work = entry->work;
        context = entry->context;
        table_remove(&background->work, entry);
    }
    pthread_mutex_unlock(&background->lock);
    if (work == NULL) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    work(context);
    return APPHOST_OK;
}

static int32_t set_background_time(ahr_background *background, int64_t nanoseconds)
{
    pthread_mutex_lock(&background->lock);
    background->limited = nanoseconds != AHR_BACKGROUND_TIME_UNLIMITED;
    background->budget_ns = background->limited ? nanoseconds : 0;
    clock_gettime(CLOCK_MONOTONIC, &background->budget_since);
    pthread_mutex_unlock(&background->lock);
    return APPHOST_OK;
}

int32_t ahr_background_handle(ahr_background *background, const ahr_call *call)
{
    switch (call->kind) {
    case AHR_CALL_EXPIRE_TASK:
        return expire_or_fire(background, call->expire_task.id, false);
    case AHR_CALL_FIRE_TIMER:
        return expire_or_fire(background, call->fire_timer.id, true);
    case AHR_CALL_RUN_WORK:
        return run_work(background, call->run_work.id);
    case AHR_CALL_BACKGROUND_TIME:
        return set_background_time(background, call->background_time.background_time_ns);
    default:
        break;
    }
    return APPHOST_ERROR_INVALID_ARGUMENT;
}

/* ---- The guest's functions, from any thread ------------------------------- */

/* One function's arguments and results, for its body, which runs under the
 * extension's lock (ahr_guest_call). */
typedef struct background_request {
    /* A timer's (schedule_timer, cancel_timer), not a task's or work's. */
    bool timer;
    const char *name;
    size_t name_length;
    apphost_expiration_handler_t on_expiration;
    apphost_work_t work;
    void *context;
    uint64_t id;
    uint64_t delay_ns;
    uint64_t interval_ns;
    double *out_seconds;
    apphost_timer_t *out_timer;
} background_request;

static apphost_status_t begin_locked(ahr_host_context *host_context, void *argument)
{
    background_request *request = argument;
    ahr_background *background = host_context->background;
    ahr_background_entry *entry;

    /* strnlen: a longer name is never read past the limit. */
    request->name_length = ahr_utf8_prefix_length(
        request->name, strnlen(request->name, APPHOST_TASK_NAME_MAX_BYTES + 1), APPHOST_TASK_NAME_MAX_BYTES);
    /* B1: not while terminating, not once the budget is known to be spent. */
    if (!background->accepting_tasks || (background->limited && remaining_ns(background) == 0) ||
        (entry = table_add(&background->tasks)) == NULL) {
        return APPHOST_OK;
    }
    entry->on_expiration = request->on_expiration;
    entry->context = request->context;
    request->id = entry->id;
    /* Under the lock: see background.h. */
    ahr_report_send(host_context, &(ahr_report){.kind = AHR_REPORT_TASK_BEGAN,
                                                .task_began = {.id = entry->id,
                                                               .text = request->name,
                                                               .text_length = request->name_length}});
    return APPHOST_OK;
}

static apphost_task_t begin_task(const apphost_host_t *host, const char *name,
                                 apphost_expiration_handler_t on_expiration, void *context)
{
    background_request request = {.name = name != NULL ? name : "",
                                  .on_expiration = on_expiration,
                                  .context = context,
                                  .id = APPHOST_TASK_INVALID};

    (void)ahr_guest_call(host, AHR_LOCK_BACKGROUND, begin_locked, &request);
    return request.id;
}

/* end_task's and cancel_timer's body: takes the task or the timer
 * request->id off its table and tells the host; from then on EXPIRE_TASK
 * finds no handler, FIRE_TIMER no work, to start. */
static apphost_status_t remove_locked(ahr_host_context *host_context, void *argument)
{
    background_request *request = argument;
    ahr_background *background = host_context->background;
    ahr_background_table *table = request->timer ? &background->timers : &background->tasks;
    ahr_background_entry *entry = table_find(table, request->id);

    if (entry == NULL) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    table_remove(table, entry);
    ahr_report_send(host_context, request->timer ? &(ahr_report){.kind = AHR_REPORT_TIMER_CANCELLED,
                                                                 .timer_cancelled = {.id = request->id}}
                                                 : &(ahr_report){.kind = AHR_REPORT_TASK_ENDED,
                                                                 .task_ended = {.id = request->id}});
    return APPHOST_OK;
}

static apphost_status_t end_task(const apphost_host_t *host, apphost_task_t task)
{
    return ahr_guest_call(host, AHR_LOCK_BACKGROUND, remove_locked, &(background_request){.id = task});
}

static apphost_status_t remaining_locked(ahr_host_context *host_context, void *argument)
{
    ahr_background *background = host_context->background;

    *((background_request *)argument)->out_seconds = background->limited
                                                         ? (double)remaining_ns(background) / NANOSECONDS_PER_SECOND
                                                         : APPHOST_BACKGROUND_TIME_UNLIMITED;
    return APPHOST_OK;
}

static apphost_status_t time_remaining(const apphost_host_t *host, double *out_seconds)
{
    if (out_seconds == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return ahr_guest_call(host, AHR_LOCK_BACKGROUND, remaining_locked,
                          &(background_request){.out_seconds = out_seconds});
}

/* schedule_timer's and dispatch_async's body, while the extension runs
 * (ahr_guest_call_running): a new timer, or work to run once, for
 * request->work, which the host hears of. */
static apphost_status_t add_locked(ahr_host_context *host_context, void *argument)
{
    background_request *request = argument;
    ahr_background *background = host_context->background;
    ahr_background_entry *entry = table_add(request->timer ? &background->timers : &background->work);

    if (entry == NULL) {
        return APPHOST_ERROR_OUT_OF_MEMORY;
    }
    entry->work = request->work;
    entry->context = request->context;
    if (!request->timer) {
        ahr_report_send(host_context,
                        &(ahr_report){.kind = AHR_REPORT_WORK_SUBMITTED, .work_submitted = {.id = entry->id}});
        return APPHOST_OK;
    }
    entry->repeats = request->interval_ns != 0;
    /* Before the host hears of it, so that the id is there for work that
     * runs before this returns. */
    *request->out_timer = entry->id;
    ahr_report_send(host_context, &(ahr_report){.kind = AHR_REPORT_TIMER_SCHEDULED,
                                                .timer_scheduled = {.id = entry->id,
                                                                    .delay_ns = request->delay_ns,
                                                                    .interval_ns = request->interval_ns}});
    return APPHOST_OK;
}

static apphost_status_t schedule_timer(const apphost_host_t *host, uint64_t delay_nanoseconds,
                                       uint64_t interval_nanoseconds, apphost_work_t work, void *context,
                                       apphost_timer_t *out_timer)
{
    if (work == NULL || out_timer == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return ahr_guest_call_running(host, AHR_LOCK_BACKGROUND, add_locked,
                                  &(background_request){.timer = true,
                                                        .work = work,
                                                        .context = context,
                                                        .delay_ns = delay_nanoseconds,
                                                        .interval_ns = interval_nanoseconds,
                                                        .out_timer = out_timer});
}

static apphost_status_t cancel_timer(const apphost_host_t *host, apphost_timer_t timer)
{
    return ahr_guest_call(host, AHR_LOCK_BACKGROUND, remove_locked, &(background_request){.timer = true, .id = timer});
}

static apphost_status_t dispatch_async(const apphost_host_t *host, apphost_work_t work, void *context)
{
    if (work == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return ahr_guest_call_running(host, AHR_LOCK_BACKGROUND, add_locked,
                                  &(background_request){.work = work, .context = context});
}

static const apphost_background_t extension = {
    sizeof(apphost_background_t), begin_task, end_task, time_remaining, schedule_timer, cancel_timer, dispatch_async,
};

const apphost_background_t *ahr_background_extension(void) { return &extension; }
