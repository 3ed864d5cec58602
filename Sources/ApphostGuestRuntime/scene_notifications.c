/*
 * The guest's notifications and the host's limit on them (CONTRACT N1):
 * NOTIFICATION_LIMIT sets the limit, post_notification counts each one
 * against it. Apart from scenes.c because the window of recent posts is a
 * state of its own that nothing else reads.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "scene_parts.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NANOSECONDS_PER_SECOND = 1000000000 };

static uint64_t nanoseconds_between(const struct timespec *earlier, const struct timespec *later)
{
    return (uint64_t)(later->tv_sec - earlier->tv_sec) * NANOSECONDS_PER_SECOND + (uint64_t)later->tv_nsec -
           (uint64_t)earlier->tv_nsec;
}

int32_t ahr_scenes_check_notification_limit(const ahr_call_notification_limit *call)
{
    return call->notification_limit == 0 || call->notification_limit > AHR_NOTIFICATION_LIMIT_MAX
               ? APPHOST_ERROR_INVALID_ARGUMENT
               : APPHOST_OK;
}

/* NOTIFICATION_LIMIT: the limit post_notification keeps from now on. */
int32_t ahr_scenes_deliver_notification_limit(const ahr_scenes_delivery *delivery,
                                              const ahr_call_notification_limit *call)
{
    ahr_scenes *scenes = delivery->scenes;
    uint32_t limit = call->notification_limit;
    uint64_t window_ns = call->notification_window_ns;
    struct timespec *posted = calloc(limit, sizeof *posted);

    if (posted == NULL) {
        return APPHOST_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&scenes->lock);
    /* The count starts with the limit: the host sends it once, before
     * did_finish_launching, and counted those before on its own account. */
    free(scenes->posted);
    scenes->posted = posted;
    scenes->posted_count = 0;
    scenes->notification_limit = limit;
    scenes->notification_window_ns = window_ns;
    pthread_mutex_unlock(&scenes->lock);
    return APPHOST_OK;
}

/* Whether one more notification is within the limit now, which this counts.
 * Call with the lock held. */
static bool take_notification(ahr_scenes *scenes)
{
    struct timespec now;
    size_t expired = 0;

    if (scenes->notification_limit == 0) {
        return true;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    while (expired < scenes->posted_count &&
           nanoseconds_between(&scenes->posted[expired], &now) >= scenes->notification_window_ns) {
        expired++;
    }
    memmove(scenes->posted, scenes->posted + expired, (scenes->posted_count - expired) * sizeof *scenes->posted);
    scenes->posted_count -= expired;
    if (scenes->posted_count >= scenes->notification_limit) {
        return false;
    }
    scenes->posted[scenes->posted_count++] = now;
    return true;
}

/* post_notification's arguments. */
typedef struct notification_request {
    const char *title;
    size_t title_length;
    const char *body;
    size_t body_length;
} notification_request;

static apphost_status_t post_locked(ahr_host_context *context, void *argument)
{
    notification_request *request = argument;

    if (!take_notification(context->scenes)) {
        return APPHOST_ERROR_LIMIT_REACHED;
    }
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_NOTIFICATION_POSTED,
                                           .notification_posted = {.text = request->title,
                                                                   .text_length = request->title_length,
                                                                   .body = request->body,
                                                                   .body_length = request->body_length}});
    return APPHOST_OK;
}

apphost_status_t ahr_scenes_post_notification(const apphost_host_t *host, const char *title, const char *body)
{
    notification_request request;

    if (title == NULL || title[0] == '\0') {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    if (body == NULL) {
        body = "";
    }
    request = (notification_request){title, ahr_scenes_text_length(title), body, ahr_scenes_text_length(body)};
    return ahr_guest_call_running(host, AHR_LOCK_SCENES, post_locked, &request);
}
