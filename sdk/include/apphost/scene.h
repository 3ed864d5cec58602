/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scenes: the windows of a guest, their states and the callbacks a guest
 * implements for them (CONTRACT S1 to S5, S12).
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_SCENE_H
#define APPHOST_SCENE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handle of a connected scene. Zero is never a valid handle. A handle
 * stays valid from will_connect until did_disconnect or will_terminate; the
 * host refuses a stale handle with APPHOST_ERROR_INVALID_HANDLE. */
typedef uint64_t apphost_scene_t;

enum { APPHOST_SCENE_INVALID = 0 };

/* Scene states (CONTRACT S1). */
enum apphost_scene_state {
    APPHOST_SCENE_STATE_UNATTACHED = 0,
    APPHOST_SCENE_STATE_FOREGROUND_INACTIVE = 1,
    APPHOST_SCENE_STATE_FOREGROUND_ACTIVE = 2,
    APPHOST_SCENE_STATE_BACKGROUND = 3
};

/* Scene roles. */
enum apphost_scene_role {
    APPHOST_SCENE_ROLE_PRIMARY = 0,
    APPHOST_SCENE_ROLE_AUXILIARY = 1
};

/* The largest state a scene may save, in bytes. */
enum { APPHOST_SCENE_STATE_MAX_BYTES = 1024 * 1024 };

/* What the host tells a guest about a scene it connects. The struct and
 * everything it points to are owned by the host and valid only during the
 * will_connect call: copy what you keep. */
typedef struct apphost_scene_connection {
    /* sizeof(apphost_scene_connection_t) as the host built it. */
    uint32_t struct_size;
    /* The scene's handle for this connection. */
    apphost_scene_t scene;
    /* The session's persistent identifier, UTF-8; it never changes and
     * survives host restarts (CONTRACT S8). */
    const char *session_id;
    /* One of enum apphost_scene_role. */
    int32_t role;
    /* The state this scene connects into: FOREGROUND_INACTIVE for a scene the
     * user asked for (will_enter_foreground and did_become_active follow),
     * BACKGROUND for one connected for background work (CONTRACT S2). */
    int32_t initial_state;
    /* The bytes this session last saved with save_scene_state, or NULL with
     * length 0 when it saved none (CONTRACT S12). */
    const void *restoration_data;
    size_t restoration_length;
} apphost_scene_connection_t;

/* Interface id for apphost_entry.query(): the guest returns a pointer to its
 * apphost_scene_callbacks_t. Optional: a guest without it gets no scenes. */
#define APPHOST_GUEST_SCENE_CALLBACKS_ID "apphost.guest.scene/1"

/*
 * Scene callbacks. The host calls each on the guest's main queue, one at a
 * time, in the orders CONTRACT S2 to S5 give. A NULL member means "not
 * implemented" and is skipped.
 */
typedef struct apphost_scene_callbacks {
    /* sizeof(apphost_scene_callbacks_t) as the guest was built. */
    uint32_t struct_size;

    /* [main-queue] A scene connects, with its saved state if any. `connection`
     * is owned by the host and valid only during this call. */
    void (*will_connect)(const apphost_scene_connection_t *connection);

    /* [main-queue] The scene is about to be visible. */
    void (*will_enter_foreground)(apphost_scene_t scene);

    /* [main-queue] The scene now receives user actions. */
    void (*did_become_active)(apphost_scene_t scene);

    /* [main-queue] The scene stops receiving user actions: it is being
     * switched away from, or something covers it for a while (CONTRACT S4). */
    void (*will_resign_active)(apphost_scene_t scene);

    /* [main-queue] The scene is no longer visible. Save its state now
     * (CONTRACT S12). */
    void (*did_enter_background)(apphost_scene_t scene);

    /* [main-queue] The host disconnected the scene; its handle is no longer
     * valid, but its session and saved state survive (CONTRACT S6). */
    void (*did_disconnect)(apphost_scene_t scene);
} apphost_scene_callbacks_t;

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_SCENE_H */
