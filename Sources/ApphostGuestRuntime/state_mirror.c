/*
 * The states the host last gave the guest (apphost_guest_runtime.h gives the
 * rules). A guest has few scenes, so they are kept in a small array searched
 * from the start.
 */
#include "state_mirror.h"

#include <stddef.h>
#include <stdlib.h>

#include "growth.h"

void ahr_mirror_init(ahr_state_mirror *mirror)
{
    pthread_mutex_init(&mirror->lock, NULL);
    mirror->app_state = APPHOST_APP_STATE_NOT_RUNNING;
    mirror->scenes = NULL;
    mirror->scene_count = 0;
    mirror->scene_capacity = 0;
}

void ahr_mirror_destroy(ahr_state_mirror *mirror)
{
    free(mirror->scenes);
    mirror->scenes = NULL;
    pthread_mutex_destroy(&mirror->lock);
}

/* The scene's entry, or NULL. Call with the lock held. */
static ahr_scene_entry *find(ahr_state_mirror *mirror, apphost_scene_t scene)
{
    return ahr_find_scene(mirror->scenes, mirror->scene_count, sizeof *mirror->scenes, scene);
}

_Static_assert(APPHOST_SIZE_CLASS_COMPACT == 0, "a new scene's entry, zeroed, is 0x0 compact");

/* Sets the state of a scene, adding it when new (0x0 compact, no failed
 * save). Call with the lock held. */
static bool put(ahr_state_mirror *mirror, apphost_scene_t scene, int32_t state)
{
    ahr_scene_entry *entry = ahr_find_or_add_scene((void **)&mirror->scenes, &mirror->scene_count,
                                                   &mirror->scene_capacity, sizeof *mirror->scenes, scene);

    if (entry == NULL) {
        return false;
    }
    entry->state = state;
    return true;
}

/* Call with the lock held. */
static void remove_scene(ahr_state_mirror *mirror, apphost_scene_t scene)
{
    ahr_scene_entry *entry = find(mirror, scene);

    if (entry != NULL) {
        *entry = mirror->scenes[--mirror->scene_count];
    }
}

_Static_assert(offsetof(ahr_call, perform_action.scene) == offsetof(ahr_call, scene_size.scene) &&
                   offsetof(ahr_call, should_dismiss_modal.scene) == offsetof(ahr_call, scene_size.scene) &&
                   offsetof(ahr_call, did_dismiss_modal.scene) == offsetof(ahr_call, scene_size.scene),
               "the scenes calls that follow a scene begin with it");

/* The scenes calls about a connected scene update its state, as scene
 * callbacks do; SCENE_SIZE its size too. Call with the lock held. */
static void follow_scenes_call(ahr_state_mirror *mirror, const ahr_call *call, apphost_scene_t scene)
{
    ahr_scene_entry *entry = find(mirror, scene);

    if (entry == NULL) {
        return;
    }
    if (call->has_scene_state) {
        entry->state = call->scene_state;
    }
    if (call->kind == AHR_CALL_SCENE_SIZE) {
        entry->width = call->scene_size.width;
        entry->height = call->scene_size.height;
        entry->size_class = call->scene_size.size_class;
    }
}

bool ahr_mirror_will_deliver(ahr_state_mirror *mirror, const ahr_call *call)
{
    bool applied = true;

    pthread_mutex_lock(&mirror->lock);
    switch (call->kind) {
    case AHR_CALL_WILL_CONNECT:
        applied = put(mirror, call->will_connect.scene,
                      call->has_scene_state ? call->scene_state : call->will_connect.initial_state);
        break;
    case AHR_CALL_SCENE_CALLBACK:
        /* A disconnecting scene's handle is already invalid during did_disconnect. */
        if (call->scene_callback.scene_callback == AHR_SCENE_DID_DISCONNECT) {
            remove_scene(mirror, call->scene_callback.scene);
        } else if (call->has_scene_state && find(mirror, call->scene_callback.scene) != NULL) {
            put(mirror, call->scene_callback.scene, call->scene_state);
        }
        break;
    case AHR_CALL_SCENE_SIZE:
    case AHR_CALL_PERFORM_ACTION:
    case AHR_CALL_SHOULD_DISMISS_MODAL:
    case AHR_CALL_DID_DISMISS_MODAL:
        /* Each of these calls' types begins with its scene (the table lists
         * it first): a common initial sequence of the union, which any of
         * them reads (C11 6.5.2.3; the asserts below hold the table to it). */
        follow_scenes_call(mirror, call, call->scene_size.scene);
        break;
    default:
        /* Only the app state: no scene to follow. */
        break;
    }
    if (applied) {
        mirror->app_state = call->app_state;
    }
    pthread_mutex_unlock(&mirror->lock);
    return applied;
}

void ahr_mirror_forget_scenes(ahr_state_mirror *mirror)
{
    pthread_mutex_lock(&mirror->lock);
    mirror->scene_count = 0;
    pthread_mutex_unlock(&mirror->lock);
}

int32_t ahr_mirror_app_state(ahr_state_mirror *mirror)
{
    int32_t state;

    pthread_mutex_lock(&mirror->lock);
    state = mirror->app_state;
    pthread_mutex_unlock(&mirror->lock);
    return state;
}

bool ahr_mirror_scene_state(ahr_state_mirror *mirror, apphost_scene_t scene, int32_t *state)
{
    ahr_scene_entry *entry;

    pthread_mutex_lock(&mirror->lock);
    entry = find(mirror, scene);
    if (entry != NULL) {
        *state = entry->state;
    }
    pthread_mutex_unlock(&mirror->lock);
    return entry != NULL;
}

bool ahr_mirror_scene_size(ahr_state_mirror *mirror, apphost_scene_t scene, apphost_scene_size_t *size)
{
    ahr_scene_entry *entry;

    pthread_mutex_lock(&mirror->lock);
    entry = find(mirror, scene);
    if (entry != NULL) {
        size->width = entry->width;
        size->height = entry->height;
        size->size_class = entry->size_class;
    }
    pthread_mutex_unlock(&mirror->lock);
    return entry != NULL;
}

bool ahr_mirror_if_connected(ahr_state_mirror *mirror, apphost_scene_t scene, void (*body)(void *context),
                             void *context, bool *save_failed)
{
    ahr_scene_entry *entry;

    pthread_mutex_lock(&mirror->lock);
    entry = find(mirror, scene);
    if (entry != NULL) {
        body(context);
        if (save_failed != NULL) {
            *save_failed = entry->save_failed;
        }
    }
    pthread_mutex_unlock(&mirror->lock);
    return entry != NULL;
}

bool ahr_mirror_set_save_failed(ahr_state_mirror *mirror, apphost_scene_t scene, bool failed)
{
    ahr_scene_entry *entry;

    pthread_mutex_lock(&mirror->lock);
    entry = find(mirror, scene);
    if (entry != NULL) {
        entry->save_failed = failed;
    }
    pthread_mutex_unlock(&mirror->lock);
    return entry != NULL;
}
