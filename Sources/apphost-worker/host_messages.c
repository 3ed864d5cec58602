#include "host_messages.h"

#include <stdlib.h>
#include <string.h>

#include "apphost_wire.h"
#include "worker_exit.h"

/* The runtime numbers calls as the wire does, so a decoded value is used as it is. */
_Static_assert((int)AHR_CALL_DID_FINISH_LAUNCHING == (int)APPHOST_WIRE_CALL_DID_FINISH_LAUNCHING &&
                   (int)AHR_CALL_WILL_TERMINATE == (int)APPHOST_WIRE_CALL_WILL_TERMINATE &&
                   (int)AHR_CALL_MEMORY_WARNING == (int)APPHOST_WIRE_CALL_MEMORY_WARNING &&
                   (int)AHR_CALL_WILL_CONNECT == (int)APPHOST_WIRE_CALL_WILL_CONNECT &&
                   (int)AHR_CALL_SCENE_CALLBACK == (int)APPHOST_WIRE_CALL_SCENE_CALLBACK &&
                   (int)AHR_CALL_EXPIRE_TASK == (int)APPHOST_WIRE_CALL_EXPIRE_TASK &&
                   (int)AHR_CALL_FIRE_TIMER == (int)APPHOST_WIRE_CALL_FIRE_TIMER &&
                   (int)AHR_CALL_RUN_WORK == (int)APPHOST_WIRE_CALL_RUN_WORK &&
                   (int)AHR_CALL_BACKGROUND_TIME == (int)APPHOST_WIRE_CALL_BACKGROUND_TIME &&
                   (int)AHR_CALL_SCENE_SIZE == (int)APPHOST_WIRE_CALL_SCENE_SIZE &&
                   (int)AHR_CALL_PERFORM_ACTION == (int)APPHOST_WIRE_CALL_PERFORM_ACTION &&
                   (int)AHR_CALL_SHOULD_DISMISS_MODAL == (int)APPHOST_WIRE_CALL_SHOULD_DISMISS_MODAL &&
                   (int)AHR_CALL_DID_DISMISS_MODAL == (int)APPHOST_WIRE_CALL_DID_DISMISS_MODAL &&
                   (int)AHR_CALL_DID_DISCARD == (int)APPHOST_WIRE_CALL_DID_DISCARD &&
                   (int)AHR_CALL_NOTIFICATION_LIMIT == (int)APPHOST_WIRE_CALL_NOTIFICATION_LIMIT &&
                   (int)AHR_CALL_SAVE_STATUS == (int)APPHOST_WIRE_CALL_SAVE_STATUS,
               "ahr_call_kind matches enum apphost_wire_call");
_Static_assert((int)AHR_SCENE_WILL_ENTER_FOREGROUND == (int)APPHOST_WIRE_SCENE_WILL_ENTER_FOREGROUND &&
                   (int)AHR_SCENE_DID_BECOME_ACTIVE == (int)APPHOST_WIRE_SCENE_DID_BECOME_ACTIVE &&
                   (int)AHR_SCENE_WILL_RESIGN_ACTIVE == (int)APPHOST_WIRE_SCENE_WILL_RESIGN_ACTIVE &&
                   (int)AHR_SCENE_DID_ENTER_BACKGROUND == (int)APPHOST_WIRE_SCENE_DID_ENTER_BACKGROUND &&
                   (int)AHR_SCENE_DID_DISCONNECT == (int)APPHOST_WIRE_SCENE_DID_DISCONNECT,
               "ahr_scene_callback matches enum apphost_wire_scene_callback");

bool decode_load(wire_frame frame, load_request *request)
{
    wire_cursor cursor = wire_cursor_make(frame.payload, frame.length);

    request->path = wire_read_bytes(&cursor);
    request->guests_directory = wire_read_bytes(&cursor);
    request->host_name = wire_read_bytes(&cursor);
    request->host_version = wire_read_bytes(&cursor);
    return wire_cursor_finished(&cursor);
}

bool decode_start(wire_frame frame, start_request *request)
{
    wire_cursor cursor = wire_cursor_make(frame.payload, frame.length);

    request->data_directory = wire_read_bytes(&cursor);
    return wire_cursor_finished(&cursor);
}

static bool read_connection(wire_cursor *cursor, ahr_call *call)
{
    wire_bytes session = wire_read_bytes(cursor);
    wire_bytes restoration;

    call->session_id = (const char *)session.bytes;
    call->session_id_length = session.length;
    call->role = wire_read_u8(cursor);
    call->initial_state = wire_read_u8(cursor);
    call->has_restoration = wire_read_optional_bytes(cursor, &restoration);
    call->restoration = restoration.bytes;
    call->restoration_length = restoration.length;
    return call->role <= APPHOST_SCENE_ROLE_AUXILIARY && call->initial_state <= APPHOST_SCENE_STATE_BACKGROUND;
}

/* BACKGROUND_TIME's "opt u64": absent is unlimited; the runtime's signed
 * nanoseconds hold any budget a host gives (292 years), so a larger one is
 * cut, not refused. */
