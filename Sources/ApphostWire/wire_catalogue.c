/*
 * The catalogue: every message of apphost_wire.h, its fields described once,
 * in the order the header lays them out. wire_encode and wire_decode both
 * walk these descriptions (wire_io.h), so a message added here is encoded
 * and decoded alike on both sides.
 */
#include <stdio.h>
#include <string.h>

#include "apphost_wire.h"
#include "wire_io.h"
#include "wire_messages.h"

/* The runtime numbers calls, scene callbacks and reports as the wire does,
 * so a decoded value is used as it is. */
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
                   (int)AHR_CALL_SAVE_STATUS == (int)APPHOST_WIRE_CALL_SAVE_STATUS &&
                   (int)AHR_CALL_AUDIO_SETUP == (int)APPHOST_WIRE_CALL_AUDIO_SETUP &&
                   (int)AHR_CALL_AUDIO_ACTIVATION_FINISHED == (int)APPHOST_WIRE_CALL_AUDIO_ACTIVATION_FINISHED &&
                   (int)AHR_CALL_AUDIO_INTERRUPTION_BEGAN == (int)APPHOST_WIRE_CALL_AUDIO_INTERRUPTION_BEGAN &&
                   (int)AHR_CALL_AUDIO_INTERRUPTION_ENDED == (int)APPHOST_WIRE_CALL_AUDIO_INTERRUPTION_ENDED &&
                   (int)AHR_CALL_AUDIO_ROUTE_CHANGED == (int)APPHOST_WIRE_CALL_AUDIO_ROUTE_CHANGED &&
                   (int)AHR_CALL_SECONDARY_AUDIO_HINT == (int)APPHOST_WIRE_CALL_SECONDARY_AUDIO_HINT &&
                   (int)AHR_CALL_MEDIA_SERVICES_RESET == (int)APPHOST_WIRE_CALL_MEDIA_SERVICES_RESET &&
                   (int)AHR_CALL_AUDIO_STREAM == (int)APPHOST_WIRE_CALL_AUDIO_STREAM &&
                   (int)AHR_CALL_ACTION == (int)APPHOST_WIRE_CALL_ACTION &&
                   (int)AHR_CALL_SAVE_CONFIRMATION == (int)APPHOST_WIRE_CALL_SAVE_CONFIRMATION,
               "ahr_call_kind matches enum apphost_wire_call");
_Static_assert((int)AHR_SCENE_WILL_ENTER_FOREGROUND == (int)APPHOST_WIRE_SCENE_WILL_ENTER_FOREGROUND &&
                   (int)AHR_SCENE_DID_BECOME_ACTIVE == (int)APPHOST_WIRE_SCENE_DID_BECOME_ACTIVE &&
                   (int)AHR_SCENE_WILL_RESIGN_ACTIVE == (int)APPHOST_WIRE_SCENE_WILL_RESIGN_ACTIVE &&
                   (int)AHR_SCENE_DID_ENTER_BACKGROUND == (int)APPHOST_WIRE_SCENE_DID_ENTER_BACKGROUND &&
                   (int)AHR_SCENE_DID_DISCONNECT == (int)APPHOST_WIRE_SCENE_DID_DISCONNECT,
               "ahr_scene_callback matches enum apphost_wire_scene_callback");
