/*
 * What the files of the scenes extension share. scenes.c holds the
 * extension's state, the host's calls and its table; each other file is one
 * concern of it: scene_requests.c (requests for a scene and the activations
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

/* A style of enum apphost_presentation_style. */
bool ahr_scenes_is_presentation_style(int32_t style);

/* A guest's text of at most APPHOST_SCENES_TEXT_MAX_BYTES, cut at a
 * character boundary; strnlen, so a longer one is never read past the
 * limit. */
size_t ahr_scenes_text_length(const char *text);

/* ---- scene_requests.c ---- */

/* [main-queue] PERFORM_ACTION: grants its activation, then runs the guest's
 * perform_action. */
int32_t ahr_scenes_perform_action(ahr_scenes *scenes, ahr_state_mirror *mirror,
                                  const apphost_guest_scenes_t *callbacks, const ahr_call_perform_action *call);
apphost_status_t ahr_scenes_submit_scene_request(const apphost_host_t *host, const apphost_scene_request_t *request,
                                                apphost_request_t *out_request);
/* SCENE_REQUEST_REFUSED: did_refuse_request, for a guest whose callbacks
 * have it. */
int32_t ahr_scenes_did_refuse_request(const apphost_guest_scenes_t *callbacks,
                                      const ahr_call_scene_request_refused *call);
apphost_status_t ahr_scenes_request_scene(const apphost_host_t *host, apphost_scene_t from, int32_t role,
                                          int32_t style, const void *state, size_t length);
apphost_status_t ahr_scenes_request_scene_with_activation(const apphost_host_t *host, apphost_activation_t activation,
                                                          apphost_scene_t from, int32_t role, int32_t style,
                                                          const void *state, size_t length);
apphost_status_t ahr_scenes_activation_token(const apphost_host_t *host, apphost_activation_t *out_activation);
apphost_status_t ahr_scenes_activation_time_left(const apphost_host_t *host, apphost_activation_t activation,
                                                 double *out_seconds);

/* ---- scene_modals.c ---- */

/* Frees every modal stack and the array that holds them. */
void ahr_scenes_free_modals(ahr_scenes *scenes);
/* [main-queue] SHOULD_DISMISS_MODAL and DID_DISMISS_MODAL. */
int32_t ahr_scenes_should_dismiss_modal(ahr_scenes *scenes, const apphost_guest_scenes_t *callbacks,
                                        const ahr_call_should_dismiss_modal *call);
int32_t ahr_scenes_did_dismiss_modal(ahr_scenes *scenes, ahr_state_mirror *mirror,
                                     const apphost_guest_scenes_t *callbacks, const ahr_call_did_dismiss_modal *call);
apphost_status_t ahr_scenes_present_modal(const apphost_host_t *host, apphost_scene_t scene, int32_t style,
                                          const char *title, apphost_modal_t *out_modal);
apphost_status_t ahr_scenes_dismiss_modal(const apphost_host_t *host, apphost_scene_t scene, apphost_modal_t modal);

/* ---- scene_notifications.c ---- */

/* [main-queue] NOTIFICATION_LIMIT. */
int32_t ahr_scenes_set_notification_limit(ahr_scenes *scenes, uint32_t limit, uint64_t window_ns);
apphost_status_t ahr_scenes_post_notification(const apphost_host_t *host, const char *title, const char *body);

/* ---- scene_titles.c ---- */

apphost_status_t ahr_scenes_set_loading_progress(const apphost_host_t *host, apphost_scene_t scene, double progress);
apphost_status_t ahr_scenes_set_scene_title(const apphost_host_t *host, apphost_scene_t scene, const char *title);

/* ---- scene_sessions.c ---- */

apphost_status_t ahr_scenes_activate_session(const apphost_host_t *host, const char *session_id, int32_t style);
apphost_status_t ahr_scenes_close_session(const apphost_host_t *host, const char *session_id);
apphost_status_t ahr_scenes_list_sessions(const apphost_host_t *host, apphost_session_visitor_t visit, void *context);

#endif
