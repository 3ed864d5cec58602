/*
 * The wire's messages, and the one codec both sides use: the worker (C)
 * and the host (Swift, through this module). Each message's fields are
 * described once, in wire_catalogue.c, and both encoding and decoding follow
 * from that description; apphost_wire.h gives the byte layout in prose.
 *
 * A message is a type (enum apphost_wire_type) and its body. The guest's
 * calls to the host travel as the runtime reports them (ahr_report, whose
 * kinds are the wire's types), and the host's calls to the guest as the
 * runtime takes them (ahr_call), so neither side maps them to anything of
 * the wire's own.
 */
#ifndef WIRE_MESSAGES_H
#define WIRE_MESSAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apphost_guest_runtime.h"
#include "frame_builder.h"
#include "wire_cursor.h"

/* Which end reads: a decoder accepts only the frames sent to it. */
typedef enum wire_direction {
    /* LOAD, START, CALL, STOP. */
    WIRE_TO_WORKER = 0,
    /* HELLO and the frames after it. */
    WIRE_TO_HOST = 1
} wire_direction;

typedef struct wire_hello {
    uint32_t version;
    uint32_t pid;
} wire_hello;

typedef struct wire_load {
    wire_bytes path;
    wire_bytes guests_directory;
    wire_bytes host_name;
    wire_bytes host_version;
} wire_load;

typedef struct wire_start {
    wire_bytes data_directory;
} wire_start;

typedef struct wire_call {
    uint64_t sequence;
    ahr_call call;
    /* Decoded, an ACTION's arguments, which call.action_arguments points to. */
    ahr_value arguments[APPHOST_ACTION_ARGUMENTS_MAX];
} wire_call;

typedef struct wire_load_failed {
    /* enum apphost_wire_load_failure */
    uint8_t reason;
    wire_bytes detail;
} wire_load_failed;

typedef struct wire_started {
    /* enum apphost_wire_start_outcome */
    uint8_t outcome;
    int32_t init_status;
} wire_started;

typedef struct wire_reply {
    uint64_t sequence;
    int32_t status;
} wire_reply;

/* One message. STOP and STOPPED have no body. */
typedef struct wire_message {
    /* enum apphost_wire_type */
    uint8_t type;
    union {
        wire_hello hello;
        wire_load load;
        wire_start start;
        wire_call call;
        /* LOADED. Its texts' `bytes` are NULL when absent; decoded, they
         * point into the payload and are not NUL-terminated. */
        ahr_raw_descriptor loaded;
        wire_load_failed load_failed;
        wire_started started;
        wire_reply reply;
        /* The guest's calls (LOG, SAVE_STATE, TASK_BEGAN and after); `report.kind`
         * is `type`. */
        ahr_report report;
    } body;
} wire_message;

/* The descriptors that came with a frame (SCM_RIGHTS), in order, for its
 * "fd" fields; `taken` counts those the decoded message holds, which its
 * receiver then owns. */
typedef struct wire_descriptors {
    const int *fds;
    size_t count;
    size_t taken;
} wire_descriptors;

/* Why a payload was refused: one line, for the error the host shows or the
 * worker prints. */
typedef struct wire_problem {
    char text[160];
} wire_problem;

/*
 * Encodes `message` as a whole frame, ready in `frame` (frame_finish done),
 * with the descriptors of its "fd" fields in frame->fds, to send beside it.
 * Byte strings are borrowed, not copied: they must outlive the frame's
 * sending. PERFORM_ACTION's name and payload are cut to one byte past the
 * runtime's limits (APPHOST_SCENES_TEXT_MAX_BYTES,
 * APPHOST_ACTION_PAYLOAD_MAX_BYTES): the runtime answers as it would to the
 * whole, and no frame outgrows APPHOST_WIRE_MAX_FRAME.
 */
void wire_encode(const wire_message *message, frame_builder *frame);

/*
 * The CALL frame wire_encode makes of a message holding `sequence` and
 * `call` (a wire_call without its decoded arguments), written into
 * `bytes` when it fits in `capacity`, with the descriptors of its "fd" fields
 * in `fds` (room for FRAME_MAX_FDS) and their count in `*fd_count`. Returns
 * the frame's size; when that is over `capacity` nothing was written: call
 * again with that much room. For the host, which encodes each call straight
 * into what it writes to the worker: a wire_message is 5.8 KB to zero and
 * copy for a frame of a few dozen bytes, and a builder 10 KB, which Swift's
 * temporary allocations put on the heap (beyond 1 KB they never use the
 * stack on Linux).
 */
size_t wire_encode_call(uint64_t sequence, const ahr_call *call, uint8_t *bytes, size_t capacity, int *fds,
                        int *fd_count);

/*
 * Decodes a frame of `type` whose payload is `length` bytes, for the end
 * `direction` names. False for a type that end does not take, a payload
 * cut short or with bytes left over, a bool other than 0 or 1, an enum value
 * out of range, an id of 0, a state past APPHOST_SCENE_STATE_MAX_BYTES or a
 * loading progress scenes.h does not allow; then `problem` says which.
 * Decoded pointers point into `payload`. `descriptors` (NULL when none can
 * come) are those that came with the frame: an "fd" field takes the next;
 * one without a descriptor is refused too.
 */
bool wire_decode(wire_direction direction, uint8_t type, const uint8_t *payload, size_t length,
                 wire_descriptors *descriptors, wire_message *message, wire_problem *problem);

/* A REPLY's payload, as wire_decode decodes it into a message's
 * body.reply, without the whole message: the host decodes one for each
 * call. */
bool wire_decode_reply(const uint8_t *payload, size_t length, wire_reply *reply, wire_problem *problem);

/* The type's name as apphost_wire.h writes it ("CALL"), or "unknown". */
const char *wire_type_name(uint8_t type);

#endif
