/* What the host functions of one guest work on, and the registry that finds it. */
#ifndef AHR_HOST_CONTEXT_H
#define AHR_HOST_CONTEXT_H

#include <pthread.h>

#include "apphost_guest_runtime.h"
#include "audio.h"
#include "background.h"
#include "main_queue.h"
#include "saves.h"
#include "session_list.h"
#include "scenes.h"
#include "state_mirror.h"

typedef struct ahr_host_context ahr_host_context;

struct ahr_host_context {
    /* The guest's apphost_host_t: the key the registry finds this context by. */
    const apphost_host_t *host;
    /* Immutable while registered. `mirror`, `background`, `scenes`,
     * `audio` and `saves` belong to the runtime, which keeps them until
     * the context is withdrawn. */
    ahr_state_mirror *mirror;
    ahr_background *background;
    ahr_scenes *scenes;
    ahr_audio *audio;
    ahr_main_queue *main_queue;
    ahr_session_list *sessions;
    ahr_saves *saves;
    char *data_directory;
    ahr_reporter reporter;

    /* Host function calls in progress, under `use_lock`; `idle` is signalled
     * when the count falls to zero, for ahr_registry_remove. */
    pthread_mutex_t use_lock;
    pthread_cond_t idle;
    unsigned users;

    /* The next registered context. */
    ahr_host_context *next;
};

/* Hands `report` to the context's reporter, if it has one; `report` lives
 * only during the call. */
void ahr_report_send(const ahr_host_context *context, const ahr_report *report);

/* ahr_registry_acquire for a [main-queue] function (`name`, such as
 * "app_state"): NULL, with *refusal set, for a host the registry does not
 * know (APPHOST_ERROR_INVALID_ARGUMENT) and when the calling thread is not
 * delivering a call to the guest (APPHOST_ERROR_WRONG_THREAD, which the
 * guest's log hears of once per function). */
ahr_host_context *ahr_registry_acquire_on_main_queue(const apphost_host_t *host, ahr_main_queue_function function,
                                                     const char *name, apphost_status_t *refusal);

/* Which lock of the guest's state a guest function's body runs under. */
typedef enum ahr_guest_lock {
    AHR_LOCK_NONE,
    AHR_LOCK_BACKGROUND,
    AHR_LOCK_SCENES,
    AHR_LOCK_AUDIO,
} ahr_guest_lock;

/* What one guest function does once its guest is found; `request` is the
 * function's own (its arguments, what it hands back). Returns the
 * function's status. */
typedef apphost_status_t (*ahr_guest_body)(ahr_host_context *context, void *request);

/*
 * The steps every guest function takes once its own arguments are checked
 * (guest_call.c): finds the guest of `host` (APPHOST_ERROR_INVALID_ARGUMENT
 * for a host the registry does not know, never dereferenced: CONTRACT X3),
 * runs `body` with `lock` of that guest's state held, lets both go and
 * returns the body's status.
 */
apphost_status_t ahr_guest_call(const apphost_host_t *host, ahr_guest_lock lock, ahr_guest_body body, void *request);

/* ahr_guest_call for a function the extension takes only while it runs:
 * APPHOST_ERROR_INVALID_STATE, body not run, while the extension whose
 * `lock` (not AHR_LOCK_NONE) it holds does not accept calls (background's
 * and scenes' `running`, audio's `accepting`: init, deinit). */
apphost_status_t ahr_guest_call_running(const apphost_host_t *host, ahr_guest_lock lock, ahr_guest_body body,
                                        void *request);

/* ahr_guest_call for the [main-queue] function `name`: refused as
 * ahr_registry_acquire_on_main_queue refuses, body not run. */
apphost_status_t ahr_guest_call_on_main_queue(const apphost_host_t *host, ahr_main_queue_function function,
                                              const char *name, ahr_guest_lock lock, ahr_guest_body body,
                                              void *request);

/* scene_state's and scene_size's read of one scene from the mirror: its
 * state when `state` is not NULL, else its size. */
typedef struct ahr_scene_read {
    apphost_scene_t scene;
    int32_t *state;
    apphost_scene_size_t *size;
} ahr_scene_read;

/* The ahr_guest_body of scene_state and scene_size (host_functions.c):
 * APPHOST_ERROR_INVALID_HANDLE when the scene is not connected. */
apphost_status_t ahr_read_scene(ahr_host_context *context, void *read);

/* Makes `context` findable by `context->host`. */
void ahr_registry_add(ahr_host_context *context);

/* The context of a registered host, with one use taken: give it back with
 * ahr_registry_release. NULL for NULL, a foreign or a withdrawn host, which
 * is never dereferenced (CONTRACT X3). */
ahr_host_context *ahr_registry_acquire(const apphost_host_t *host);

void ahr_registry_release(ahr_host_context *context);

/* Makes `context` unfindable, then waits until no call uses it. */
void ahr_registry_remove(ahr_host_context *context);

#endif