static int64_t read_background_time(wire_cursor *cursor)
{
    uint64_t nanoseconds;

    if (!wire_read_bool(cursor)) {
        return AHR_BACKGROUND_TIME_UNLIMITED;
    }
    nanoseconds = wire_read_u64(cursor);
    return nanoseconds > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)nanoseconds;
}

/* PERFORM_ACTION's fields after the scene. An empty payload is NULL, as
 * ahr_handle hands it on. */
static void read_action(wire_cursor *cursor, ahr_call *call)
{
    wire_bytes name = wire_read_bytes(cursor);
    wire_bytes payload = wire_read_bytes(cursor);

    call->action_name = (const char *)name.bytes;
    call->action_name_length = name.length;
    call->payload = payload.length > 0 ? payload.bytes : NULL;
    call->payload_length = payload.length;
    call->activation_ns = wire_read_u64(cursor);
    call->activation = wire_read_u64(cursor);
}

/* The fields after the call's kind; false for a kind or value out of range. */
static bool read_call_body(wire_cursor *cursor, ahr_call *call)
{
    uint8_t callback;
    wire_bytes session;

    switch (call->kind) {
    case AHR_CALL_DID_FINISH_LAUNCHING:
    case AHR_CALL_WILL_TERMINATE:
    case AHR_CALL_MEMORY_WARNING:
        return true;
    case AHR_CALL_WILL_CONNECT:
        call->scene = wire_read_u64(cursor);
        return read_connection(cursor, call);
    case AHR_CALL_SCENE_CALLBACK:
        call->scene = wire_read_u64(cursor);
        callback = wire_read_u8(cursor);
        call->scene_callback = (ahr_scene_callback)callback;
        return callback >= APPHOST_WIRE_SCENE_WILL_ENTER_FOREGROUND && callback <= APPHOST_WIRE_SCENE_DID_DISCONNECT;
    case AHR_CALL_EXPIRE_TASK:
    case AHR_CALL_FIRE_TIMER:
    case AHR_CALL_RUN_WORK:
        call->id = wire_read_u64(cursor);
        return true;
    case AHR_CALL_BACKGROUND_TIME:
        call->background_time_ns = read_background_time(cursor);
        return true;
    case AHR_CALL_SCENE_SIZE:
        call->scene = wire_read_u64(cursor);
        call->width = wire_read_u32(cursor);
        call->height = wire_read_u32(cursor);
        call->size_class = wire_read_u8(cursor);
        return call->size_class <= APPHOST_SIZE_CLASS_REGULAR;
    case AHR_CALL_PERFORM_ACTION:
        call->scene = wire_read_u64(cursor);
        read_action(cursor, call);
        return true;
    case AHR_CALL_SHOULD_DISMISS_MODAL:
    case AHR_CALL_DID_DISMISS_MODAL:
        call->scene = wire_read_u64(cursor);
        call->modal = wire_read_u64(cursor);
        return true;
    case AHR_CALL_DID_DISCARD:
        session = wire_read_bytes(cursor);
        call->session_id = (const char *)session.bytes;
        call->session_id_length = session.length;
        return true;
    case AHR_CALL_NOTIFICATION_LIMIT:
        call->notification_limit = wire_read_u32(cursor);
        call->notification_window_ns = wire_read_u64(cursor);
        return true;
    case AHR_CALL_SAVE_STATUS:
        call->scene = wire_read_u64(cursor);
        call->save_failed = wire_read_bool(cursor);
        return true;
    }
    return false;
}

bool decode_call(wire_frame frame, call_request *request)
{
    wire_cursor cursor = wire_cursor_make(frame.payload, frame.length);
    ahr_call *call = &request->call;
    uint8_t kind;

    memset(request, 0, sizeof *request);
    request->sequence = wire_read_u64(&cursor);
    call->app_state = wire_read_u8(&cursor);
    call->has_scene_state = wire_read_bool(&cursor);
    call->scene_state = wire_read_u8(&cursor);
    kind = wire_read_u8(&cursor);
    if (kind < APPHOST_WIRE_CALL_DID_FINISH_LAUNCHING || kind > APPHOST_WIRE_CALL_SAVE_STATUS) {
        return false;
    }
    call->kind = (ahr_call_kind)kind;
    return read_call_body(&cursor, call) && wire_cursor_finished(&cursor) &&
           call->app_state <= APPHOST_APP_STATE_SUSPENDED && call->scene_state <= APPHOST_SCENE_STATE_BACKGROUND;
}

bool decode_stop(wire_frame frame) { return frame.length == 0; }

char *copy_c_string(wire_bytes text)
{
    char *copy;

    if (text.length > 0 && memchr(text.bytes, '\0', text.length) != NULL) {
        return NULL;
    }
    copy = malloc(text.length + 1);
    if (copy == NULL) {
        worker_fail(WORKER_EXIT_FAILURE, "out of memory");
    }
    if (text.length > 0) {
        memcpy(copy, text.bytes, text.length);
    }
    copy[text.length] = '\0';
    return copy;
}
