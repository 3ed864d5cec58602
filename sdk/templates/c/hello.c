/* hello.c: a guest to start from. Copy this directory, rename the id, build with `make`, and
 * check it with `make check` (apphost check: a test per contract rule).
 *
 * What it does, and what a guest of yours will do too:
 * - restores what its scene saved (a count) when the scene connects (CONTRACT S12);
 * - counts the user's "count" actions (`apphost ctl action <scene> count`) and saves each;
 * - when its scene leaves the foreground, saves, and finishes a short "sync" in background
 *   within a background task, begun in the callback and ended on every path (B1 to B4, B6).
 *
 * It logs, for you and for the tests that build this template:
 *   hello: connected, count <n>     a scene connected with what it saved
 *   hello: count <n>                after a "count" action
 *   hello: synced <n>               the background sync finished and its task ended
 *   hello: no time to sync          WARNING: the host gave no background time (B1)
 *   hello: sync expired             WARNING: the budget ran short first (B3)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apphost/apphost.h>

static const apphost_host_t *host;             /* from init, valid until deinit returns */
static const apphost_background_t *background; /* NULL when the host does not offer it */
static uint64_t count;
static apphost_task_t sync_task = APPHOST_TASK_INVALID;
static apphost_timer_t sync_timer = APPHOST_TIMER_INVALID;

static void log_count(int32_t level, const char *what)
{
    char message[96];

    snprintf(message, sizeof message, "hello: %s%" PRIu64, what, count);
    host->log(host, level, message);
}

static void save(apphost_scene_t scene)
{
    char state[24];
    int length = snprintf(state, sizeof state, "%" PRIu64, count);

    (void)host->save_scene_state(host, scene, state, (size_t)length);
}

/* The one way out of a sync, finished or expired: the task is ended exactly once. */
static void end_sync(void)
{
    if (sync_timer != APPHOST_TIMER_INVALID) {
        (void)background->cancel_timer(host, sync_timer);
        sync_timer = APPHOST_TIMER_INVALID;
    }
    if (sync_task != APPHOST_TASK_INVALID) {
        (void)background->end_task(host, sync_task);
        sync_task = APPHOST_TASK_INVALID;
    }
}

static void sync_finished(void *context)
{
    (void)context;
    sync_timer = APPHOST_TIMER_INVALID; /* a one-shot timer that has run */
    end_sync();
    log_count(APPHOST_LOG_INFO, "synced ");
}

static void sync_expired(void *context, apphost_task_t task)
{
    (void)context;
    (void)task;
    end_sync();
    host->log(host, APPHOST_LOG_WARNING, "hello: sync expired");
}

static void will_connect(const apphost_scene_connection_t *connection)
{
    char saved[24] = "";

    /* The connection's pointers are valid only during this call: copy what is kept. */
    if (connection->restoration_data != NULL && connection->restoration_length < sizeof saved) {
        memcpy(saved, connection->restoration_data, connection->restoration_length);
        saved[connection->restoration_length] = '\0';
    }
    count = strtoull(saved, NULL, 10);
    log_count(APPHOST_LOG_INFO, "connected, count ");
}

static void did_enter_background(apphost_scene_t scene)
{
    save(scene);
    if (background == NULL || sync_task != APPHOST_TASK_INVALID) {
        return;
    }
    /* Begin the task here, in the callback: a guest in background with no task is suspended
     * shortly after (B6). */
    sync_task = background->begin_task(host, "sync", sync_expired, NULL);
    if (sync_task == APPHOST_TASK_INVALID) {
        host->log(host, APPHOST_LOG_WARNING, "hello: no time to sync");
        return;
    }
    /* The "sync" stands in for real work: it takes 100 ms. */
    if (background->schedule_timer(host, 100000000, 0, sync_finished, NULL, &sync_timer) != APPHOST_OK) {
        end_sync();
    }
}

static void perform_action(apphost_scene_t scene, const char *name, const void *payload, size_t length)
{
    (void)payload;
    (void)length;
    if (strcmp(name, "count") == 0) {
        count++;
        save(scene);
        log_count(APPHOST_LOG_INFO, "count ");
    }
}

static void will_terminate(void)
{
    if (background != NULL) {
        end_sync();
    }
}

static apphost_status_t did_finish_launching(void)
{
    background = host->get_extension(host, APPHOST_BACKGROUND_EXTENSION_ID);
    return APPHOST_OK;
}

/* NULL members are callbacks this guest does not implement. */
static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, will_terminate, NULL,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), will_connect, NULL, NULL, NULL, did_enter_background, NULL,
};

static const apphost_guest_scenes_t scenes_callbacks = {
    sizeof(apphost_guest_scenes_t), NULL, perform_action, NULL, NULL, NULL, NULL,
};

static apphost_status_t init(const apphost_host_t *h)
{
    if (h == NULL || h->log == NULL || h->save_scene_state == NULL || h->get_extension == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    host = h;
    return APPHOST_OK;
}

static void deinit(void)
{
    host = NULL;
    background = NULL;
}

static const void *query(const char *interface_id)
{
    if (interface_id == NULL) {
        return NULL;
    }
    if (strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
    if (strcmp(interface_id, APPHOST_GUEST_SCENE_CALLBACKS_ID) == 0) {
        return &scene_callbacks;
    }
    if (strcmp(interface_id, APPHOST_GUEST_SCENES_CALLBACKS_ID) == 0) {
        return &scenes_callbacks;
    }
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t),
    "org.example.hello", /* id: yours, reverse-DNS; never change it, it names the saved state */
    "Hello",             /* name */
    "1.0.0",             /* version */
    NULL,                /* vendor */
    "Counts, saves, and syncs in background.",
    APPHOST_CAPABILITY_BACKGROUND_TASKS,
    NULL, /* actions (ABI 1.6, actions.h): none */
};

const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
