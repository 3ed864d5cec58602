#include "conversation.h"

#include <stdio.h>
#include <stdlib.h>

#include "apphost_guest_runtime.h"
#include "apphost_wire.h"
#include "frame_reader.h"
#include "frame_writer.h"
#include "host_messages.h"
#include "process_setup.h"
#include "worker_exit.h"
#include "worker_messages.h"

/* Where the conversation is: each stage accepts only the frames listed. */
typedef enum conversation_stage {
    /* After HELLO: LOAD or STOP. */
    STAGE_AWAITING_LOAD,
    /* After LOADED: START or STOP. */
    STAGE_LOADED,
    /* After STARTED OK: CALL or STOP. */
    STAGE_RUNNING,
    /* After LOAD_FAILED or a failed START: STOP only. */
    STAGE_FINISHED
} conversation_stage;

typedef struct worker_conversation {
    frame_reader reader;
    /* Guest threads write LOG, SAVE_STATE, the background and the scenes
     * frames through it, via the reporter. */
    frame_writer writer;
    conversation_stage stage;
    ahr_runtime *runtime;
    /* From LOAD, for START. */
    char *host_name;
    char *host_version;
} worker_conversation;

/* Enough for dlerror()'s text naming a path of PATH_MAX bytes. */
enum { LOAD_ERROR_BYTES = 8192 };

static const char *stage_name(conversation_stage stage)
{
    switch (stage) {
    case STAGE_AWAITING_LOAD:
        return "before LOAD";
    case STAGE_LOADED:
        return "after LOADED";
    case STAGE_RUNNING:
        return "while running";
    case STAGE_FINISHED:
        return "after a failed load or start";
    }
    return "?";
}

_Noreturn static void malformed(const char *what)
{
    worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: a malformed %s frame", what);
}

/* ---- The reporter: the guest's calls to the host, from any guest thread ------- */

static void report_log(void *context, int32_t level, const char *utf8, size_t length)
{
    send_log(&((worker_conversation *)context)->writer, level, utf8, length);
}

static void report_save_state(void *context, apphost_scene_t scene, const void *bytes, size_t length)
{
    send_save_state(&((worker_conversation *)context)->writer, scene, bytes, length);
}

/* The background extension's: the runtime calls them under its background
 * lock, so that each frame is written before the reply to any call the
 * runtime handles after it (apphost_wire.h). */
static void report_task_began(void *context, apphost_task_t task, const char *utf8, size_t length)
{
    send_task_began(&((worker_conversation *)context)->writer, task, utf8, length);
}

static void report_task_ended(void *context, apphost_task_t task)
{
    send_id(&((worker_conversation *)context)->writer, APPHOST_WIRE_TASK_ENDED, task);
}

static void report_timer_scheduled(void *context, apphost_timer_t timer, uint64_t delay_ns, uint64_t interval_ns)
{
    send_timer_scheduled(&((worker_conversation *)context)->writer, timer, delay_ns, interval_ns);
}

static void report_timer_cancelled(void *context, apphost_timer_t timer)
{
    send_id(&((worker_conversation *)context)->writer, APPHOST_WIRE_TIMER_CANCELLED, timer);
}

static void report_work_submitted(void *context, uint64_t work)
{
    send_id(&((worker_conversation *)context)->writer, APPHOST_WIRE_WORK_SUBMITTED, work);
}

/* The scenes extension's: those about a scene are called while the runtime
 * knows it connected, so that each frame is written before the reply to the
 * call that disconnects it (apphost_wire.h). */
static void report_scene_requested(void *context, apphost_activation_t activation, apphost_scene_t from, int32_t role,
                                 int32_t style, const void *bytes, size_t length)
{
    send_scene_requested(&((worker_conversation *)context)->writer, activation, from, role, style, bytes, length);
}

static void report_session_activation_requested(void *context, const char *utf8, size_t length, int32_t style)
{
    send_session_activation_requested(&((worker_conversation *)context)->writer, utf8, length, style);
}

static void report_session_close_requested(void *context, const char *utf8, size_t length)
{
    send_session_close_requested(&((worker_conversation *)context)->writer, utf8, length);
}

static void report_loading_progress(void *context, apphost_scene_t scene, double progress)
{
    send_loading_progress(&((worker_conversation *)context)->writer, scene, progress);
}

static void report_modal_presented(void *context, apphost_scene_t scene, apphost_modal_t modal, int32_t style,
                                 const char *utf8, size_t length)
{
    send_modal_presented(&((worker_conversation *)context)->writer, scene, modal, style, utf8, length);
}

static void report_modal_dismissed(void *context, apphost_scene_t scene, apphost_modal_t modal)
{
    send_modal_dismissed(&((worker_conversation *)context)->writer, scene, modal);
}

static void report_notification_posted(void *context, const char *title, size_t title_length, const char *body,
                                     size_t body_length)
{
    send_notification_posted(&((worker_conversation *)context)->writer, title, title_length, body, body_length);
}

/* ---- Requests ------------------------------------------------------------- */

