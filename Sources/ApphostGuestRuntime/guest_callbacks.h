/* The callback tables a guest returned from query, and calling them. */
#ifndef AHR_GUEST_CALLBACKS_H
#define AHR_GUEST_CALLBACKS_H

#include <stdbool.h>

#include "apphost_guest_runtime.h"

/* Copies, so that members past a table's struct_size read as NULL: "not
 * implemented", skipped. */
typedef struct ahr_guest_callbacks {
    apphost_app_callbacks_t app;
    /* False for a guest without scene callbacks: its scene calls are all skipped. */
    bool has_scene;
    apphost_scene_callbacks_t scene;
    /* False for a guest without the scenes extension's callbacks (scenes.h):
     * its actions, sizes and discards reach no code of its, and its modals
     * are always dismissable. */
    bool has_scenes;
    apphost_guest_scenes_t scenes;
    /* False for a guest without the audio extension's callbacks (audio.h):
     * the host's audio calls update the session all the same, and reach no
     * code of its. */
    bool has_audio;
    apphost_guest_audio_t audio;
} ahr_guest_callbacks;

/* Takes the guest's tables from `query` (app, scene, scenes and audio
 * callbacks); false when it offers no app callbacks, which every guest must. */
bool ahr_callbacks_query(const void *(*query)(const char *interface_id), ahr_guest_callbacks *callbacks);

/* Calls the C callback for `call` (with `connection` for WILL_CONNECT);
 * returns its status, or APPHOST_OK for a void or missing one. */
int32_t ahr_callbacks_invoke(const ahr_guest_callbacks *callbacks, const ahr_call *call,
                             const apphost_scene_connection_t *connection);

/* True for the calls and scene callbacks this runtime knows. */
bool ahr_call_is_known(const ahr_call *call);

#endif