_Static_assert((int)AHR_REPORT_LOG == (int)APPHOST_WIRE_LOG &&
                   (int)AHR_REPORT_SAVE_STATE == (int)APPHOST_WIRE_SAVE_STATE &&
                   (int)AHR_REPORT_TASK_BEGAN == (int)APPHOST_WIRE_TASK_BEGAN &&
                   (int)AHR_REPORT_TASK_ENDED == (int)APPHOST_WIRE_TASK_ENDED &&
                   (int)AHR_REPORT_TIMER_SCHEDULED == (int)APPHOST_WIRE_TIMER_SCHEDULED &&
                   (int)AHR_REPORT_TIMER_CANCELLED == (int)APPHOST_WIRE_TIMER_CANCELLED &&
                   (int)AHR_REPORT_WORK_SUBMITTED == (int)APPHOST_WIRE_WORK_SUBMITTED &&
                   (int)AHR_REPORT_SCENE_REQUESTED == (int)APPHOST_WIRE_SCENE_REQUESTED &&
                   (int)AHR_REPORT_SESSION_ACTIVATION_REQUESTED == (int)APPHOST_WIRE_SESSION_ACTIVATION_REQUESTED &&
                   (int)AHR_REPORT_LOADING_PROGRESS == (int)APPHOST_WIRE_LOADING_PROGRESS &&
                   (int)AHR_REPORT_MODAL_PRESENTED == (int)APPHOST_WIRE_MODAL_PRESENTED &&
                   (int)AHR_REPORT_MODAL_DISMISSED == (int)APPHOST_WIRE_MODAL_DISMISSED &&
                   (int)AHR_REPORT_NOTIFICATION_POSTED == (int)APPHOST_WIRE_NOTIFICATION_POSTED &&
                   (int)AHR_REPORT_SESSION_CLOSE_REQUESTED == (int)APPHOST_WIRE_SESSION_CLOSE_REQUESTED &&
                   (int)AHR_REPORT_SCENE_TITLE_CHANGED == (int)APPHOST_WIRE_SCENE_TITLE_CHANGED &&
                   (int)AHR_REPORT_AUDIO_CONFIGURED == (int)APPHOST_WIRE_AUDIO_CONFIGURED &&
                   (int)AHR_REPORT_AUDIO_ACTIVATION_REQUESTED == (int)APPHOST_WIRE_AUDIO_ACTIVATION_REQUESTED &&
                   (int)AHR_REPORT_AUDIO_DEACTIVATED == (int)APPHOST_WIRE_AUDIO_DEACTIVATED &&
                   (int)AHR_REPORT_AUDIO_RENDERING == (int)APPHOST_WIRE_AUDIO_RENDERING &&
                   (int)AHR_REPORT_AUDIO_GAIN == (int)APPHOST_WIRE_AUDIO_GAIN &&
                   (int)AHR_REPORT_AUDIO_OUTPUT_OVERRIDDEN == (int)APPHOST_WIRE_AUDIO_OUTPUT_OVERRIDDEN &&
                   (int)AHR_REPORT_AUDIO_THREAD == (int)APPHOST_WIRE_AUDIO_THREAD &&
                   (int)AHR_REPORT_ACTION_RESULT == (int)APPHOST_WIRE_ACTION_RESULT,
               "ahr_report_kind matches enum apphost_wire_type");

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

/* WILL_CONNECT's fields after the scene. */
static void walk_connection(wire_io *io, ahr_call *call)
{
    /* Present, even when empty (S12): an empty state may come without bytes. */
    const char *restoration = !call->has_restoration ? NULL : call->restoration != NULL ? call->restoration : "";

    wire_io_text(io, &call->session_id, &call->session_id_length);
    wire_io_enum(io, &call->role, APPHOST_SCENE_ROLE_PRIMARY, APPHOST_SCENE_ROLE_AUXILIARY, "scene role");
    wire_io_enum(io, &call->initial_state, APPHOST_SCENE_STATE_UNATTACHED, APPHOST_SCENE_STATE_BACKGROUND,
                 "initial state");
    wire_io_optional_bytes(io, &restoration, &call->restoration_length);
    if (wire_io_reading(io)) {
        call->has_restoration = restoration != NULL;
        call->restoration = restoration;
    }
}

/* PERFORM_ACTION's fields after the scene. An empty payload is read as NULL,
 * as ahr_handle hands it on. */
