/*
 * What the files of the scenes extension share. scenes.c holds the
 * extension's state, the switches that hand the host's calls to their
 * files (made from apphost_messages.h's table) and the table of its
 * functions; each other file is one concern of it, the host's calls of that
 * concern included: scene_requests.c (requests for a scene and the activations
 * they spend, CONTRACT S9 and S13), scene_modals.c (modals, N3),
 * scene_notifications.c (notifications and their limit, N1),
 * scene_titles.c (a scene's title and loading progress) and
 * scene_sessions.c (the guest's own sessions: activating, closing,
 * listing). Internal to the runtime; scenes.h says what the lock covers.
 */
#ifndef AHR_SCENE_PARTS_H
#define AHR_SCENE_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "call_area.h"
#include "host_context.h"
#include "scenes.h"

/* Where a position is not found. */
#define AHR_SCENES_NOT_FOUND ((size_t)-1)

/* One request about a scene, carried out under the mirror's lock while the
 * scene is known to be connected (scenes.h). */
typedef struct ahr_scene_request ahr_scene_request;

/* What a function does once its scene is known connected, under the
 * extension's lock, while it runs; returns the function's status. */
typedef apphost_status_t (*ahr_scene_body)(ahr_scene_request *request, ahr_host_context *context);

struct ahr_scene_request {
    ahr_host_context *context;
    ahr_scene_body body;
    apphost_scene_t scene;
    int32_t role;
    int32_t style;
    const void *bytes;
    size_t length;
    double progress;
    apphost_modal_t modal;
    apphost_modal_t *out_modal;
    /* request_scene spends the activation of the action running on the
     * calling thread; request_scene_with_activation the token it presents. */
    bool of_running_action;
    apphost_activation_t activation;
    /* request_scene's: where the id of the request goes, when not NULL. */
    apphost_request_t *out_request;
    /* A request for another scene: refused unless the guest declares
     * APPHOST_CAPABILITY_MULTIPLE_SCENES (CONTRACT S13). */
    bool opens_scene;
    apphost_status_t status;
};

/*
 * Runs `body` on `request` while its scene is connected, for the guest of
 * `host`, and returns its status. Before that: APPHOST_ERROR_INVALID_HANDLE
 * for scene 0 (before any other check, as every function does: a caller
 * that reads the guest's memory for its checks answers scene 0 itself
 * first), APPHOST_ERROR_INVALID_ARGUMENT for a host the registry does not
 * know, `refusal` (the caller's own checks) when it is not APPHOST_OK,
 * APPHOST_ERROR_INVALID_STATE while the extension does not run (init,
 * deinit), APPHOST_ERROR_NOT_DECLARED for a request that opens a scene of a
 * guest that declares one scene only, and APPHOST_ERROR_INVALID_HANDLE when
 * the scene is not connected.
 */
apphost_status_t ahr_scenes_on_connected(const apphost_host_t *host, ahr_scene_request *request, ahr_scene_body body,
                                         apphost_status_t refusal);

/* What a scenes call's handler works on (ahr_scenes_handle's arguments). */
typedef struct ahr_scenes_delivery {
    ahr_scenes *scenes;
    ahr_state_mirror *mirror;
    /* The guest's table; NULL when it has none. */
    const apphost_guest_scenes_t *callbacks;
    /* DID_DISCARD's session id, NUL-terminated (ahr_scenes_copy_session). */
    const char *session;
} ahr_scenes_delivery;

/*
 * Each call of apphost_messages.h's table whose AREA is SCENES has, beside
 * the functions of its concern (in whichever file below):
 * - ahr_scenes_check_<name>(call): its arguments' checks, before anything
 *   changes (ahr_scenes_check_call): APPHOST_OK, or the status ahr_handle
 *   returns without delivering it;
 * - ahr_scenes_deliver_<name>(delivery, call): [main-queue] its delivery, once the
 *   mirror has followed it (ahr_scenes_handle), which runs the guest's
 *   function without any lock held.
 * Both are declared here from the table, and scenes.c's switches call them:
 * a new scenes call adds its entry and these two functions, nothing else.
 */
#define AHR_SCENES_CALL_FUNCTIONS(number, NAME, name, area, ...)                                           \
    AHR_IN_AREA(SCENES, area, int32_t ahr_scenes_check_##name(const ahr_call_##name *call);                \
                int32_t ahr_scenes_deliver_##name(const ahr_scenes_delivery *delivery, const ahr_call_##name *call);)
APPHOST_MESSAGES_CALLS(AHR_SCENES_CALL_FUNCTIONS, AHR_AREA_IGNORE, AHR_AREA_IGNORE, AHR_AREA_IGNORE)

/* A style of enum apphost_presentation_style. */
bool ahr_scenes_is_presentation_style(int32_t style);

/* A guest's text of at most APPHOST_SCENES_TEXT_MAX_BYTES, cut at a
 * character boundary; strnlen, so a longer one is never read past the
 * limit. */
size_t ahr_scenes_text_length(const char *text);

/*
 * The functions of apphost_scenes_t (the SDK's scenes.h), in the order of
 * its members: each is ahr_scenes_<member>, of the member's own type,
 * defined in the file of its concern (scene_requests.c: request_scene,
 * request_scene_with_activation, submit_scene_request, activation_token,
 * activation_time_left; scene_modals.c: present_modal, dismiss_modal;
 * scene_notifications.c: post_notification; scene_titles.c:
 * set_loading_progress, set_scene_title; scene_sessions.c:
 * activate_session, close_session, list_sessions; scenes.c: scene_size).
 * scenes.c's table is made of this list: a new function is its line here
 * and its definition.
 */
#define AHR_SCENES_FUNCTIONS(X)                                                                             \
    X(request_scene) X(activate_session) X(scene_size) X(set_loading_progress) X(present_modal)              \
    X(dismiss_modal) X(post_notification) X(activation_token) X(request_scene_with_activation)             \
    X(activation_time_left) X(list_sessions) X(close_session) X(set_scene_title) X(submit_scene_request)
#define AHR_SCENES_DECLARE_FUNCTION(member) extern __typeof__(*((apphost_scenes_t *)0)->member) ahr_scenes_##member;
AHR_SCENES_FUNCTIONS(AHR_SCENES_DECLARE_FUNCTION)

/* Frees every modal stack and the array that holds them (scene_modals.c). */
void ahr_scenes_free_modals(ahr_scenes *scenes);

#endif
