#include "conversation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apphost_guest_runtime.h"
#include "apphost_wire.h"
#include "frame_reader.h"
#include "frame_writer.h"
#include "process_setup.h"
#include "realtime_limit.h"
#include "sandbox.h"
#include "wire_messages.h"
#include "worker_exit.h"

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
    /* Guest threads write their reports through it too. */
    frame_writer writer;
    conversation_stage stage;
    ahr_runtime *runtime;
    /* From LOAD, for START. */
    char *host_name;
    char *host_version;
} worker_conversation;

/* Enough for dlerror()'s text naming a path of PATH_MAX bytes. */
enum { LOAD_ERROR_BYTES = 8192 };

/* Writes `message` whole, before any other thread's frame. */
static void send_message(frame_writer *writer, const wire_message *message)
{
    frame_send_message(writer, message);
}

/* Decodes the host's `frame`, with the descriptors received so far for its
 * "fd" fields (which the message then owns), or ends the process: a host
 * that sends a malformed frame can no longer be trusted. */
static void decode_or_fail(frame_reader *reader, wire_frame frame, wire_message *message)
{
    wire_problem problem;
    wire_descriptors descriptors = {reader->fds, reader->fd_count, 0};

    if (!wire_decode(WIRE_TO_WORKER, frame.type, frame.payload, frame.length, &descriptors, message, &problem)) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: a malformed %s frame: %s", wire_type_name(frame.type),
                    problem.text);
    }
    frame_reader_take_fds(reader, descriptors.taken);
}

/* A NUL-terminated copy of a "str" that names a file or is handed on as a C
 * string; NULL when it holds a NUL, which no such string can. Free it with
 * free(). */
static char *copy_c_string(wire_bytes text)
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

/* ---- The reporter: the guest's calls to the host, from any guest thread ------- */

/* Each report is the frame of its kind's number. The runtime makes the
 * background and scenes reports under its locks, so that each frame is
 * written before the reply to any call it handles after (apphost_wire.h). */
static void send_report(void *context, const ahr_report *report)
{
    /* Not an initializer: that would clear the whole 5.8 KB message. */
    wire_message message;

    message.type = (uint8_t)report->kind;
    message.body.report = *report;
    send_message(&((worker_conversation *)context)->writer, &message);
}

/* From the reporter thread of realtime_limit.c: an audio thread it demoted
 * at the real-time limit. */
static void report_overrun(void *context, int32_t thread)
{
    ahr_report report = {.kind = AHR_REPORT_AUDIO_THREAD_OVERRAN};

    report.audio_thread_overran.id = (uint64_t)thread;
    send_report(context, &report);
}

/* ---- Requests ------------------------------------------------------------- */

static void send_load_failed(worker_conversation *conversation, uint8_t reason, const char *detail)
{
    wire_message message = {.type = APPHOST_WIRE_LOAD_FAILED,
                            .body.load_failed = {reason, {(const uint8_t *)detail, strlen(detail)}}};

    send_message(&conversation->writer, &message);
    conversation->stage = STAGE_FINISHED;
}

static void handle_load(worker_conversation *conversation, wire_frame frame)
{
    wire_message request;
    wire_message loaded = {.type = APPHOST_WIRE_LOADED};
    char error[LOAD_ERROR_BYTES];
    char *path, *guests_directory;

    /* The host makes the guest's data directory in guests_directory and
     * names it in START; until then the container allows all of it. */
    decode_or_fail(&conversation->reader, frame, &request);
    path = copy_c_string(request.body.load.path);
    guests_directory = copy_c_string(request.body.load.guests_directory);
    conversation->host_name = copy_c_string(request.body.load.host_name);
    conversation->host_version = copy_c_string(request.body.load.host_version);
    if (path == NULL || guests_directory == NULL || conversation->host_name == NULL ||
        conversation->host_version == NULL) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: a LOAD string holds a NUL byte");
    }
    /* The host has set our limits by now; the guest's constructors run next,
     * under its user and in its container. */
    sandbox_cut_network();
    process_take_guest_user();
    sandbox_enter(path, guests_directory);
    free(guests_directory);
    switch (ahr_load(path, &conversation->runtime, error, sizeof error)) {
    case AHR_LOAD_OK:
        loaded.body.loaded = *ahr_descriptor(conversation->runtime);
        send_message(&conversation->writer, &loaded);
        conversation->stage = STAGE_LOADED;
        break;
    case AHR_LOAD_DLOPEN_FAILED:
        send_load_failed(conversation, APPHOST_WIRE_LOAD_DLOPEN, error);
        break;
    case AHR_LOAD_NO_ENTRY:
        send_load_failed(conversation, APPHOST_WIRE_LOAD_NO_ENTRY, error);
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
    wire_message request;
    wire_message started = {.type = APPHOST_WIRE_STARTED};
    ahr_reporter reporter = {conversation, send_report};
    ahr_start_result result;
    int32_t init_status = APPHOST_OK;
    char *data_directory;

    decode_or_fail(&conversation->reader, frame, &request);
    data_directory = copy_c_string(request.body.start.data_directory);
    if (data_directory == NULL) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: START's data directory holds a NUL byte");
    }
    sandbox_narrow(data_directory);
    result = ahr_start(conversation->runtime, data_directory, conversation->host_name, conversation->host_version, reporter,
                       &init_status);
    /* The runtime keeps copies. */
    free(data_directory);
    free(conversation->host_name);
    free(conversation->host_version);
    conversation->host_name = NULL;
    conversation->host_version = NULL;

    started.body.started.outcome = wire_outcome(result);
    started.body.started.init_status = init_status;
    send_message(&conversation->writer, &started);
    conversation->stage = result == AHR_START_OK ? STAGE_RUNNING : STAGE_FINISHED;
}

