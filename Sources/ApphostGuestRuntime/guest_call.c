/*
 * The skeleton of a guest function, in one place: each function of the host
 * interface and its extensions checks its own arguments, then hands its
 * body to ahr_guest_call, which finds the guest (host_context.h), holds the
 * lock of the state the body works on, and lets both go. Apart so that a
 * new function is its checks and its body, never another copy of the
 * registry's and the lock's steps.
 */
#include <stdbool.h>
#include <stddef.h>

#include "host_context.h"

/* The lock `lock` names in `context`; NULL for AHR_LOCK_NONE. */
static pthread_mutex_t *lock_of(const ahr_host_context *context, ahr_guest_lock lock)
{
    switch (lock) {
    case AHR_LOCK_BACKGROUND:
        return &context->background->lock;
    case AHR_LOCK_SCENES:
        return &context->scenes->lock;
    case AHR_LOCK_AUDIO:
        return &context->audio->lock;
    case AHR_LOCK_NONE:
        break;
    }
    return NULL;
}

/* Whether the extension `lock` names accepts calls. Call with the lock
 * held. */
static bool accepts(const ahr_host_context *context, ahr_guest_lock lock)
{
    switch (lock) {
    case AHR_LOCK_BACKGROUND:
        return context->background->running;
    case AHR_LOCK_SCENES:
        return context->scenes->running;
    case AHR_LOCK_AUDIO:
        return context->audio->accepting;
    case AHR_LOCK_NONE:
        break;
    }
    return true;
}

/* Runs `body` on the acquired `context` under `lock` (only while the
 * extension accepts calls when `running` is true), then releases it. */
static apphost_status_t run(ahr_host_context *context, ahr_guest_lock lock, bool running, ahr_guest_body body,
                            void *request)
{
    pthread_mutex_t *mutex = lock_of(context, lock);
    apphost_status_t status;

    if (mutex != NULL) {
        pthread_mutex_lock(mutex);
    }
    status = running && !accepts(context, lock) ? APPHOST_ERROR_INVALID_STATE : body(context, request);
    if (mutex != NULL) {
        pthread_mutex_unlock(mutex);
    }
    ahr_registry_release(context);
    return status;
}

apphost_status_t ahr_guest_call(const apphost_host_t *host, ahr_guest_lock lock, ahr_guest_body body, void *request)
{
    ahr_host_context *context = ahr_registry_acquire(host);

    if (context == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return run(context, lock, false, body, request);
}

apphost_status_t ahr_guest_call_running(const apphost_host_t *host, ahr_guest_lock lock, ahr_guest_body body,
                                        void *request)
{
    ahr_host_context *context = ahr_registry_acquire(host);

    if (context == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return run(context, lock, true, body, request);
}

apphost_status_t ahr_guest_call_on_main_queue(const apphost_host_t *host, ahr_main_queue_function function,
                                              const char *name, ahr_guest_lock lock, ahr_guest_body body,
                                              void *request)
{
    apphost_status_t refusal;
    ahr_host_context *context = ahr_registry_acquire_on_main_queue(host, function, name, &refusal);

    if (context == NULL) {
        return refusal;
    }
    return run(context, lock, false, body, request);
}
