/*
 * The catalogue: the walk of every message of apphost_messages.h's table.
 * wire_encode and wire_decode both walk these descriptions (wire_io.h), so a
 * message is encoded and decoded alike on both sides. The calls' and the
 * reports' walks are made from the table's field lists (F(member, kind):
 * WIRE_FIELD_<kind> below), each a case of one switch, as if written by
 * hand; a kind that checks more than its type (an id that is never 0, an
 * enum's range, a limit, descriptors, an action's values) is a macro or a
 * function here. The conversation's frames (LOAD to STOP, HELLO to STOPPED)
 * keep walks written by hand: each has a body of its own in wire_message's
 * union (wire_load, ahr_raw_descriptor...), which the table does not
 * describe; a call's or report's walk takes its own type (ahr_call_<name>,
 * ahr_report_<name>, the table's fields).
 */
#include <stdio.h>
#include <string.h>

#include "apphost_wire.h"
#include "wire_io.h"
#include "wire_messages.h"

/* The runtime numbers scene callbacks as the wire does, so a decoded value
 * is used as it is. (Calls and reports need no such check: the runtime's
 * kinds and the wire's numbers are both made from apphost_messages.h.) */
_Static_assert((int)AHR_SCENE_WILL_ENTER_FOREGROUND == (int)APPHOST_WIRE_SCENE_WILL_ENTER_FOREGROUND &&
                   (int)AHR_SCENE_DID_BECOME_ACTIVE == (int)APPHOST_WIRE_SCENE_DID_BECOME_ACTIVE &&
                   (int)AHR_SCENE_WILL_RESIGN_ACTIVE == (int)APPHOST_WIRE_SCENE_WILL_RESIGN_ACTIVE &&
                   (int)AHR_SCENE_DID_ENTER_BACKGROUND == (int)APPHOST_WIRE_SCENE_DID_ENTER_BACKGROUND &&
                   (int)AHR_SCENE_DID_DISCONNECT == (int)APPHOST_WIRE_SCENE_DID_DISCONNECT,
               "ahr_scene_callback matches enum apphost_wire_scene_callback");


/* Every option bit audio.h names. */
#define AUDIO_OPTIONS_ALL                                                                                      \
    (APPHOST_AUDIO_OPTION_MIX_WITH_OTHERS | APPHOST_AUDIO_OPTION_DUCK_OTHERS |                                 \
     APPHOST_AUDIO_OPTION_INTERRUPT_SPOKEN_AUDIO_AND_MIX_WITH_OTHERS | APPHOST_AUDIO_OPTION_DEFAULT_TO_SPEAKER)

/* ---- Host to worker -------------------------------------------------------- */

static void walk_load(wire_io *io, wire_load *load)
{
    wire_io_wire_bytes(io, &load->path);
    wire_io_wire_bytes(io, &load->guests_directory);
    wire_io_wire_bytes(io, &load->host_name);
    wire_io_wire_bytes(io, &load->host_version);
}

static void walk_start(wire_io *io, wire_start *start) { wire_io_wire_bytes(io, &start->data_directory); }

/* The kinds of fields apphost_messages.h's table names: WIRE_FIELD_<kind>(io,
 * message, member) walks `member` of `message`, a pointer to the call's or
 * report's own type (ahr_call_<name>, ahr_report_<name>), whose members
 * APPHOST_FIELD_<kind> declared. A kind that checks more than its type
 * does, or walks more than one member, is a function below. */
#define WIRE_FIELD_u32(io, message, member) wire_io_u32(io, &(message)->member)
#define WIRE_FIELD_u64(io, message, member) wire_io_u64(io, &(message)->member)
#define WIRE_FIELD_bool(io, message, member) wire_io_bool(io, &(message)->member)
#define WIRE_FIELD_text(io, message, member) wire_io_text(io, &(message)->member, &(message)->member##_length)
#define WIRE_FIELD_fd(io, message, member) wire_io_fd(io, &(message)->member)
#define WIRE_FIELD_scene_role(io, message, member)                                                          \
    wire_io_enum(io, &(message)->member, APPHOST_SCENE_ROLE_PRIMARY, APPHOST_SCENE_ROLE_AUXILIARY, "scene role")

