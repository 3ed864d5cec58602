/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The scenes extension, "apphost.scenes/1" (ABI 1.1): several windows per
 * guest, opened and activated on request (CONTRACT S9, S10), their sizes
 * (S11), loading progress (N2), modal content (N3), user notifications (N1)
 * and the discarding of closed sessions (S7).
 *
 * It has two halves:
 * - what the host offers, apphost_scenes_t, from the host interface:
 *
 *       const apphost_scenes_t *scenes =
 *           host->get_extension(host, APPHOST_SCENES_EXTENSION_ID);
 *
 *   NULL means the host does not offer it. The table is owned by the host
 *   and valid until deinit returns;
 * - what the guest implements, apphost_guest_scenes_t, which the host takes
 *   from the guest's query(APPHOST_GUEST_SCENES_CALLBACKS_ID) after init. It
 *   is optional: a guest without it gets no actions, sizes, modal dismissals
 *   or discards, and the host treats its modals as always dismissable.
 *
 * Thread tags are those of host.h, and so is the rule for scene handles.
 * Every function tolerates a NULL host, NULL pointers, unknown handles and
 * out-of-range values: it returns an error code instead (CONTRACT X3). During
 * init and deinit no scene is connected: every function but scene_size
 * returns APPHOST_ERROR_INVALID_STATE for a scene other than 0. Check
 * struct_size before using a member that a later revision of this header
 * adds.
 *
 * The guest never learns how the host arranges its scenes (full screen,
 * split view, slide over, picture in picture): only each scene's size and
 * size class, which may change at any time while the scene is connected.
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_SCENES_H
#define APPHOST_SCENES_H

#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "scene.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define APPHOST_SCENES_EXTENSION_ID "apphost.scenes/1"
#define APPHOST_GUEST_SCENES_CALLBACKS_ID "apphost.guest.scenes/1"

/* How a requested scene is shown (CONTRACT S10). */
enum apphost_presentation_style {
    /* The host chooses. */
    APPHOST_PRESENTATION_AUTOMATIC = 0,
    /* Beside the requesting scene. */
    APPHOST_PRESENTATION_STANDARD = 1,
    /* Above every other scene, which stay visible but inactive until it
     * closes; the host always offers the user a way to close it. */
    APPHOST_PRESENTATION_PROMINENT = 2
};

/* A scene's size class (CONTRACT S11): compact below the host's width
 * threshold, regular from it on. */
enum apphost_size_class {
    APPHOST_SIZE_CLASS_COMPACT = 0,
    APPHOST_SIZE_CLASS_REGULAR = 1
};

/* A scene's size, in points of the host's virtual display. */
typedef struct apphost_scene_size {
    /* In did_change_size: sizeof(apphost_scene_size_t) as the host built it.
     * For scene_size: set by the caller to the size of its struct, at least
     * that of ABI 1.1 (16 bytes; smaller: APPHOST_ERROR_INVALID_ARGUMENT);
     * the host writes the members it has that fit, and sets it to what it
     * wrote. */
    uint32_t struct_size;
    uint32_t width;
    uint32_t height;
    /* One of enum apphost_size_class, from the width. */
    int32_t size_class;
} apphost_scene_size_t;

/* A modal presentation's id, unique within the guest. Zero is never valid:
 * APPHOST_MODAL_INVALID, a uint64_t without a cast, as background.h's ids. */
typedef uint64_t apphost_modal_t;
#ifdef __swift__
#define APPHOST_MODAL_INVALID 0ULL
#else
#define APPHOST_MODAL_INVALID UINT64_C(0)
#endif

/* How modal content covers its scene (CONTRACT N3). */
enum apphost_modal_style {
    APPHOST_MODAL_SHEET = 0,
    APPHOST_MODAL_FULL_SCREEN = 1
};

/* set_loading_progress values besides a fraction from 0 to 1. */
#define APPHOST_PROGRESS_INDETERMINATE (-1.0)
#define APPHOST_PROGRESS_NONE (-2.0)

