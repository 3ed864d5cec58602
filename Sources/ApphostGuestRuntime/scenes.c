/*
 * The scenes extension: its state, the host's calls that feed it, and the
 * table of apphost_scenes_t (see scenes.h in the SDK for what each function
 * promises), whose functions live one concern a file (scene_parts.h lists
 * them). Each function finds its guest through the registry
 * (host_context.h), so that any argument at all gets an answer, never a
 * crash (CONTRACT X3).
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "scene_parts.h"

#include <stdlib.h>
#include <string.h>

#include "call_area.h"
#include "sized_struct.h"
#include "utf8_cut.h"

/* ---- State ---------------------------------------------------------------- */

void ahr_scenes_init(ahr_scenes *scenes, bool multiple_scenes)
{
    memset(scenes, 0, sizeof *scenes);
    pthread_mutex_init(&scenes->lock, NULL);
    scenes->multiple_scenes = multiple_scenes;
}

void ahr_scenes_destroy(ahr_scenes *scenes)
{
    free(scenes->posted);
    scenes->posted = NULL;
    ahr_scenes_free_modals(scenes);
    pthread_mutex_destroy(&scenes->lock);
}

void ahr_scenes_set_running(ahr_scenes *scenes, bool running)
{
    pthread_mutex_lock(&scenes->lock);
    scenes->running = running;
    pthread_mutex_unlock(&scenes->lock);
}

static bool is_running(ahr_scenes *scenes)
{
    bool running;

    pthread_mutex_lock(&scenes->lock);
    running = scenes->running;
    pthread_mutex_unlock(&scenes->lock);
    return running;
}

/* ---- The host's calls, on the main queue ---------------------------------- */

bool ahr_scenes_is_call(const ahr_call *call) { return ahr_call_area_of(call->kind) == AHR_AREA_SCENES; }

int32_t ahr_scenes_check_call(const ahr_call *call)
{
    switch (call->kind) {
    case AHR_CALL_SCENE_SIZE:
        return call->scene_size.size_class == APPHOST_SIZE_CLASS_COMPACT ||
                       call->scene_size.size_class == APPHOST_SIZE_CLASS_REGULAR
                   ? APPHOST_OK
                   : APPHOST_ERROR_INVALID_ARGUMENT;
    case AHR_CALL_PERFORM_ACTION:
        if ((call->perform_action.action_name == NULL && call->perform_action.action_name_length != 0) ||
            (call->perform_action.payload == NULL && call->perform_action.payload_length != 0) ||
            call->perform_action.activation == APPHOST_ACTIVATION_INVALID) {
            return APPHOST_ERROR_INVALID_ARGUMENT;
        }
        return call->perform_action.payload_length > APPHOST_ACTION_PAYLOAD_MAX_BYTES ? APPHOST_ERROR_TOO_LARGE
                                                                                      : APPHOST_OK;
    case AHR_CALL_DID_DISCARD:
        return call->did_discard.session_id == NULL && call->did_discard.session_id_length != 0
                   ? APPHOST_ERROR_INVALID_ARGUMENT
                   : APPHOST_OK;
    case AHR_CALL_NOTIFICATION_LIMIT:
        return call->notification_limit.notification_limit == 0 ||
                       call->notification_limit.notification_limit > AHR_NOTIFICATION_LIMIT_MAX
                   ? APPHOST_ERROR_INVALID_ARGUMENT
                   : APPHOST_OK;
    case AHR_CALL_SCENE_REQUEST_REFUSED:
        return call->scene_request_refused.id == APPHOST_REQUEST_INVALID ? APPHOST_ERROR_INVALID_ARGUMENT
                                                                         : APPHOST_OK;
    case AHR_CALL_SHOULD_DISMISS_MODAL:
    case AHR_CALL_DID_DISMISS_MODAL:
        /* Any modal: one that is not open is ahr_scenes_handle's to answer. */
        break;
    default:
        break;
    }
    return APPHOST_OK;
}

bool ahr_scenes_copy_session(const ahr_call *call, char **copy)
{
    char *session;

    *copy = NULL;
    if (call->kind != AHR_CALL_DID_DISCARD) {
        return true;
    }
    session = malloc(call->did_discard.session_id_length + 1);
    if (session == NULL) {
        return false;
    }
    if (call->did_discard.session_id_length > 0) {
        memcpy(session, call->did_discard.session_id, call->did_discard.session_id_length);
    }
    session[call->did_discard.session_id_length] = '\0';
    *copy = session;
    return true;
}

static int32_t change_size(ahr_state_mirror *mirror, const apphost_guest_scenes_t *callbacks, apphost_scene_t scene)
{
    apphost_scene_size_t size;

    memset(&size, 0, sizeof size);
    /* The mirror took the new size before this runs. */
    if (!ahr_mirror_scene_size(mirror, scene, &size)) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    size.struct_size = sizeof size;
    if (callbacks != NULL && callbacks->did_change_size != NULL) {
        callbacks->did_change_size(scene, &size);
    }
    return APPHOST_OK;
}

