/* The states the host last told the guest. */
#ifndef AHR_STATE_MIRROR_H
#define AHR_STATE_MIRROR_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "apphost_guest_runtime.h"

typedef struct ahr_scene_entry {
    /* First, for ahr_find_scene (growth.h). */
    apphost_scene_t scene;
    int32_t state;
    /* The size the last SCENE_SIZE gave (scenes.h); 0x0 compact until then. */
    uint32_t width;
    uint32_t height;
    int32_t size_class;
    /* The last SAVE_STATUS said the host could not store the scene's last
     * save (CONTRACT X5); false from will_connect on. */
    bool save_failed;
} ahr_scene_entry;

/*
 * So that app_state, scene_state and scene_size answer "as of the callback
 * being delivered" without asking the host, and save_scene_state and the
 * scenes extension know which handles are connected. Written on the guest's main queue, read from any
 * guest thread, always under `lock`.
 */
typedef struct ahr_state_mirror {
    pthread_mutex_t lock;
    int32_t app_state;
    /* Connected scenes, from will_connect until did_disconnect or will_terminate. */
    ahr_scene_entry *scenes;
    size_t scene_count;
    size_t scene_capacity;
} ahr_state_mirror;

void ahr_mirror_init(ahr_state_mirror *mirror);
void ahr_mirror_destroy(ahr_state_mirror *mirror);

/* Applies what `call` says before its callback runs. False, with nothing
 * changed, when a connecting scene could not be added for want of memory. */
bool ahr_mirror_will_deliver(ahr_state_mirror *mirror, const ahr_call *call);

/* After will_terminate's callback: no scene is connected any more. Scenes
 * stay valid during will_terminate, so that the guest can save them there
 * (CONTRACT A3), and not after. */
void ahr_mirror_forget_scenes(ahr_state_mirror *mirror);

int32_t ahr_mirror_app_state(ahr_state_mirror *mirror);

/* False when `scene` is not connected. */
bool ahr_mirror_scene_state(ahr_state_mirror *mirror, apphost_scene_t scene, int32_t *state);

/* Fills in `size` (every member but struct_size) for a connected `scene`;
 * false when it is not connected. */
bool ahr_mirror_scene_size(ahr_state_mirror *mirror, apphost_scene_t scene, apphost_scene_size_t *size);

/* Runs `body(context)` only if `scene` is connected, holding the lock so
 * that the scene cannot disconnect meanwhile; returns whether it ran, and
 * then, unless `save_failed` is NULL, the scene's save_failed. The body may
 * take the scenes extension's lock (scenes.h), never the other way round. */
bool ahr_mirror_if_connected(ahr_state_mirror *mirror, apphost_scene_t scene, void (*body)(void *context),
                             void *context, bool *save_failed);

/* SAVE_STATUS: sets a connected scene's save_failed; false when it is not
 * connected. */
bool ahr_mirror_set_save_failed(ahr_state_mirror *mirror, apphost_scene_t scene, bool failed);

#endif