/* The longest action name, modal title, notification title or notification
 * body the host keeps, in bytes; longer ones are cut at a character
 * boundary. */
enum { APPHOST_SCENES_TEXT_MAX_BYTES = 256 };
/* The largest action payload the host delivers, in bytes. */
enum { APPHOST_ACTION_PAYLOAD_MAX_BYTES = 64 * 1024 };

/* Since ABI 1.2: a user action's activation (CONTRACT S9), as a token the
 * guest may hold on to: it lets whoever presents it open one scene within
 * the activation window (5 s from the action's delivery by default). Zero is
 * never a valid token. */
typedef uint64_t apphost_activation_t;
#define APPHOST_ACTIVATION_INVALID UINT64_C(0)

/* Since ABI 1.8: a scene request the host has (CONTRACT S9), as
 * submit_scene_request gives out its id: unique within the guest's run,
 * counting from 1. Zero is never valid: APPHOST_REQUEST_INVALID. */
typedef uint64_t apphost_request_t;
#define APPHOST_REQUEST_INVALID UINT64_C(0)

/* Since ABI 1.8: why the host refused a scene request after accepting it
 * (did_refuse_request). More may come: treat an unknown one as a refusal. */
enum apphost_request_refusal {
    /* The host found no unspent activation of a user action on its own
     * account (CONTRACT S9). */
    APPHOST_REQUEST_REFUSED_NO_ACTIVATION = 1,
    /* The guest does not declare APPHOST_CAPABILITY_MULTIPLE_SCENES
     * (CONTRACT S13). */
    APPHOST_REQUEST_REFUSED_NOT_DECLARED = 2,
    /* The guest was suspended, or being suspended or resumed (CONTRACT B7). */
    APPHOST_REQUEST_REFUSED_SUSPENDED = 3,
    /* The guest asked too often (a limit as CONTRACT N1's); not used yet. */
    APPHOST_REQUEST_REFUSED_RATE_LIMITED = 4
};

/* Since ABI 1.8: a request for a new scene, as submit_scene_request takes
 * it. Set struct_size to sizeof(apphost_scene_request_t); later revisions
 * append members, which a host reads only when struct_size covers them. */
typedef struct apphost_scene_request {
    uint32_t struct_size;
    /* The activation to spend (CONTRACT S9); APPHOST_ACTIVATION_INVALID for
     * that of the user action whose perform_action is running on the
     * calling thread, as request_scene spends. */
    apphost_activation_t activation;
    /* The connected scene asking, beside which a standard scene opens. */
    apphost_scene_t from;
    /* enum apphost_scene_role and enum apphost_presentation_style. */
    int32_t role;
    int32_t style;
    /* The new session's saved state, `length` bytes, copied before
     * submit_scene_request returns; NULL only with length 0. */
    const void *state;
    size_t length;
} apphost_scene_request_t;

/* Since ABI 1.2: one of the guest's scene sessions, as list_sessions tells
 * it. The struct and the string it points to are owned by the host and valid
 * only during the visit: copy what you keep. */
typedef struct apphost_session_info {
    /* sizeof(apphost_session_info_t) as the host built it. */
    uint32_t struct_size;
    /* The session's persistent identifier, UTF-8 (CONTRACT S8). */
    const char *session_id;
    /* One of enum apphost_scene_role. */
    int32_t role;
    /* The handle of its connected scene, or APPHOST_SCENE_INVALID while it is
     * unattached (CONTRACT S6). */
    apphost_scene_t scene;
} apphost_session_info_t;

/* Since ABI 1.2: list_sessions calls it once for each session, with the
 * `context` given to list_sessions. */
typedef void (*apphost_session_visitor_t)(void *context, const apphost_session_info_t *session);