int32_t ahr_scenes_handle(ahr_scenes *scenes, ahr_state_mirror *mirror, const apphost_guest_scenes_t *callbacks,
                          const ahr_call *call, const char *session)
{
    switch (call->kind) {
    case AHR_CALL_SCENE_SIZE:
        return change_size(mirror, callbacks, call->scene_size.scene);
    case AHR_CALL_PERFORM_ACTION:
        return ahr_scenes_perform_action(scenes, mirror, callbacks, &call->perform_action);
    case AHR_CALL_SHOULD_DISMISS_MODAL:
        return ahr_scenes_should_dismiss_modal(scenes, callbacks, &call->should_dismiss_modal);
    case AHR_CALL_DID_DISMISS_MODAL:
        return ahr_scenes_did_dismiss_modal(scenes, mirror, callbacks, &call->did_dismiss_modal);
    case AHR_CALL_DID_DISCARD:
        if (callbacks != NULL && callbacks->did_discard != NULL) {
            callbacks->did_discard(session != NULL ? session : "");
        }
        return APPHOST_OK;
    case AHR_CALL_SCENE_REQUEST_REFUSED:
        return ahr_scenes_did_refuse_request(callbacks, &call->scene_request_refused);
    case AHR_CALL_NOTIFICATION_LIMIT:
        return ahr_scenes_set_notification_limit(scenes, call->notification_limit.notification_limit,
                                                 call->notification_limit.notification_window_ns);
    default:
        break;
    }
    return APPHOST_ERROR_INVALID_ARGUMENT;
}

/* ---- The guest's functions, from any thread ------------------------------- */

bool ahr_scenes_is_presentation_style(int32_t style)
{
    return style >= APPHOST_PRESENTATION_AUTOMATIC && style <= APPHOST_PRESENTATION_PROMINENT;
}

size_t ahr_scenes_text_length(const char *text)
{
    return ahr_utf8_prefix_length(text, strnlen(text, APPHOST_SCENES_TEXT_MAX_BYTES + 1),
                                  APPHOST_SCENES_TEXT_MAX_BYTES);
}

/* Runs request->body under the extension's lock, while the scene is known to
 * be connected (ahr_mirror_if_connected's callback). */
static void run_locked(void *argument)
{
    ahr_scene_request *request = argument;
    ahr_scenes *scenes = request->context->scenes;

    pthread_mutex_lock(&scenes->lock);
    request->status = scenes->running ? request->body(request, request->context) : APPHOST_ERROR_INVALID_STATE;
    pthread_mutex_unlock(&scenes->lock);
}

apphost_status_t ahr_scenes_on_connected(const apphost_host_t *host, ahr_scene_request *request, ahr_scene_body body,
                                         apphost_status_t refusal)
{
    ahr_host_context *context;
    apphost_status_t status;

    if (request->scene == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    context = ahr_registry_acquire(host);
    if (context == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    if (refusal != APPHOST_OK) {
        status = refusal;
    } else if (!is_running(context->scenes)) {
        status = APPHOST_ERROR_INVALID_STATE;
    } else if (request->opens_scene && !context->scenes->multiple_scenes) {
        status = APPHOST_ERROR_NOT_DECLARED;
    } else {
        request->context = context;
        request->body = body;
        request->status = APPHOST_ERROR_INTERNAL;
        status = ahr_mirror_if_connected(context->mirror, request->scene, run_locked, request, NULL)
                     ? request->status
                     : APPHOST_ERROR_INVALID_HANDLE;
    }
    ahr_registry_release(context);
    return status;
}

/* The apphost_scene_size_t of ABI 1.1, whose members every caller needs. */
enum { AHR_SCENE_SIZE_MIN_BYTES = 4 * sizeof(uint32_t) };

/*
 * The size is written as sized structs are read (sized_struct.h): the guest
 * says in out_size->struct_size how large its struct is, the runtime writes
 * the members of its own struct (never past the guest's), and sets
 * struct_size to the bytes it wrote, so that a guest built against a later,
 * larger struct learns which members are filled in. A struct_size smaller
 * than the struct of ABI 1.1: INVALID_ARGUMENT, nothing written.
 */
static apphost_status_t scene_size(const apphost_host_t *host, apphost_scene_t scene, apphost_scene_size_t *out_size)
{
    apphost_scene_size_t size;
    apphost_status_t status;
    uint32_t declared;

    if (scene == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    /* Every member the struct has had since ABI 1.1 is needed. */
    declared = ahr_declared_size(out_size, AHR_SCENE_SIZE_MIN_BYTES);
    if (declared == 0) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    memset(&size, 0, sizeof size);
    status = ahr_guest_call_on_main_queue(host, AHR_MAIN_QUEUE_SCENE_SIZE, "scene_size", AHR_LOCK_NONE,
                                          ahr_read_scene, &(ahr_scene_read){.scene = scene, .size = &size});
    if (status == APPHOST_OK) {
        ahr_write_sized_struct(out_size, declared, &size, sizeof size);
    }
    return status;
}

static const apphost_scenes_t extension = {
    sizeof(apphost_scenes_t),
    ahr_scenes_request_scene,
    ahr_scenes_activate_session,
    scene_size,
    ahr_scenes_set_loading_progress,
    ahr_scenes_present_modal,
    ahr_scenes_dismiss_modal,
    ahr_scenes_post_notification,
    ahr_scenes_activation_token,
    ahr_scenes_request_scene_with_activation,
    ahr_scenes_activation_time_left,
    ahr_scenes_list_sessions,
    ahr_scenes_close_session,
    ahr_scenes_set_scene_title,
    ahr_scenes_submit_scene_request,
};

const apphost_scenes_t *ahr_scenes_extension(void) { return &extension; }
