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

/* Each scenes call's checks and delivery (scene_parts.h), by the table. */
#define SCENES_CHECK_CASE(number, NAME, name, area, ...) \
    AHR_IN_AREA(SCENES, area, case AHR_CALL_##NAME : return ahr_scenes_check_##name(&call->name);)
#define SCENES_HANDLE_CASE(number, NAME, name, area, ...) \
    AHR_IN_AREA(SCENES, area, case AHR_CALL_##NAME : return ahr_scenes_deliver_##name(&delivery, &call->name);)

int32_t ahr_scenes_check_call(const ahr_call *call)
{
    switch (call->kind) {
        APPHOST_MESSAGES_CALLS(SCENES_CHECK_CASE, AHR_AREA_IGNORE, AHR_AREA_IGNORE, AHR_AREA_IGNORE)
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

int32_t ahr_scenes_handle(ahr_scenes *scenes, ahr_state_mirror *mirror, const apphost_guest_scenes_t *callbacks,
                          const ahr_call *call, const char *session)
{
    const ahr_scenes_delivery delivery = {scenes, mirror, callbacks, session};

    switch (call->kind) {
        APPHOST_MESSAGES_CALLS(SCENES_HANDLE_CASE, AHR_AREA_IGNORE, AHR_AREA_IGNORE, AHR_AREA_IGNORE)
    default:
        break;
    }
    return APPHOST_ERROR_INVALID_ARGUMENT;
}

int32_t ahr_scenes_check_scene_size(const ahr_call_scene_size *call)
{
    return call->size_class == APPHOST_SIZE_CLASS_COMPACT || call->size_class == APPHOST_SIZE_CLASS_REGULAR
               ? APPHOST_OK
               : APPHOST_ERROR_INVALID_ARGUMENT;
}

/* SCENE_SIZE: the mirror took the new size before this runs. */
int32_t ahr_scenes_deliver_scene_size(const ahr_scenes_delivery *delivery, const ahr_call_scene_size *call)
{
    apphost_scene_size_t size;

    memset(&size, 0, sizeof size);
    if (!ahr_mirror_scene_size(delivery->mirror, call->scene, &size)) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    size.struct_size = sizeof size;
    if (delivery->callbacks != NULL && delivery->callbacks->did_change_size != NULL) {
        delivery->callbacks->did_change_size(call->scene, &size);
    }
    return APPHOST_OK;
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
apphost_status_t ahr_scenes_scene_size(const apphost_host_t *host, apphost_scene_t scene, apphost_scene_size_t *out_size)
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

#define AHR_SCENES_MEMBER(member) ahr_scenes_##member,
static const apphost_scenes_t extension = {sizeof(apphost_scenes_t), AHR_SCENES_FUNCTIONS(AHR_SCENES_MEMBER)};

const apphost_scenes_t *ahr_scenes_extension(void) { return &extension; }