static void walk_action(wire_io *io, ahr_call *call)
{
    const void *name = call->action_name;

    wire_io_bytes(io, &name, &call->action_name_length, APPHOST_SCENES_TEXT_MAX_BYTES + 1);
    wire_io_bytes(io, &call->payload, &call->payload_length, APPHOST_ACTION_PAYLOAD_MAX_BYTES + 1);
    wire_io_u64(io, &call->activation_ns);
    wire_io_u64(io, &call->activation);
    if (wire_io_reading(io)) {
        call->action_name = name;
        if (call->payload_length == 0) {
            call->payload = NULL;
        }
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

/* ACTION's fields: the index, then the arguments, into `storage` when read. */
static void walk_action_call(wire_io *io, ahr_call *call, ahr_value *storage)
{
    uint8_t count = (uint8_t)call->action_argument_count;

    wire_io_u32(io, &call->action_index);
    wire_io_u8(io, &count);
    wire_io_require(io, count <= APPHOST_ACTION_ARGUMENTS_MAX, "an action call with %u arguments", (unsigned)count);
    if (io->cursor.failed) {
        return;
    }
    if (wire_io_reading(io)) {
        call->action_argument_count = count;
        call->action_arguments = count > 0 ? storage : NULL;
    }
    for (uint8_t i = 0; i < count; i++) {
        walk_value(io, (ahr_value *)&call->action_arguments[i]);
    }
}

/* The fields after the call's kind. */
/* AUDIO_SETUP's format: each value at least 1. */
static void walk_format(wire_io *io, ahr_call *call)
{
    wire_io_u32(io, &call->sample_rate);
    wire_io_u32(io, &call->period_frames);
    wire_io_u32(io, &call->channel_count);
    wire_io_require(io, call->sample_rate > 0 && call->period_frames > 0 && call->channel_count > 0,
                    "an audio format of %u Hz, %u frames, %u channels", (unsigned)call->sample_rate,
                    (unsigned)call->period_frames, (unsigned)call->channel_count);
}

static void walk_route(wire_io *io, int32_t *output, int32_t *input)
{
    wire_io_enum(io, output, APPHOST_AUDIO_OUTPUT_NONE, APPHOST_AUDIO_OUTPUT_LINE_OUT, "audio output");
    wire_io_enum(io, input, APPHOST_AUDIO_INPUT_NONE, APPHOST_AUDIO_INPUT_LINE_IN, "audio input");
}

static void walk_interruption_reason(wire_io *io, int32_t *reason)
{
    wire_io_enum(io, reason, APPHOST_AUDIO_INTERRUPTION_OTHER_SESSION, APPHOST_AUDIO_INTERRUPTION_SUSPENDED,
                 "interruption reason");
}

static void walk_call_body(wire_io *io, ahr_call *call, ahr_value *arguments)
{
    int32_t callback = call->scene_callback;

    switch (call->kind) {
    case AHR_CALL_DID_FINISH_LAUNCHING:
    case AHR_CALL_WILL_TERMINATE:
    case AHR_CALL_MEMORY_WARNING:
        break;
    case AHR_CALL_WILL_CONNECT:
        wire_io_u64(io, &call->scene);
        walk_connection(io, call);
        break;
    case AHR_CALL_SCENE_CALLBACK:
        wire_io_u64(io, &call->scene);
        wire_io_enum(io, &callback, APPHOST_WIRE_SCENE_WILL_ENTER_FOREGROUND, APPHOST_WIRE_SCENE_DID_DISCONNECT,
                     "scene callback");
        call->scene_callback = (ahr_scene_callback)callback;
        break;
    case AHR_CALL_EXPIRE_TASK:
    case AHR_CALL_FIRE_TIMER:
    case AHR_CALL_RUN_WORK:
        wire_io_u64(io, &call->id);
        break;
    case AHR_CALL_BACKGROUND_TIME:
        walk_background_time(io, &call->background_time_ns);
        break;
    case AHR_CALL_SCENE_SIZE:
        wire_io_u64(io, &call->scene);
        wire_io_u32(io, &call->width);
        wire_io_u32(io, &call->height);
        wire_io_enum(io, &call->size_class, APPHOST_SIZE_CLASS_COMPACT, APPHOST_SIZE_CLASS_REGULAR, "size class");
        break;
    case AHR_CALL_PERFORM_ACTION:
        wire_io_u64(io, &call->scene);
        walk_action(io, call);
        break;
    case AHR_CALL_SHOULD_DISMISS_MODAL:
    case AHR_CALL_DID_DISMISS_MODAL:
        wire_io_u64(io, &call->scene);
        wire_io_u64(io, &call->modal);
        break;
    case AHR_CALL_DID_DISCARD:
        wire_io_text(io, &call->session_id, &call->session_id_length);
        break;
    case AHR_CALL_NOTIFICATION_LIMIT:
        wire_io_u32(io, &call->notification_limit);
        wire_io_u64(io, &call->notification_window_ns);
        break;
    case AHR_CALL_SAVE_STATUS:
        wire_io_u64(io, &call->scene);
        wire_io_bool(io, &call->save_failed);
        break;
    case AHR_CALL_SAVE_CONFIRMATION:
        wire_io_id(io, &call->id, "save confirmation");
        wire_io_bool(io, &call->save_failed);
        break;
    case AHR_CALL_AUDIO_SETUP:
        walk_format(io, call);
        walk_route(io, &call->output, &call->input);
        break;
    case AHR_CALL_AUDIO_ACTIVATION_FINISHED:
        wire_io_id(io, &call->audio_request, "audio request");
        wire_io_enum(io, &call->activation_result, APPHOST_AUDIO_ACTIVATED, APPHOST_AUDIO_REFUSED_NOT_RUNNING,
                     "activation result");
        break;
    case AHR_CALL_AUDIO_INTERRUPTION_BEGAN:
        walk_interruption_reason(io, &call->interruption_reason);
        break;
    case AHR_CALL_AUDIO_INTERRUPTION_ENDED:
        walk_interruption_reason(io, &call->interruption_reason);
        wire_io_bool(io, &call->should_resume);
        break;
    case AHR_CALL_AUDIO_ROUTE_CHANGED:
        wire_io_enum(io, &call->route_change_reason, APPHOST_AUDIO_ROUTE_NEW_DEVICE_AVAILABLE,
                     APPHOST_AUDIO_ROUTE_OVERRIDE, "route change reason");
        walk_route(io, &call->previous_output, &call->previous_input);
        walk_route(io, &call->output, &call->input);
        break;
    case AHR_CALL_SECONDARY_AUDIO_HINT:
        wire_io_bool(io, &call->silence_secondary);
        break;
    case AHR_CALL_MEDIA_SERVICES_RESET:
        break;
    case AHR_CALL_AUDIO_STREAM:
        wire_io_fd(io, &call->audio_memfd);
        wire_io_fd(io, &call->audio_wake_fd);
        break;
    case AHR_CALL_ACTION:
        walk_action_call(io, call, arguments);
        break;
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
    wire_io_enum(io, &kind, APPHOST_WIRE_CALL_DID_FINISH_LAUNCHING, APPHOST_WIRE_CALL_SAVE_CONFIRMATION, "call");
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

/* A scene's state, at most what the ABI lets a guest save. */
static void walk_state(wire_io *io, ahr_report *report, const char *what)
{
    wire_io_bytes(io, &report->bytes, &report->bytes_length, SIZE_MAX);
    wire_io_require(io, report->bytes_length <= APPHOST_SCENE_STATE_MAX_BYTES,
                    "%s of %zu bytes, over the ABI's limit", what, report->bytes_length);
}

static void walk_presentation_style(wire_io *io, int32_t *style)
{
    wire_io_enum(io, style, APPHOST_PRESENTATION_AUTOMATIC, APPHOST_PRESENTATION_PROMINENT, "presentation style");
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

static void walk_report(wire_io *io, ahr_report *report)
{
    switch (report->kind) {
    case AHR_REPORT_LOG:
        wire_io_enum(io, &report->level, APPHOST_LOG_TRACE, APPHOST_LOG_ERROR, "log level");
        wire_io_text(io, &report->text, &report->text_length);
        break;
    case AHR_REPORT_SAVE_STATE:
        wire_io_u64(io, &report->scene);
        walk_state(io, report, "a saved state");
        /* 0 when the guest asked for no confirmation. */
        wire_io_u64(io, &report->id);
        break;
    case AHR_REPORT_TASK_BEGAN:
        wire_io_id(io, &report->id, "task");
        wire_io_text(io, &report->text, &report->text_length);
        break;
    case AHR_REPORT_TASK_ENDED:
        wire_io_id(io, &report->id, "task");
        break;
    case AHR_REPORT_TIMER_SCHEDULED:
        wire_io_id(io, &report->id, "timer");
        wire_io_u64(io, &report->delay_ns);
        wire_io_u64(io, &report->interval_ns);
        break;
    case AHR_REPORT_TIMER_CANCELLED:
        wire_io_id(io, &report->id, "timer");
        break;
    case AHR_REPORT_WORK_SUBMITTED:
        wire_io_id(io, &report->id, "work");
        break;
    case AHR_REPORT_SCENE_REQUESTED:
        wire_io_u64(io, &report->activation);
        wire_io_u64(io, &report->scene);
        wire_io_enum(io, &report->role, APPHOST_SCENE_ROLE_PRIMARY, APPHOST_SCENE_ROLE_AUXILIARY, "scene role");
        walk_presentation_style(io, &report->style);
        walk_state(io, report, "a requested scene's state");
        break;
    case AHR_REPORT_SESSION_ACTIVATION_REQUESTED:
        wire_io_text(io, &report->text, &report->text_length);
        walk_presentation_style(io, &report->style);
        break;
    case AHR_REPORT_LOADING_PROGRESS:
        wire_io_u64(io, &report->scene);
        walk_progress(io, &report->progress);
        break;
    case AHR_REPORT_MODAL_PRESENTED:
        wire_io_u64(io, &report->scene);
        wire_io_id(io, &report->id, "modal");
        wire_io_enum(io, &report->style, APPHOST_MODAL_SHEET, APPHOST_MODAL_FULL_SCREEN, "modal style");
        wire_io_text(io, &report->text, &report->text_length);
        break;
    case AHR_REPORT_MODAL_DISMISSED:
        wire_io_u64(io, &report->scene);
        wire_io_id(io, &report->id, "modal");
        break;
    case AHR_REPORT_NOTIFICATION_POSTED:
        wire_io_text(io, &report->text, &report->text_length);
        wire_io_text(io, &report->body, &report->body_length);
        break;
    case AHR_REPORT_SESSION_CLOSE_REQUESTED:
        wire_io_text(io, &report->text, &report->text_length);
        break;
    case AHR_REPORT_SCENE_TITLE_CHANGED:
        wire_io_u64(io, &report->scene);
        wire_io_text(io, &report->text, &report->text_length);
        break;
    case AHR_REPORT_AUDIO_CONFIGURED:
        wire_io_enum(io, &report->category, APPHOST_AUDIO_CATEGORY_AMBIENT, APPHOST_AUDIO_CATEGORY_PLAY_AND_RECORD,
                     "audio category");
        wire_io_enum(io, &report->mode, APPHOST_AUDIO_MODE_DEFAULT, APPHOST_AUDIO_MODE_VIDEO_CHAT, "audio mode");
        wire_io_u32(io, &report->options);
        wire_io_require(io, (report->options & ~(uint32_t)AUDIO_OPTIONS_ALL) == 0, "audio options 0x%x",
                        (unsigned)report->options);
        break;
    case AHR_REPORT_AUDIO_ACTIVATION_REQUESTED:
        wire_io_id(io, &report->id, "audio request");
        break;
    case AHR_REPORT_AUDIO_DEACTIVATED:
    case AHR_REPORT_AUDIO_RENDERING:
        wire_io_bool(io, &report->flag);
        break;
    case AHR_REPORT_AUDIO_GAIN:
        wire_io_f64(io, &report->gain);
        wire_io_require(io, report->gain >= 0 && report->gain <= 1, "an audio gain of %g", report->gain);
        break;
    case AHR_REPORT_AUDIO_OUTPUT_OVERRIDDEN:
        wire_io_enum(io, &report->output_override, APPHOST_AUDIO_OVERRIDE_NONE, APPHOST_AUDIO_OVERRIDE_SPEAKER,
                     "output override");
        break;
    case AHR_REPORT_ACTION_RESULT:
        wire_io_bool(io, &report->flag);
        if (report->flag) {
            walk_value(io, &report->value);
        } else {
            wire_io_text(io, &report->text, &report->text_length);
        }
        break;
    case AHR_REPORT_AUDIO_THREAD:
        wire_io_id(io, &report->id, "audio thread");
        wire_io_require(io, report->id <= INT32_MAX, "an audio thread id of %llu", (unsigned long long)report->id);
        wire_io_bool(io, &report->flag);
        break;
    }
}

/* ---- Both ways -------------------------------------------------------------- */

/* LOG to the last report, but for STOPPED, the conversation's own. */
static bool is_report(uint8_t type)
{
    return type >= APPHOST_WIRE_LOG && type <= APPHOST_WIRE_ACTION_RESULT && type != APPHOST_WIRE_STOPPED;
}

/* Walks the body of a message of a known type; false for an unknown one. */
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

    /* Only the body's member of the union: a CALL clears 0.7 KB, not 5.8. */
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

const char *wire_type_name(uint8_t type)
{
    switch (type) {
    case APPHOST_WIRE_LOAD:
        return "LOAD";
    case APPHOST_WIRE_START:
        return "START";
    case APPHOST_WIRE_CALL:
        return "CALL";
    case APPHOST_WIRE_STOP:
        return "STOP";
    case APPHOST_WIRE_HELLO:
        return "HELLO";
    case APPHOST_WIRE_LOADED:
        return "LOADED";
    case APPHOST_WIRE_LOAD_FAILED:
        return "LOAD_FAILED";
    case APPHOST_WIRE_STARTED:
        return "STARTED";
    case APPHOST_WIRE_REPLY:
        return "REPLY";
    case APPHOST_WIRE_LOG:
        return "LOG";
    case APPHOST_WIRE_SAVE_STATE:
        return "SAVE_STATE";
    case APPHOST_WIRE_STOPPED:
        return "STOPPED";
    case APPHOST_WIRE_TASK_BEGAN:
        return "TASK_BEGAN";
    case APPHOST_WIRE_TASK_ENDED:
        return "TASK_ENDED";
    case APPHOST_WIRE_TIMER_SCHEDULED:
        return "TIMER_SCHEDULED";
    case APPHOST_WIRE_TIMER_CANCELLED:
        return "TIMER_CANCELLED";
    case APPHOST_WIRE_WORK_SUBMITTED:
        return "WORK_SUBMITTED";
    case APPHOST_WIRE_SCENE_REQUESTED:
        return "SCENE_REQUESTED";
    case APPHOST_WIRE_SESSION_ACTIVATION_REQUESTED:
        return "SESSION_ACTIVATION_REQUESTED";
    case APPHOST_WIRE_LOADING_PROGRESS:
        return "LOADING_PROGRESS";
    case APPHOST_WIRE_MODAL_PRESENTED:
        return "MODAL_PRESENTED";
    case APPHOST_WIRE_MODAL_DISMISSED:
        return "MODAL_DISMISSED";
    case APPHOST_WIRE_NOTIFICATION_POSTED:
        return "NOTIFICATION_POSTED";
    case APPHOST_WIRE_SESSION_CLOSE_REQUESTED:
        return "SESSION_CLOSE_REQUESTED";
    case APPHOST_WIRE_SCENE_TITLE_CHANGED:
        return "SCENE_TITLE_CHANGED";
    case APPHOST_WIRE_AUDIO_CONFIGURED:
        return "AUDIO_CONFIGURED";
    case APPHOST_WIRE_AUDIO_ACTIVATION_REQUESTED:
        return "AUDIO_ACTIVATION_REQUESTED";
    case APPHOST_WIRE_AUDIO_DEACTIVATED:
        return "AUDIO_DEACTIVATED";
    case APPHOST_WIRE_AUDIO_RENDERING:
        return "AUDIO_RENDERING";
    case APPHOST_WIRE_AUDIO_GAIN:
        return "AUDIO_GAIN";
    case APPHOST_WIRE_AUDIO_OUTPUT_OVERRIDDEN:
        return "AUDIO_OUTPUT_OVERRIDDEN";
    case APPHOST_WIRE_AUDIO_THREAD:
        return "AUDIO_THREAD";
    case APPHOST_WIRE_ACTION_RESULT:
        return "ACTION_RESULT";
    }
    return "unknown";
}