/* ---- Host to worker: the calls --------------------------------------------- */

#define WIRE_FIELD_initial_state(io, call, member)                                                          \
    wire_io_enum(io, &(call)->member, APPHOST_SCENE_STATE_UNATTACHED, APPHOST_SCENE_STATE_BACKGROUND,        \
                 "initial state")
#define WIRE_FIELD_restoration(io, call, member)                                                            \
    walk_restoration(io, &(call)->has_##member, &(call)->member, &(call)->member##_length)
#define WIRE_FIELD_scene_callback(io, call, member) walk_scene_callback(io, &(call)->member)
#define WIRE_FIELD_background_time(io, call, member) walk_background_time(io, &(call)->member)
#define WIRE_FIELD_size_class(io, call, member)                                                             \
    wire_io_enum(io, &(call)->member, APPHOST_SIZE_CLASS_COMPACT, APPHOST_SIZE_CLASS_REGULAR, "size class")
#define WIRE_FIELD_action_name(io, call, member) walk_action_name(io, &(call)->member, &(call)->member##_length)
#define WIRE_FIELD_action_payload(io, call, member)                                                         \
    walk_action_payload(io, &(call)->member, &(call)->member##_length)
#define WIRE_FIELD_audio_format(io, call, member)                                                           \
    walk_format(io, &(call)->member, &(call)->period_frames, &(call)->channel_count)
#define WIRE_FIELD_audio_output(io, call, member)                                                           \
    wire_io_enum(io, &(call)->member, APPHOST_AUDIO_OUTPUT_NONE, APPHOST_AUDIO_OUTPUT_LINE_OUT, "audio output")
#define WIRE_FIELD_audio_input(io, call, member)                                                            \
    wire_io_enum(io, &(call)->member, APPHOST_AUDIO_INPUT_NONE, APPHOST_AUDIO_INPUT_LINE_IN, "audio input")
#define WIRE_FIELD_audio_request_id(io, message, member) wire_io_id(io, &(message)->member, "audio request")
#define WIRE_FIELD_activation_result(io, call, member)                                                      \
    wire_io_enum(io, &(call)->member, APPHOST_AUDIO_ACTIVATED, APPHOST_AUDIO_REFUSED_NOT_RUNNING,            \
                 "activation result")
#define WIRE_FIELD_interruption_reason(io, call, member)                                                    \
    wire_io_enum(io, &(call)->member, APPHOST_AUDIO_INTERRUPTION_OTHER_SESSION,                             \
                 APPHOST_AUDIO_INTERRUPTION_SUSPENDED, "interruption reason")
#define WIRE_FIELD_route_change_reason(io, call, member)                                                    \
    wire_io_enum(io, &(call)->member, APPHOST_AUDIO_ROUTE_NEW_DEVICE_AVAILABLE, APPHOST_AUDIO_ROUTE_OVERRIDE, \
                 "route change reason")
/* `arguments` is walk_call_body's: where a decoded ACTION's arguments go. */
#define WIRE_FIELD_action_arguments(io, call, member)                                                       \
    walk_action_arguments(io, &(call)->member, &(call)->member##_count, arguments)
#define WIRE_FIELD_save_confirmation_id(io, call, member) wire_io_id(io, &(call)->member, "save confirmation")

/* WILL_CONNECT's restoration: an "opt bytes", whether there is one, its
 * bytes and their length. Present, even when empty (S12): an empty state
 * may come without bytes. */
static void walk_restoration(wire_io *io, bool *has_restoration, const void **restoration, size_t *length)
{
    const char *bytes = !*has_restoration ? NULL : *restoration != NULL ? *restoration : "";

    wire_io_optional_bytes(io, &bytes, length);
    if (wire_io_reading(io)) {
        *has_restoration = bytes != NULL;
        *restoration = bytes;
    }
}

/* SCENE_CALLBACK's callback, a u8 of enum apphost_wire_scene_callback. */
static void walk_scene_callback(wire_io *io, ahr_scene_callback *scene_callback)
{
    int32_t callback = *scene_callback;

    wire_io_enum(io, &callback, APPHOST_WIRE_SCENE_WILL_ENTER_FOREGROUND, APPHOST_WIRE_SCENE_DID_DISCONNECT,
                 "scene callback");
    *scene_callback = (ahr_scene_callback)callback;
}

/* BACKGROUND_TIME's "opt u64": absent is unlimited; the runtime's signed
 * nanoseconds hold any budget a host gives (292 years), so a larger one is
 * cut, not refused. */
static void walk_background_time(wire_io *io, int64_t *nanoseconds)
{
    bool limited = *nanoseconds >= 0;
    uint64_t value = limited ? (uint64_t)*nanoseconds : 0;

    wire_io_bool(io, &limited);
    if (limited) {
        wire_io_u64(io, &value);
    }
    if (wire_io_reading(io)) {
        *nanoseconds = !limited                     ? AHR_BACKGROUND_TIME_UNLIMITED
                       : value > (uint64_t)INT64_MAX ? INT64_MAX
                                                     : (int64_t)value;
    }
}

/* PERFORM_ACTION's name and its length, cut one byte past the runtime's
 * limit when written. */
static void walk_action_name(wire_io *io, const char **action_name, size_t *length)
{
    const void *name = *action_name;

    wire_io_bytes(io, &name, length, APPHOST_SCENES_TEXT_MAX_BYTES + 1);
    if (wire_io_reading(io)) {
        *action_name = name;
    }
}

/* PERFORM_ACTION's payload and its length. An empty one is read as NULL, as
 * ahr_handle hands it on. */
static void walk_action_payload(wire_io *io, const void **payload, size_t *length)
{
    wire_io_bytes(io, payload, length, APPHOST_ACTION_PAYLOAD_MAX_BYTES + 1);
    if (wire_io_reading(io) && *length == 0) {
        *payload = NULL;
    }
}

/* An action's value (actions.h): its type code, then integers as u64 (two's
 * complement for the signed ones), a double as f64, a bool, or the bytes of
 * a string or byte array; read, it must be valid for its type
 * (ahr_value_is_valid). */
static void walk_value(wire_io *io, ahr_value *value)
{
    uint8_t code = (uint8_t)value->type;
    uint64_t integer;

    wire_io_u8(io, &code);
    if (wire_io_reading(io)) {
        value->type = (ahr_value_type)code;
    }
    switch (code) {
    case AHR_VALUE_NONE:
        break;
    case AHR_VALUE_BOOL:
        wire_io_bool(io, &value->boolean);
        break;
    case AHR_VALUE_INT16:
    case AHR_VALUE_INT32:
    case AHR_VALUE_INT64:
        integer = (uint64_t)value->integer;
        wire_io_u64(io, &integer);
        if (wire_io_reading(io)) {
            value->integer = (int64_t)integer;
        }
        break;
    case AHR_VALUE_UINT8:
    case AHR_VALUE_UINT16:
    case AHR_VALUE_UINT32:
    case AHR_VALUE_UINT64:
        wire_io_u64(io, &value->unsigned_integer);
        break;
    case AHR_VALUE_DOUBLE:
        wire_io_f64(io, &value->real);
        break;
    case AHR_VALUE_STRING:
    case AHR_VALUE_BYTES:
        wire_io_bytes(io, &value->bytes, &value->length, APPHOST_ACTION_VALUE_MAX_BYTES + 1);
        break;
    default:
        wire_io_require(io, false, "an action value of type %u", (unsigned)code);
        return;
    }
    wire_io_require(io, ahr_value_is_valid(value), "an action value of type '%c' that its type does not allow",
                    (char)code);
}

/* ACTION's arguments: their count, then each, into `storage` when read. */
static void walk_action_arguments(wire_io *io, const ahr_value **arguments, size_t *argument_count,
                                  ahr_value *storage)
{
    uint8_t count = (uint8_t)*argument_count;

    wire_io_u8(io, &count);
    wire_io_require(io, count <= APPHOST_ACTION_ARGUMENTS_MAX, "an action call with %u arguments", (unsigned)count);
    if (io->cursor.failed) {
        return;
    }
    if (wire_io_reading(io)) {
        *argument_count = count;
        *arguments = count > 0 ? storage : NULL;
    }
    for (uint8_t i = 0; i < count; i++) {
        walk_value(io, (ahr_value *)&(*arguments)[i]);
    }
}

/* AUDIO_SETUP's format: sample rate, period frames and channel count, each
 * at least 1. */
static void walk_format(wire_io *io, uint32_t *sample_rate, uint32_t *period_frames, uint32_t *channel_count)
{
    wire_io_u32(io, sample_rate);
    wire_io_u32(io, period_frames);
    wire_io_u32(io, channel_count);
    wire_io_require(io, *sample_rate > 0 && *period_frames > 0 && *channel_count > 0,
                    "an audio format of %u Hz, %u frames, %u channels", (unsigned)*sample_rate,
                    (unsigned)*period_frames, (unsigned)*channel_count);
}

#define WIRE_MESSAGE_IGNORE(...)
/* A message's fields in order, each walking a member of `message`, the
 * message's own member of the union. */
#define WIRE_WALK_FIELD(member, kind) WIRE_FIELD_##kind(io, message, member);
#define WIRE_WALK_CALL(number, name, lower_name, area, swift_case, fields, arguments)                       \
    case AHR_CALL_##name: {                                                                                  \
        ahr_call_##lower_name *message = &call->lower_name;                                                  \
        (void)message;                                                                                       \
        fields break;                                                                                        \
    }

/* The calls are numbered 1 to WIRE_CALL_LAST: each number at most the
 * count, and no two alike (walk_call_body's switch would not compile), so
 * a number in that range is a call's. */
#define WIRE_CALL_ONE(...) +1
#define WIRE_CALL_AT_MOST_LAST(number, ...) &&(number) >= 1 && (number) <= WIRE_CALL_LAST
enum {
    WIRE_CALL_FIRST = 1,
    WIRE_CALL_LAST = 0 APPHOST_MESSAGES_CALLS(WIRE_CALL_ONE, WIRE_MESSAGE_IGNORE, WIRE_MESSAGE_IGNORE, WIRE_MESSAGE_IGNORE)
};
_Static_assert(1 APPHOST_MESSAGES_CALLS(WIRE_CALL_AT_MOST_LAST, WIRE_MESSAGE_IGNORE, WIRE_MESSAGE_IGNORE,
                                        WIRE_MESSAGE_IGNORE),
               "the calls of apphost_messages.h are numbered from 1 without a gap");

/* The fields after the call's kind, as the table lists them. */
static void walk_call_body(wire_io *io, ahr_call *call, ahr_value *arguments)
{
    switch (call->kind) {
        APPHOST_MESSAGES_CALLS(WIRE_WALK_CALL, WIRE_WALK_FIELD, WIRE_MESSAGE_IGNORE, WIRE_MESSAGE_IGNORE)
    }
}

static void walk_call(wire_io *io, wire_call *message)
{
    ahr_call *call = &message->call;
    int32_t kind = call->kind;

    wire_io_u64(io, &message->sequence);
    wire_io_enum(io, &call->app_state, APPHOST_APP_STATE_NOT_RUNNING, APPHOST_APP_STATE_SUSPENDED, "app state");
    wire_io_bool(io, &call->has_scene_state);
    /* Checked even when has_scene_state is false: the host sends 0 then. */
    wire_io_enum(io, &call->scene_state, APPHOST_SCENE_STATE_UNATTACHED, APPHOST_SCENE_STATE_BACKGROUND,
                 "scene state");
    wire_io_enum(io, &kind, WIRE_CALL_FIRST, WIRE_CALL_LAST, "call");
    call->kind = (ahr_call_kind)kind;
    if (!io->cursor.failed) {
        walk_call_body(io, call, message->arguments);
    }
}

/* ---- Worker to host -------------------------------------------------------- */

static void walk_hello(wire_io *io, wire_hello *hello)
{
    wire_io_u32(io, &hello->version);
    wire_io_u32(io, &hello->pid);
}

static void walk_text(wire_io *io, ahr_text *text) { wire_io_optional_bytes(io, &text->bytes, &text->length); }

/* LOADED's actions table, as read (ABI 1.6). */
static void walk_actions(wire_io *io, ahr_raw_descriptor *descriptor)
{
    wire_io_u32(io, &descriptor->actions_struct_size);
    wire_io_u32(io, &descriptor->action_size);
    walk_text(io, &descriptor->actions_id);
    wire_io_u32(io, &descriptor->action_count);
    wire_io_u32(io, &descriptor->actions_read);
    wire_io_require(io, descriptor->actions_read <= APPHOST_ACTIONS_MAX && descriptor->actions_read <= descriptor->action_count,
                    "%u actions read of %u", (unsigned)descriptor->actions_read, (unsigned)descriptor->action_count);
    if (io->cursor.failed) {
        return;
    }
    for (uint32_t i = 0; i < descriptor->actions_read; i++) {
        ahr_raw_action *action = &descriptor->actions[i];

        walk_text(io, &action->name);
        walk_text(io, &action->arguments);
        walk_text(io, &action->result);
        walk_text(io, &action->description);
        wire_io_u64(io, &action->flags);
        wire_io_bool(io, &action->has_function);
    }
}

/* LOADED: raw values, which the host validates (CONTRACT X1). */
static void walk_loaded(wire_io *io, ahr_raw_descriptor *descriptor)
{
    wire_io_u32(io, &descriptor->abi_version.major);
    wire_io_u32(io, &descriptor->abi_version.minor);
    wire_io_u32(io, &descriptor->abi_version.revision);
    wire_io_bool(io, &descriptor->has_descriptor);
    wire_io_u32(io, &descriptor->struct_size);
    walk_text(io, &descriptor->id);
    walk_text(io, &descriptor->name);
    walk_text(io, &descriptor->version);
    walk_text(io, &descriptor->vendor);
    walk_text(io, &descriptor->description);
    wire_io_u64(io, &descriptor->capabilities);
    wire_io_bool(io, &descriptor->has_init);
    wire_io_bool(io, &descriptor->has_deinit);
    wire_io_bool(io, &descriptor->has_query);
    wire_io_bool(io, &descriptor->has_actions);
    if (descriptor->has_actions) {
        walk_actions(io, descriptor);
    }
}

static void walk_load_failed(wire_io *io, wire_load_failed *failure)
{
    int32_t reason = failure->reason;

    wire_io_enum(io, &reason, APPHOST_WIRE_LOAD_DLOPEN, APPHOST_WIRE_LOAD_NO_ENTRY, "load failure");
    failure->reason = (uint8_t)reason;
    wire_io_wire_bytes(io, &failure->detail);
}

static void walk_started(wire_io *io, wire_started *started)
{
    int32_t outcome = started->outcome;

    wire_io_enum(io, &outcome, APPHOST_WIRE_STARTED_OK, APPHOST_WIRE_STARTED_NO_APP_CALLBACKS, "start outcome");
    started->outcome = (uint8_t)outcome;
    wire_io_i32(io, &started->init_status);
}

static void walk_reply(wire_io *io, wire_reply *reply)
{
    wire_io_u64(io, &reply->sequence);
    wire_io_i32(io, &reply->status);
}

/* ---- Worker to host: the reports -------------------------------------------- */

#define WIRE_FIELD_log_level(io, report, member)                                                            \
    wire_io_enum(io, &(report)->member, APPHOST_LOG_TRACE, APPHOST_LOG_ERROR, "log level")
#define WIRE_FIELD_saved_state(io, report, member)                                                          \
    walk_state(io, &(report)->member, &(report)->member##_length, "a saved state")
#define WIRE_FIELD_requested_state(io, report, member)                                                      \
    walk_state(io, &(report)->member, &(report)->member##_length, "a requested scene's state")
#define WIRE_FIELD_task_id(io, report, member) wire_io_id(io, &(report)->member, "task")
#define WIRE_FIELD_timer_id(io, report, member) wire_io_id(io, &(report)->member, "timer")
#define WIRE_FIELD_work_id(io, report, member) wire_io_id(io, &(report)->member, "work")
#define WIRE_FIELD_modal_id(io, report, member) wire_io_id(io, &(report)->member, "modal")
#define WIRE_FIELD_presentation_style(io, report, member)                                                   \
    wire_io_enum(io, &(report)->member, APPHOST_PRESENTATION_AUTOMATIC, APPHOST_PRESENTATION_PROMINENT,      \
                 "presentation style")
#define WIRE_FIELD_modal_style(io, report, member)                                                          \
    wire_io_enum(io, &(report)->member, APPHOST_MODAL_SHEET, APPHOST_MODAL_FULL_SCREEN, "modal style")
#define WIRE_FIELD_progress(io, report, member) walk_progress(io, &(report)->member)
#define WIRE_FIELD_audio_category(io, report, member)                                                       \
    wire_io_enum(io, &(report)->member, APPHOST_AUDIO_CATEGORY_AMBIENT, APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD, \
                 "audio category")
#define WIRE_FIELD_audio_mode(io, report, member)                                                           \
    wire_io_enum(io, &(report)->member, APPHOST_AUDIO_MODE_DEFAULT, APPHOST_AUDIO_MODE_VIDEO_CHAT, "audio mode")
#define WIRE_FIELD_audio_options(io, report, member)                                                        \
    do {                                                                                                     \
        wire_io_u32(io, &(report)->member);                                                                  \
        wire_io_require(io, ((report)->member & ~(uint32_t)AUDIO_OPTIONS_ALL) == 0, "audio options 0x%x",   \
                        (unsigned)(report)->member);                                                         \
    } while (0)
#define WIRE_FIELD_gain(io, report, member)                                                                 \
    do {                                                                                                     \
        wire_io_f64(io, &(report)->member);                                                                  \
        wire_io_require(io, (report)->member >= 0 && (report)->member <= 1, "an audio gain of %g",          \
                        (report)->member);                                                                   \
    } while (0)
#define WIRE_FIELD_output_override(io, report, member)                                                      \
    wire_io_enum(io, &(report)->member, APPHOST_AUDIO_OVERRIDE_NONE, APPHOST_AUDIO_OVERRIDE_SPEAKER,         \
                 "output override")
#define WIRE_FIELD_audio_thread_id(io, report, member)                                                      \
    do {                                                                                                     \
        wire_io_id(io, &(report)->member, "audio thread");                                                   \
        wire_io_require(io, (report)->member <= INT32_MAX, "an audio thread id of %llu",                     \
                        (unsigned long long)(report)->member);                                               \
    } while (0)
#define WIRE_FIELD_action_result(io, report, member)                                                        \
    walk_action_result(io, &(report)->flag, &(report)->member, &(report)->text, &(report)->text_length)

/* A scene's state and its length, at most what the ABI lets a guest
 * save. */
static void walk_state(wire_io *io, const void **bytes, size_t *length, const char *what)
{
    wire_io_bytes(io, bytes, length, SIZE_MAX);
    wire_io_require(io, *length <= APPHOST_SCENE_STATE_MAX_BYTES, "%s of %zu bytes, over the ABI's limit", what,
                    *length);
}

/* A fraction from 0 to 1, or one of the two values scenes.h names. */
static void walk_progress(wire_io *io, double *progress)
{
    wire_io_f64(io, progress);
    wire_io_require(io,
                    *progress == APPHOST_PROGRESS_NONE || *progress == APPHOST_PROGRESS_INDETERMINATE ||
                        (*progress >= 0 && *progress <= 1),
                    "a loading progress of %g", *progress);
}

/* ACTION_RESULT: `ok`, then the result in `value` when it is set, or the
 * problem in `text` when not. */
static void walk_action_result(wire_io *io, bool *ok, ahr_value *value, const char **text, size_t *text_length)
{
    wire_io_bool(io, ok);
    if (*ok) {
        walk_value(io, value);
    } else {
        wire_io_text(io, text, text_length);
    }
}

#define WIRE_WALK_REPORT(number, name, lower_name, area, swift_case, fields, arguments)                      \
    case AHR_REPORT_##name: {                                                                                \
        ahr_report_##lower_name *message = &report->lower_name;                                              \
        (void)message;                                                                                       \
        fields break;                                                                                        \
    }

/* A report's fields, as the table lists them. */
static void walk_report(wire_io *io, ahr_report *report)
{
    switch (report->kind) {
        APPHOST_MESSAGES_REPORTS(WIRE_WALK_REPORT, WIRE_WALK_FIELD, WIRE_MESSAGE_IGNORE, WIRE_MESSAGE_IGNORE)
    }
}

/* ---- Both ways -------------------------------------------------------------- */

#define WIRE_REPORT_CASE(number, name, ...) case APPHOST_WIRE_##name:

/* Whether `type` is a report's, from the table: a switch, not a scan. */
static bool is_report(uint8_t type)
{
    switch (type) {
        APPHOST_MESSAGES_REPORTS(WIRE_REPORT_CASE, WIRE_MESSAGE_IGNORE, WIRE_MESSAGE_IGNORE, WIRE_MESSAGE_IGNORE)
        return true;
    }
    return false;
}

/* Walks the body of a message of a known type; false for an unknown one.
 * Frames by hand (see the top), reports as the table lists them. */
static bool walk(wire_io *io, wire_message *message)
{
    if (is_report(message->type)) {
        message->body.report.kind = (ahr_report_kind)message->type;
        walk_report(io, &message->body.report);
        return true;
    }
    switch (message->type) {
    case APPHOST_WIRE_LOAD:
        walk_load(io, &message->body.load);
        return true;
    case APPHOST_WIRE_START:
        walk_start(io, &message->body.start);
        return true;
    case APPHOST_WIRE_CALL:
        walk_call(io, &message->body.call);
        return true;
    case APPHOST_WIRE_STOP:
    case APPHOST_WIRE_STOPPED:
        return true;
    case APPHOST_WIRE_HELLO:
        walk_hello(io, &message->body.hello);
        return true;
    case APPHOST_WIRE_LOADED:
        walk_loaded(io, &message->body.loaded);
        return true;
    case APPHOST_WIRE_LOAD_FAILED:
        walk_load_failed(io, &message->body.load_failed);
        return true;
    case APPHOST_WIRE_STARTED:
        walk_started(io, &message->body.started);
        return true;
    case APPHOST_WIRE_REPLY:
        walk_reply(io, &message->body.reply);
        return true;
    }
    return false;
}

/* The bytes of a message of `type` that its walk touches: the type and its
 * body's member of the union, 24 bytes for a REPLY. A wire_message is 5.8 KB
 * (LOADED's table of actions), and the worker copies or clears one for each
 * call it answers: whole, that cost some microseconds of a round trip after
 * an idle moment, when each of its pages misses the caches. */
static size_t message_size(uint8_t type)
{
    size_t body;

    if (is_report(type)) {
        body = sizeof(ahr_report);
    } else {
        switch (type) {
        case APPHOST_WIRE_LOAD:
            body = sizeof(wire_load);
            break;
        case APPHOST_WIRE_START:
            body = sizeof(wire_start);
            break;
        case APPHOST_WIRE_CALL:
            body = sizeof(wire_call);
            break;
        case APPHOST_WIRE_HELLO:
            body = sizeof(wire_hello);
            break;
        case APPHOST_WIRE_LOADED:
            body = sizeof(ahr_raw_descriptor);
            break;
        case APPHOST_WIRE_LOAD_FAILED:
            body = sizeof(wire_load_failed);
            break;
        case APPHOST_WIRE_STARTED:
            body = sizeof(wire_started);
            break;
        case APPHOST_WIRE_REPLY:
            body = sizeof(wire_reply);
            break;
        default:
            /* STOP, STOPPED and unknown types: no body. */
            body = 0;
            break;
        }
    }
    return offsetof(wire_message, body) + body;
}

void wire_encode(const wire_message *message, frame_builder *frame)
{
    /* The walk takes fields by address, for reading; writing leaves them as
     * they are. Only what the walk reads is copied. */
    wire_message copy;
    wire_io io = {.frame = frame};

    memcpy(&copy, message, message_size(message->type));
    frame_begin(frame, message->type);
    walk(&io, &copy);
    frame_finish(frame);
}

size_t wire_encode_call(uint64_t sequence, const ahr_call *call, uint8_t *bytes, size_t capacity, int *fds,
                        int *fd_count)
{
    /* As in wire_encode: the walk reads the copy's fields by address. Its
     * `arguments` are only written when decoding: an ACTION's are read where
     * call->action_arguments points. */
    wire_call copy;
    frame_builder frame;
    wire_io io = {.frame = &frame};
    size_t size;

    copy.sequence = sequence;
    copy.call = *call;
    frame_begin(&frame, APPHOST_WIRE_CALL);
    walk_call(&io, &copy);
    frame_finish(&frame);
    size = frame_size(&frame);
    if (size <= capacity) {
        frame_copy(&frame, bytes);
        memcpy(fds, frame.fds, sizeof frame.fds[0] * (size_t)frame.fd_count);
        *fd_count = frame.fd_count;
    }
    return size;
}

/* Whether the walk read the whole payload and nothing more. */
static bool finish_reading(wire_io *io)
{
    if (!io->cursor.failed && io->cursor.left > 0) {
        snprintf(io->problem->text, sizeof io->problem->text, "%zu unexpected bytes after the last field",
                 io->cursor.left);
        return false;
    }
    return !io->cursor.failed;
}

bool wire_decode(wire_direction direction, uint8_t type, const uint8_t *payload, size_t length,
                 wire_descriptors *descriptors, wire_message *message, wire_problem *problem)
{
    wire_io io = {
        .frame = NULL, .cursor = wire_cursor_make(payload, length), .problem = problem, .descriptors = descriptors};
    bool to_host = type >= APPHOST_WIRE_HELLO;

    /* Only the body's member of the union: a CALL clears 0.5 KB, not 5.8. */
    memset(message, 0, message_size(type));
    problem->text[0] = '\0';
    message->type = type;
    if (to_host != (direction == WIRE_TO_HOST) || !walk(&io, message)) {
        snprintf(problem->text, sizeof problem->text, "unknown %s frame type %u",
                 direction == WIRE_TO_HOST ? "worker-to-host" : "host-to-worker", (unsigned)type);
        return false;
    }
    return finish_reading(&io);
}

bool wire_decode_reply(const uint8_t *payload, size_t length, wire_reply *reply, wire_problem *problem)
{
    wire_io io = {.frame = NULL, .cursor = wire_cursor_make(payload, length), .problem = problem};

    problem->text[0] = '\0';
    walk_reply(&io, reply);
    return finish_reading(&io);
}

#define WIRE_TYPE_NAME(number, name, ...)                                                                    \
    case APPHOST_WIRE_##name:                                                                                \
        return #name;

const char *wire_type_name(uint8_t type)
{
    switch (type) {
        APPHOST_MESSAGES_FRAMES(WIRE_TYPE_NAME)
        APPHOST_MESSAGES_REPORTS(WIRE_TYPE_NAME, WIRE_MESSAGE_IGNORE, WIRE_MESSAGE_IGNORE, WIRE_MESSAGE_IGNORE)
    }
    return "unknown";
}