static void handle_load(worker_conversation *conversation, wire_frame frame)
{
    load_request request;
    char error[LOAD_ERROR_BYTES];
    char *path;

    /* guests_directory is not used here: the host makes the guest's data
     * directory and names it in START. */
    if (!decode_load(frame, &request)) {
        malformed("LOAD");
    }
    path = copy_c_string(request.path);
    conversation->host_name = copy_c_string(request.host_name);
    conversation->host_version = copy_c_string(request.host_version);
    if (path == NULL || conversation->host_name == NULL || conversation->host_version == NULL) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: a LOAD string holds a NUL byte");
    }
    /* The host has set our limits by now; the guest's constructors run next. */
    process_take_guest_user();
    switch (ahr_load(path, &conversation->runtime, error, sizeof error)) {
    case AHR_LOAD_OK:
        send_loaded(&conversation->writer, ahr_descriptor(conversation->runtime));
        conversation->stage = STAGE_LOADED;
        break;
    case AHR_LOAD_DLOPEN_FAILED:
        send_load_failed(&conversation->writer, APPHOST_WIRE_LOAD_DLOPEN, error);
        conversation->stage = STAGE_FINISHED;
        break;
    case AHR_LOAD_NO_ENTRY:
        send_load_failed(&conversation->writer, APPHOST_WIRE_LOAD_NO_ENTRY, error);
        conversation->stage = STAGE_FINISHED;
        break;
    case AHR_LOAD_OUT_OF_MEMORY:
        worker_fail(WORKER_EXIT_FAILURE, "out of memory loading %s", path);
    }
    free(path);
}

static uint8_t wire_outcome(ahr_start_result result)
{
    switch (result) {
    case AHR_START_OK:
        return APPHOST_WIRE_STARTED_OK;
    case AHR_START_INIT_FAILED:
        return APPHOST_WIRE_STARTED_INIT_FAILED;
    case AHR_START_NO_APP_CALLBACKS:
        return APPHOST_WIRE_STARTED_NO_APP_CALLBACKS;
    }
    return APPHOST_WIRE_STARTED_INIT_FAILED;
}

static void handle_start(worker_conversation *conversation, wire_frame frame)
{
    start_request request;
    ahr_reporter reporter = {conversation,
                     report_log,
                     report_save_state,
                     report_task_began,
                     report_task_ended,
                     report_timer_scheduled,
                     report_timer_cancelled,
                     report_work_submitted,
                     report_scene_requested,
                     report_session_activation_requested,
                     report_loading_progress,
                     report_modal_presented,
                     report_modal_dismissed,
                     report_notification_posted,
                     report_session_close_requested};
    ahr_start_result result;
    int32_t init_status = APPHOST_OK;
    char *data_directory;

    if (!decode_start(frame, &request)) {
        malformed("START");
    }
    data_directory = copy_c_string(request.data_directory);
    if (data_directory == NULL) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: START's data directory holds a NUL byte");
    }
    result = ahr_start(conversation->runtime, data_directory, conversation->host_name, conversation->host_version, reporter,
                       &init_status);
    /* The runtime keeps copies. */
    free(data_directory);
    free(conversation->host_name);
    free(conversation->host_version);
    conversation->host_name = NULL;
    conversation->host_version = NULL;

    send_started(&conversation->writer, wire_outcome(result), init_status);
    conversation->stage = result == AHR_START_OK ? STAGE_RUNNING : STAGE_FINISHED;
}

static void handle_call(worker_conversation *conversation, wire_frame frame)
{
    call_request request;
    int32_t status;

    if (!decode_call(frame, &request)) {
        malformed("CALL");
    }
    status = ahr_handle(conversation->runtime, &request.call);
    send_reply(&conversation->writer, request.sequence, status);
}

_Noreturn static void handle_stop(worker_conversation *conversation, wire_frame frame)
{
    if (!decode_stop(frame)) {
        malformed("STOP");
    }
    /* deinit (when init succeeded), then unload. */
    ahr_stop(conversation->runtime);
    conversation->runtime = NULL;
    send_stopped(&conversation->writer);
    /* exit, not _exit: what the guest printed last still reaches stdout. */
    exit(WORKER_EXIT_OK);
}

/* ---- The conversation ----------------------------------------------------- */

/* The one request type `stage` accepts besides STOP. */
static uint8_t expected_type(conversation_stage stage)
{
    switch (stage) {
    case STAGE_AWAITING_LOAD:
        return APPHOST_WIRE_LOAD;
    case STAGE_LOADED:
        return APPHOST_WIRE_START;
    case STAGE_RUNNING:
        return APPHOST_WIRE_CALL;
    case STAGE_FINISHED:
        return APPHOST_WIRE_STOP;
    }
    return APPHOST_WIRE_STOP;
}

static void dispatch(worker_conversation *conversation, wire_frame frame)
{
    if (frame.type == APPHOST_WIRE_STOP) {
        handle_stop(conversation, frame);
    }
    if (frame.type != expected_type(conversation->stage)) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: frame type %u is not expected %s", frame.type,
                    stage_name(conversation->stage));
    }
    switch (frame.type) {
    case APPHOST_WIRE_LOAD:
        handle_load(conversation, frame);
        break;
    case APPHOST_WIRE_START:
        handle_start(conversation, frame);
        break;
    case APPHOST_WIRE_CALL:
        handle_call(conversation, frame);
        break;
    }
}

_Noreturn void conversation_serve(int fd)
{
    worker_conversation conversation = {0};

    conversation.reader.fd = fd;
    frame_writer_init(&conversation.writer, fd);
    conversation.stage = STAGE_AWAITING_LOAD;
    send_hello(&conversation.writer);
    for (;;) {
        dispatch(&conversation, frame_read(&conversation.reader));
        frame_reader_trim(&conversation.reader);
    }
}
