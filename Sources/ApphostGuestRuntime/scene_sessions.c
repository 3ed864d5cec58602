/*
 * The guest's own sessions, as the host keeps them (session_list.h):
 * activate_session and close_session ask the host to bring one forward or
 * to close it, list_sessions visits them. Apart from scenes.c because they
 * work on the session list, not on a connected scene.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include "scene_parts.h"

#include <string.h>

/* What to do with one of the guest's own sessions, under the extension's
 * lock: tell the reporter of an activation (with a style) or a close. */
typedef struct own_session_request {
    const char *session_id;
    size_t length;
    ahr_report_kind kind;
    int32_t style;
} own_session_request;

static apphost_status_t own_session_locked(ahr_host_context *context, void *argument)
{
    own_session_request *request = argument;

    if (!ahr_sessions_contains(context->sessions, request->session_id, request->length)) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    if (request->kind == AHR_REPORT_SESSION_ACTIVATION_REQUESTED) {
        ahr_report_send(context, &(ahr_report){.kind = request->kind,
                                               .session_activation_requested = {.text = request->session_id,
                                                                                .text_length = request->length,
                                                                                .style = request->style}});
    } else {
        ahr_report_send(context, &(ahr_report){.kind = request->kind,
                                               .session_close_requested = {.text = request->session_id,
                                                                           .text_length = request->length}});
    }
    return APPHOST_OK;
}

/* activate_session and close_session: APPHOST_ERROR_INVALID_ARGUMENT for an
 * empty id, one past AHR_SESSION_ID_MAX_BYTES (strnlen: never read past the
 * limit) or a host the registry does not know; APPHOST_ERROR_INVALID_STATE
 * while the extension does not run; APPHOST_ERROR_INVALID_HANDLE for a
 * session the guest does not have. */
static apphost_status_t on_own_session(const apphost_host_t *host, const char *session_id, ahr_report_kind kind,
                                       int32_t style)
{
    size_t length;

    if (session_id == NULL || session_id[0] == '\0') {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    length = strnlen(session_id, AHR_SESSION_ID_MAX_BYTES + 1);
    if (length > AHR_SESSION_ID_MAX_BYTES) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return ahr_guest_call_running(host, AHR_LOCK_SCENES, own_session_locked,
                                  &(own_session_request){session_id, length, kind, style});
}

apphost_status_t ahr_scenes_activate_session(const apphost_host_t *host, const char *session_id, int32_t style)
{
    if (!ahr_scenes_is_presentation_style(style)) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return on_own_session(host, session_id, AHR_REPORT_SESSION_ACTIVATION_REQUESTED, style);
}

apphost_status_t ahr_scenes_close_session(const apphost_host_t *host, const char *session_id)
{
    return on_own_session(host, session_id, AHR_REPORT_SESSION_CLOSE_REQUESTED, 0);
}

int32_t ahr_scenes_check_did_discard(const ahr_call_did_discard *call)
{
    return call->session_id == NULL && call->session_id_length != 0 ? APPHOST_ERROR_INVALID_ARGUMENT : APPHOST_OK;
}

/* DID_DISCARD: the host closed one of the guest's sessions for good (after
 * close_session, or on its own): did_discard with its id, NUL-terminated. */
int32_t ahr_scenes_deliver_did_discard(const ahr_scenes_delivery *delivery, const ahr_call_did_discard *call)
{
    (void)call;
    if (delivery->callbacks != NULL && delivery->callbacks->did_discard != NULL) {
        delivery->callbacks->did_discard(delivery->session != NULL ? delivery->session : "");
    }
    return APPHOST_OK;
}

/* list_sessions's copy of the guest's sessions. */
typedef struct session_copy {
    ahr_session_entry *entries;
    size_t count;
} session_copy;

static apphost_status_t copy_sessions(ahr_host_context *context, void *argument)
{
    session_copy *copy = argument;

    return ahr_sessions_copy(context->sessions, &copy->entries, &copy->count) ? APPHOST_OK
                                                                              : APPHOST_ERROR_OUT_OF_MEMORY;
}

apphost_status_t ahr_scenes_list_sessions(const apphost_host_t *host, apphost_session_visitor_t visit, void *context)
{
    session_copy copy;
    apphost_session_info_t info;
    apphost_status_t status;
    size_t i;

    if (visit == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    /* A copy, so that no lock is held while the guest's visit runs. */
    status = ahr_guest_call_on_main_queue(host, AHR_MAIN_QUEUE_LIST_SESSIONS, "list_sessions", AHR_LOCK_NONE,
                                          copy_sessions, &copy);
    if (status != APPHOST_OK) {
        return status;
    }
    for (i = 0; i < copy.count; i++) {
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        info.session_id = copy.entries[i].id;
        info.role = copy.entries[i].role;
        info.scene = copy.entries[i].scene;
        visit(context, &info);
    }
    ahr_sessions_free_copy(copy.entries, copy.count);
    return APPHOST_OK;
}