/* What the host offers. */
typedef struct apphost_scenes {
    /* sizeof(apphost_scenes_t) as the host built it. */
    uint32_t struct_size;

    /* [thread-safe] Asks for a new scene, of `role` (enum
     * apphost_scene_role), shown with `style` (enum
     * apphost_presentation_style); `from` is the connected scene asking,
     * beside which a standard scene opens. The new session starts with
     * `state` (`length` bytes, copied before returning; NULL only with
     * length 0) as its saved state, so that its will_connect restores it:
     * say there what the scene should show. This spends the activation of
     * the user action whose perform_action is running on the calling thread
     * (CONTRACT S9): called anywhere else (another callback, another thread,
     * after perform_action returned), it has none, and returns
     * APPHOST_ERROR_NO_ACTIVATION; work that outlives the callback uses
     * request_scene_with_activation. A guest whose descriptor does not declare
     * APPHOST_CAPABILITY_MULTIPLE_SCENES has one scene:
     * APPHOST_ERROR_NOT_DECLARED (ABI 1.2, CONTRACT S13). APPHOST_OK means
     * the host has the request: will_connect for the new scene follows on
     * the main queue, unless the host refuses it, which it reports in its
     * event stream and, since ABI 1.8, to did_refuse_request (with an id
     * only submit_scene_request tells). APPHOST_ERROR_INVALID_HANDLE for a `from` that is 0 or
     * not connected, APPHOST_ERROR_TOO_LARGE past
     * APPHOST_SCENE_STATE_MAX_BYTES. When several apply: a `from` of 0
     * first, then argument errors, then INVALID_STATE (init, deinit), then
     * NOT_DECLARED, then INVALID_HANDLE, then NO_ACTIVATION: so a request
     * made before any scene connects (in did_finish_launching) gets
     * INVALID_HANDLE. */
    apphost_status_t (*request_scene)(const apphost_host_t *host, apphost_scene_t from, int32_t role,
                                      int32_t style, const void *state, size_t length);

    /* [thread-safe] Asks the host to show the existing session
     * `session_id` (UTF-8, NUL-terminated, copied before returning) with
     * `style`, connecting it if it is unattached; with no requesting scene,
     * standard and automatic show it full screen, prominent above the others.
     * A session already shown stays where it is. It needs no activation and
     * consumes none (CONTRACT S9). APPHOST_OK means the host has the
     * request. Since ABI 1.2 a session the guest does not have (as
     * list_sessions would list them) is APPHOST_ERROR_INVALID_HANDLE at once;
     * before, the host refused it in its event stream only. An id longer
     * than 256 bytes: APPHOST_ERROR_INVALID_ARGUMENT. */
    apphost_status_t (*activate_session)(const apphost_host_t *host, const char *session_id, int32_t style);

    /* [main-queue] Writes the size of connected `scene`, as of the callback
     * being delivered, to *out_size; set out_size->struct_size first. A
     * scene that was never shown has width and height 0.
     * APPHOST_ERROR_INVALID_HANDLE for a scene that is not connected. */
    apphost_status_t (*scene_size)(const apphost_host_t *host, apphost_scene_t scene,
                                   apphost_scene_size_t *out_size);

    /* [thread-safe] Reports `scene`'s loading progress (CONTRACT N2): a
     * fraction from 0 to 1, APPHOST_PROGRESS_INDETERMINATE, or
     * APPHOST_PROGRESS_NONE when it has finished loading. Any other value:
     * APPHOST_ERROR_INVALID_ARGUMENT. */
    apphost_status_t (*set_loading_progress)(const apphost_host_t *host, apphost_scene_t scene, double progress);

    /* [thread-safe] Presents modal content over `scene` (CONTRACT N3) with
     * `style` (enum apphost_modal_style) and `title` (UTF-8, NUL-terminated,
     * not empty, copied before returning), on top of the scene's modal stack.
     * Writes its id to *out_modal, or APPHOST_MODAL_INVALID when it fails.
     * The user can always ask to dismiss it: the host asks
     * should_dismiss_modal first. */
    apphost_status_t (*present_modal)(const apphost_host_t *host, apphost_scene_t scene, int32_t style,
                                      const char *title, apphost_modal_t *out_modal);

    /* [thread-safe] Dismisses `modal` of `scene`, and every modal presented
     * above it, without asking. APPHOST_ERROR_INVALID_HANDLE for a modal
     * that is not presented. */
    apphost_status_t (*dismiss_modal)(const apphost_host_t *host, apphost_scene_t scene, apphost_modal_t modal);

    /* [thread-safe] Posts a user notification (CONTRACT N1): `title` (not
     * empty) and `body` (may be NULL), UTF-8, NUL-terminated, copied before
     * returning. APPHOST_OK means the host has it. The host limits how many
     * a guest may post in a while (CONTRACT N1): since ABI 1.2 one over the
     * limit is APPHOST_ERROR_LIMIT_REACHED at once (before, the host refused
     * it in its event stream only). Post sparingly. */
    apphost_status_t (*post_notification)(const apphost_host_t *host, const char *title, const char *body);

    /* ---- Since ABI 1.2: read these only when struct_size covers them. ---- */

    /* [main-queue] Writes the activation of the user action being delivered
     * to *out_activation: call it inside perform_action, and keep the token
     * for work that opens a scene later (CONTRACT S9). Outside
     * perform_action, or once its activation is spent or has run out:
     * APPHOST_ERROR_NO_ACTIVATION, and APPHOST_ACTIVATION_INVALID is
     * written. It spends nothing; the same token comes back on every call
     * within one perform_action. */
    apphost_status_t (*activation_token)(const apphost_host_t *host, apphost_activation_t *out_activation);

    /* [thread-safe] request_scene, spending `activation` instead of the
     * running action's: from any thread, any callback, as long as the token
     * is unspent and within its window (CONTRACT S9). A token already spent,
     * run out, or never handed out: APPHOST_ERROR_NO_ACTIVATION. Otherwise
     * as request_scene, in the same order of errors. */
    apphost_status_t (*request_scene_with_activation)(const apphost_host_t *host, apphost_activation_t activation,
                                                      apphost_scene_t from, int32_t role, int32_t style,
                                                      const void *state, size_t length);

    /* [thread-safe] Whether `activation` can still open a scene: APPHOST_OK
     * with the seconds left of its window in *out_seconds, or
     * APPHOST_ERROR_NO_ACTIVATION (and 0) for a token spent, run out or never
     * handed out. It spends nothing. */
    apphost_status_t (*activation_time_left)(const apphost_host_t *host, apphost_activation_t activation,
                                             double *out_seconds);

    /* [main-queue] Calls visit(context, session) once for each of the
     * guest's scene sessions, connected or not, in the order they first
     * connected, as of the callback being delivered: so that a guest can
     * activate_session or close_session one without keeping ids itself. It
     * calls back synchronously, on the calling thread, before returning, and
     * holds no lock meanwhile: visit may call any host function, but the
     * sessions it sees are those of the start of the call.
     * APPHOST_ERROR_INVALID_ARGUMENT for a NULL visit. */
    apphost_status_t (*list_sessions)(const apphost_host_t *host, apphost_session_visitor_t visit, void *context);

    /* [thread-safe] Closes the guest's own session `session_id` (UTF-8,
     * NUL-terminated, copied before returning) for good, as the user's close
     * does (CONTRACT S7): a shown scene goes to background, then
     * did_disconnect, then did_discard once its saved state is deleted, all
     * on the main queue after this returns. Needs no activation.
     * APPHOST_ERROR_INVALID_HANDLE for a session the guest does not have (or
     * has closed already), APPHOST_ERROR_INVALID_ARGUMENT for an id longer
     * than 256 bytes; APPHOST_ERROR_INVALID_STATE during init and deinit. */
    apphost_status_t (*close_session)(const apphost_host_t *host, const char *session_id);

    /* ---- Since ABI 1.3: read these only when struct_size covers them. ---- */

    /* [thread-safe] Names connected `scene` for people, as a window's title
     * names it in a switcher: the host shows `title` (UTF-8, NUL-terminated,
     * copied before returning, cut at APPHOST_SCENES_TEXT_MAX_BYTES on a
     * character boundary) wherever it lists the scene, until the guest sets
     * another or the scene disconnects. A scene has no title when it
     * connects: set it in will_connect. NULL or "" takes the title away.
     * APPHOST_ERROR_INVALID_HANDLE for a scene that is not connected;
     * APPHOST_ERROR_INVALID_STATE during init and deinit. */
    apphost_status_t (*set_scene_title)(const apphost_host_t *host, apphost_scene_t scene, const char *title);

    /* ---- Since ABI 1.8: read these only when struct_size covers them. ---- */

    /* [thread-safe] request_scene (request->activation
     * APPHOST_ACTIVATION_INVALID) or request_scene_with_activation (any
     * other), with the same checks, errors and order of errors, that also
     * writes the request's id to *out_request on APPHOST_OK, and
     * APPHOST_REQUEST_INVALID otherwise. The host may still refuse the
     * request it has: did_refuse_request then names this id (CONTRACT S9).
     * `request` is the caller's, read before returning. Before every other
     * check: a NULL request or out_request, or a request->struct_size smaller
     * than that of ABI 1.8, is APPHOST_ERROR_INVALID_ARGUMENT. */
    apphost_status_t (*submit_scene_request)(const apphost_host_t *host, const apphost_scene_request_t *request,
                                             apphost_request_t *out_request);
} apphost_scenes_t;

