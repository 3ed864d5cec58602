#include "guest_callbacks.h"

#include <stdalign.h>
#include <string.h>

#include "sized_struct.h"

typedef void (*scene_function)(apphost_scene_t scene);

bool ahr_callbacks_query(const void *(*query)(const char *interface_id), ahr_guest_callbacks *callbacks)
{
    const void *app = query(APPHOST_GUEST_APP_CALLBACKS_ID);
    const void *scene;
    const void *scenes;
    const void *audio;

    memset(callbacks, 0, sizeof *callbacks);
    if (app == NULL) {
        return false;
    }
    ahr_copy_sized_struct(&callbacks->app, sizeof callbacks->app, alignof(apphost_app_callbacks_t), app);
    scene = query(APPHOST_GUEST_SCENE_CALLBACKS_ID);
    callbacks->has_scene = scene != NULL;
    if (callbacks->has_scene) {
        ahr_copy_sized_struct(&callbacks->scene, sizeof callbacks->scene, alignof(apphost_scene_callbacks_t),
                              scene);
    }
    scenes = query(APPHOST_GUEST_SCENES_CALLBACKS_ID);
    callbacks->has_scenes = scenes != NULL;
    if (callbacks->has_scenes) {
        ahr_copy_sized_struct(&callbacks->scenes, sizeof callbacks->scenes, alignof(apphost_guest_scenes_t), scenes);
    }
    audio = query(APPHOST_GUEST_AUDIO_CALLBACKS_ID);
    callbacks->has_audio = audio != NULL;
    if (callbacks->has_audio) {
        ahr_copy_sized_struct(&callbacks->audio, sizeof callbacks->audio, alignof(apphost_guest_audio_t), audio);
    }
    return true;
}

static scene_function scene_member(const apphost_scene_callbacks_t *scene, ahr_scene_callback callback)
{
    switch (callback) {
    case AHR_SCENE_WILL_ENTER_FOREGROUND:
        return scene->will_enter_foreground;
    case AHR_SCENE_DID_BECOME_ACTIVE:
        return scene->did_become_active;
    case AHR_SCENE_WILL_RESIGN_ACTIVE:
        return scene->will_resign_active;
    case AHR_SCENE_DID_ENTER_BACKGROUND:
        return scene->did_enter_background;
    case AHR_SCENE_DID_DISCONNECT:
        return scene->did_disconnect;
    }
    return NULL;
}

int32_t ahr_callbacks_invoke(const ahr_guest_callbacks *callbacks, const ahr_call *call,
                             const apphost_scene_connection_t *connection)
{
    const apphost_app_callbacks_t *app = &callbacks->app;
    const apphost_scene_callbacks_t *scene = callbacks->has_scene ? &callbacks->scene : NULL;
    scene_function function;

    switch (call->kind) {
    case AHR_CALL_DID_FINISH_LAUNCHING:
        return app->did_finish_launching != NULL ? app->did_finish_launching() : APPHOST_OK;
    case AHR_CALL_WILL_TERMINATE:
        if (app->will_terminate != NULL) {
            app->will_terminate();
        }
        break;
    case AHR_CALL_MEMORY_WARNING:
        if (app->did_receive_memory_warning != NULL) {
            app->did_receive_memory_warning();
        }
        break;
    case AHR_CALL_WILL_CONNECT:
        if (scene != NULL && scene->will_connect != NULL) {
            scene->will_connect(connection);
        }
        break;
    case AHR_CALL_SCENE_CALLBACK:
        function = scene != NULL ? scene_member(scene, call->scene_callback.scene_callback) : NULL;
        if (function != NULL) {
            function(call->scene_callback.scene);
        }
        break;
    default:
        /* The runtime hands the other areas' calls to their own files
         * (call_area.h), and answers SAVE_STATUS itself. */
        break;
    }
    return APPHOST_OK;
}