static void handle_call(worker_conversation *conversation, wire_frame frame)
{
    wire_message request;
    /* Not an initializer, which would clear the whole 5.8 KB message: the
     * encoder reads the type and the reply only. */
    wire_message reply;

    decode_or_fail(&conversation->reader, frame, &request);
    /* A guest with sound gets the reporter of its audio thread's overruns. */
    if (request.body.call.call.kind == AHR_CALL_AUDIO_STREAM) {
        realtime_limit_report_to(report_overrun, conversation);
    }
    reply.type = APPHOST_WIRE_REPLY;
    reply.body.reply.sequence = request.body.call.sequence;
    reply.body.reply.status = ahr_handle(conversation->runtime, &request.body.call.call);
    send_message(&conversation->writer, &reply);
}

_Noreturn static void handle_stop(worker_conversation *conversation, wire_frame frame)
{
    wire_message request;
    wire_message stopped = {.type = APPHOST_WIRE_STOPPED};

    decode_or_fail(&conversation->reader, frame, &request);
    /* deinit (when init succeeded), then unload. */
    ahr_stop(conversation->runtime);
    conversation->runtime = NULL;
    send_message(&conversation->writer, &stopped);
    /* exit, not _exit: what the guest printed last still reaches stdout. */
    exit(WORKER_EXIT_OK);
}

/* Reports each call the container refused since the last frame, once per
 * name; reports may go only after START. */
static void report_refusals(worker_conversation *conversation)
{
    char *call;

    if (conversation->stage != STAGE_RUNNING) {
        return;
    }
    while ((call = sandbox_take_refusal()) != NULL) {
        ahr_report report = {.kind = AHR_REPORT_SANDBOX_REFUSED};

        report.sandbox_refused.text = call;
        report.sandbox_refused.text_length = strlen(call);
        send_report(conversation, &report);
        free(call);
    }
}

/* ---- The conversation ----------------------------------------------------- */

/* What each stage accepts besides STOP, and how a protocol error names it. */
static const struct stage_rules {
    const char *name;
    uint8_t expected_type;
    /* NULL where STOP is all there is. */
    void (*handle)(worker_conversation *conversation, wire_frame frame);
} stages[] = {
    [STAGE_AWAITING_LOAD] = {"before LOAD", APPHOST_WIRE_LOAD, handle_load},
    [STAGE_LOADED] = {"after LOADED", APPHOST_WIRE_START, handle_start},
    [STAGE_RUNNING] = {"while running", APPHOST_WIRE_CALL, handle_call},
    [STAGE_FINISHED] = {"after a failed load or start", APPHOST_WIRE_STOP, NULL},
};

static void dispatch(worker_conversation *conversation, wire_frame frame)
{
    const struct stage_rules *stage = &stages[conversation->stage];

    if (frame.type == APPHOST_WIRE_STOP) {
        handle_stop(conversation, frame);
    }
    if (frame.type != stage->expected_type) {
        worker_fail(WORKER_EXIT_PROTOCOL, "protocol error: frame type %u is not expected %s", frame.type,
                    stage->name);
    }
    stage->handle(conversation, frame);
}

_Noreturn void conversation_serve(int fd)
{
    worker_conversation conversation = {0};
    wire_message hello = {.type = APPHOST_WIRE_HELLO};

    conversation.reader.fd = fd;
    frame_writer_init(&conversation.writer, fd);
    conversation.stage = STAGE_AWAITING_LOAD;
    hello.body.hello.version = APPHOST_WIRE_VERSION;
    hello.body.hello.pid = (uint32_t)getpid();
    send_message(&conversation.writer, &hello);
    for (;;) {
        dispatch(&conversation, frame_read(&conversation.reader));
        report_refusals(&conversation);
        frame_reader_trim(&conversation.reader);
    }
}