/* What the guest implements. The host calls each member on the guest's main
 * queue, one call at a time, among the scene callbacks of scene.h. A NULL
 * member, or one past struct_size, is skipped. */
typedef struct apphost_guest_scenes {
    /* sizeof(apphost_guest_scenes_t) as the guest was built. */
    uint32_t struct_size;

    /* [main-queue] `scene` has a new size (CONTRACT S11): after will_connect
     * of a scene that is shown, before will_enter_foreground, and whenever
     * the host rearranges the scenes. `size` is owned by the host and valid
     * only during the call. */
    void (*did_change_size)(apphost_scene_t scene, const apphost_scene_size_t *size);

    /* [main-queue] The user performed the action `name` (UTF-8,
     * NUL-terminated) on `scene`, with `payload` (`length` bytes; NULL when
     * there is none). Both are owned by the host and valid only during the
     * call. The action grants one activation (CONTRACT S9): request_scene
     * called here spends it; to open a scene later, take its token with
     * activation_token here and present it to request_scene_with_activation
     * within the window (5 s by default). */
    void (*perform_action)(apphost_scene_t scene, const char *name, const void *payload, size_t length);

    /* [main-queue] The user asks to dismiss `modal` of `scene`. Return
     * nonzero to let it go; return 0 to keep it, for instance to ask the user
     * to confirm discarding unsaved changes (CONTRACT N3). */
    int32_t (*should_dismiss_modal)(apphost_scene_t scene, apphost_modal_t modal);

    /* [main-queue] The host dismissed `modal` of `scene`, and with it every
     * modal above it, because the user asked and should_dismiss_modal let
     * it go. Not called for dismiss_modal's own dismissals. */
    void (*did_dismiss_modal)(apphost_scene_t scene, apphost_modal_t modal);

    /* [main-queue] The user closed the session `session_id` (UTF-8,
     * NUL-terminated, owned by the host, valid only during the call): it is
     * gone for good, with the state it saved (CONTRACT S7). Forget what you
     * kept for it. A guest that was not running when the user closed it
     * hears this after did_finish_launching at its next launch. */
    void (*did_discard)(const char *session_id);

    /* ---- Since ABI 1.8: called only when struct_size covers it. ---- */

    /* [main-queue] The host refused `request` after accepting it (CONTRACT
     * S9): no scene connects for it. `reason` is an enum
     * apphost_request_refusal. Called once for every scene request the host
     * refuses, those of request_scene and request_scene_with_activation
     * too, whose ids the guest never saw. */
    void (*did_refuse_request)(apphost_request_t request, int32_t reason);
} apphost_guest_scenes_t;

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_SCENES_H */
