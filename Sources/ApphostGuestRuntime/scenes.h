/*
 * The scenes extension of one guest, "apphost.scenes/1"
 * (sdk/include/apphost/scenes.h): the transient activation the last user
 * action granted, and the modals open on each connected scene.
 *
 * The runtime answers the guest at once from what it knows: the mirror
 * (state_mirror.h) says which scenes are connected and their sizes; this
 * says whether the guest holds an activation (CONTRACT S9) and which modals
 * it may dismiss (N3), giving out the modal ids itself, per guest, counting
 * from 1. The reporter tells the host of every accepted request (ahr_reporter).
 *
 * The guest's threads call the extension's functions (scenes.c and the
 * files scene_parts.h lists, one concern each) at any
 * time: everything below is under `lock`, and every reporter call is made with
 * it held. A function about a scene runs under the mirror's lock as well
 * (ahr_mirror_if_connected), so that the scene cannot disconnect meanwhile
 * and what the reporter hears of it comes before the later did_disconnect.
 * Lock order: the mirror's, then this one; never the other way round.
 */
#ifndef AHR_SCENES_H
#define AHR_SCENES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "apphost_guest_runtime.h"
#include "state_mirror.h"

/* One unspent activation (CONTRACT S9). */
typedef struct ahr_activation {
    apphost_activation_t token;
    struct timespec until;
} ahr_activation;

/* The modals open on one scene, bottom first; only scenes with some. */
typedef struct ahr_modal_stack {
    /* First, for ahr_find_scene (growth.h). */
    apphost_scene_t scene;
    apphost_modal_t *modals;
    size_t count;
    size_t capacity;
} ahr_modal_stack;

typedef struct ahr_scenes {
    pthread_mutex_t lock;
    /* The descriptor declares APPHOST_CAPABILITY_MULTIPLE_SCENES (CONTRACT
     * S13): without it, request_scene is refused. Set at load. */
    bool multiple_scenes;
    /* From a successful ahr_start until ahr_stop: requests are accepted. */
    bool running;
    /* The unspent activations PERFORM_ACTION granted (CONTRACT S9), oldest
     * first, each until its `until` (CLOCK_MONOTONIC); spending one removes
     * it. */
    ahr_activation activations[AHR_ACTIVATIONS_MAX];
    size_t activation_count;
    /* The activation of the PERFORM_ACTION being delivered, on the main
     * queue's thread; APPHOST_ACTIVATION_INVALID between them. */
    apphost_activation_t delivering;
    /* The host's notification limit (CONTRACT N1), once NOTIFICATION_LIMIT
     * came: no more than `notification_limit` within any window; `posted`
     * holds the times (CLOCK_MONOTONIC) of the last ones, oldest first, at
     * most notification_limit of them. */
    uint32_t notification_limit;
    uint64_t notification_window_ns;
    struct timespec *posted;
    size_t posted_count;
    /* The last scene request id given out (SCENE_REQUESTED); 0 before the
     * first. */
    apphost_request_t last_request;
    /* The last modal id given out; 0 before the first. */
    apphost_modal_t last_modal;
    /* A guest has few scenes and few modals: a small array, searched from
     * the start. */
    ahr_modal_stack *stacks;
    size_t stack_count;
    size_t stack_capacity;
} ahr_scenes;

void ahr_scenes_init(ahr_scenes *scenes, bool multiple_scenes);

/* Frees the modal stacks. Call once no host function can reach `scenes`. */
void ahr_scenes_destroy(ahr_scenes *scenes);

/* The guest started (true), or is being stopped (false): see `running`. */
void ahr_scenes_set_running(ahr_scenes *scenes, bool running);

/* True for the calls whose AREA in apphost_messages.h's table is SCENES
 * (SCENE_SIZE, PERFORM_ACTION, the modals', DID_DISCARD, NOTIFICATION_LIMIT,
 * SCENE_REQUEST_REFUSED): each has its check and its delivery
 * (scene_parts.h), which the two functions below call. */
bool ahr_scenes_is_call(const ahr_call *call);

/* APPHOST_OK for any call but a scenes call whose values are out of range
 * (APPHOST_ERROR_INVALID_ARGUMENT) or whose payload is too large
 * (APPHOST_ERROR_TOO_LARGE), as ahr_handle documents. */
int32_t ahr_scenes_check_call(const ahr_call *call);

/* For DID_DISCARD, a NUL-terminated copy of the session id in *copy (free
 * it); *copy is NULL for other calls. False when out of memory. */
bool ahr_scenes_copy_session(const ahr_call *call, char **copy);

/* [main-queue] Handles a scenes call, as ahr_handle documents, once the
 * mirror has followed it; `callbacks` is the guest's table, or NULL when it
 * has none, and `session` DID_DISCARD's copy. Runs the guest's function
 * without any lock held. */
int32_t ahr_scenes_handle(ahr_scenes *scenes, ahr_state_mirror *mirror, const apphost_guest_scenes_t *callbacks,
                          const ahr_call *call, const char *session);

/* [main-queue] `scene` disconnected: its modals are forgotten. */
void ahr_scenes_forget_scene(ahr_scenes *scenes, apphost_scene_t scene);

/* [main-queue] Every scene disconnected (will_terminate). */
void ahr_scenes_forget_all(ahr_scenes *scenes);

/* The extension's table, for get_extension: one for every guest, since each
 * function finds its guest by its `host` argument. */
const apphost_scenes_t *ahr_scenes_extension(void);

#endif
