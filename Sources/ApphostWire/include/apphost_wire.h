/*
 * The host <-> worker wire protocol, version APPHOST_MESSAGES_WIRE_VERSION
 * (apphost_messages.h, which says what each version added).
 *
 * With process isolation each guest runs in its own worker process
 * (apphost-worker), which talks to the host over one SOCK_STREAM socketpair
 * (the worker's file descriptor 3). This header defines the framing and
 * the conversation; every message, its number and its fields are listed
 * once in apphost_messages.h's table, and its one codec is wire_messages.h,
 * whose catalogue (wire_catalogue.c) walks each message's fields as the
 * table lists them, for the C worker and the Swift host alike.
 *
 * Framing. Every message is one frame:
 *
 *     u32  length   bytes that follow (type and payload), at most
 *                   APPHOST_WIRE_MAX_FRAME
 *     u8   type     enum apphost_wire_type
 *     ...  payload  fields in the order listed below, no padding
 *
 * Integers are little-endian. A "str" is u32 length + that many bytes (UTF-8
 * expected, not NUL-terminated). An "opt str" / "opt bytes" is u8 present
 * (0 or 1) followed, when present, by u32 length + bytes; an "opt u64" is u8
 * present followed, when present, by the u64. A "bool" is a u8. Durations
 * are u64 nanoseconds. An "f64" is an IEEE 754 binary64 as the u64 of its
 * bits (little-endian, as every integer).
 *
 * Conversation. The worker speaks first with HELLO. The host then sends LOAD;
 * the worker answers LOADED or LOAD_FAILED. After validating the descriptor
 * the host sends START (or STOP); the worker answers STARTED. Then CALLs,
 * each answered by one REPLY with the same sequence number, in order. LOG,
 * SAVE_STATE, the background frames (TASK_BEGAN to WORK_SUBMITTED) and the
 * scenes frames (SCENE_REQUESTED to SCENE_TITLE_CHANGED) and the audio frames
 * (AUDIO_CONFIGURED to AUDIO_OUTPUT_OVERRIDDEN) may come from the
 * worker at any time after START, even before STARTED, from any guest
 * thread; the worker writes whole frames under a lock. A background frame
 * is written while the guest's runtime holds its background lock, so that a
 * TASK_BEGAN for a task begun before a CALL's BACKGROUND_TIME was handled
 * comes before that CALL's REPLY. A scenes frame about a scene
 * (SCENE_REQUESTED, LOADING_PROGRESS, MODAL_PRESENTED, MODAL_DISMISSED,
 * SCENE_TITLE_CHANGED) is
 * written while the runtime knows the scene connected, so that it comes
 * before the REPLY to the CALL that disconnects it; a SCENE_REQUESTED made
 * inside perform_action comes before that CALL's REPLY. STOP makes the
 * worker call deinit (when init succeeded), unload the guest, answer STOPPED
 * and exit 0. If the host closes its end, the worker exits at once. After
 * LOAD_FAILED or a STARTED that is not OK, the worker accepts only STOP.
 *
 * Worker exit statuses: 0 after STOP or when the host closed its end; 1 on a
 * failure of its own (out of memory, a socket error); 2 when fd 3 is not a
 * stream socket; 3 on a protocol error: a frame cut short, with bytes left
 * over, with a length out of range, an unknown type, an enum value out of
 * range (SCENE_SIZE's size class included), a bool not 0 or 1, a NUL inside
 * LOAD's or START's strings, or a frame the conversation does not allow at
 * that point. The host treats what the worker sends alike: besides, an id
 * of 0, a state past APPHOST_SCENE_STATE_MAX_BYTES and a LOADING_PROGRESS
 * value scenes.h does not allow are protocol errors.
 *
 * Host to worker:
 *   LOAD        str path, str guests_directory, str host_name, str host_version
 *               (the worker does not use guests_directory: the host makes the
 *               guest's data directory and names it in START)
 *   START       str data_directory
 *   CALL        u64 sequence, u8 app_state, bool has_scene_state, u8 scene_state,
 *               u8 call (enum apphost_wire_call), then that call's fields, as
 *               apphost_messages.h lists and describes them
 *   STOP        (empty)
 *
 * Worker to host:
 *   HELLO       u32 protocol version (APPHOST_WIRE_VERSION), u32 worker pid
 *   LOADED      u32 abi_major, u32 abi_minor, u32 abi_revision,
 *               bool has_descriptor, u32 struct_size,
 *               opt str id, opt str name, opt str version, opt str vendor,
 *               opt str description, u64 capabilities,
 *               bool has_init, bool has_deinit, bool has_query,
 *               bool has_actions, then when it is 1 (ABI 1.6, actions.h):
 *                 u32 struct_size, u32 action_size, opt str id,
 *                 u32 count, u32 read (count, or 0 past 64), then per
 *                 action read: opt str name, opt str arguments, opt str
 *                 result, opt str description, u64 flags, bool has_function
 *               (raw values: the host validates them, CONTRACT X1; strings are
 *               the guest's bytes, UTF-8 unchecked, each cut at 4096 bytes
 *               on a character boundary; for a guest of another ABI major
 *               only the version is read, and has_descriptor and has_* are 0)
 *   LOAD_FAILED u8 reason (enum apphost_wire_load_failure), str detail
 *               (for DLOPEN: the dlerror() text; for NO_ENTRY: dlsym's)
 *   STARTED     u8 outcome (enum apphost_wire_start_outcome), i32 init_status
 *   REPLY       u64 sequence, i32 status
 *   (reports)   LOG, SAVE_STATE, and TASK_BEGAN to the last: the report's
 *               fields, as apphost_messages.h lists and describes them
 *   STOPPED     (empty)
 */
#ifndef APPHOST_WIRE_H
#define APPHOST_WIRE_H

#include <stdint.h>

#include "apphost_messages.h"

enum {
    APPHOST_WIRE_VERSION = APPHOST_MESSAGES_WIRE_VERSION,
    /* The worker's end of the socketpair. */
    APPHOST_WIRE_WORKER_FD = 3,
    /* Largest frame: a 1 MiB scene state plus room for the other fields. */
    APPHOST_WIRE_MAX_FRAME = (1 << 20) + 4096
};

/* Set in the worker's environment by a host that gives each worker a user
 * of its own: "<uid>:<group>", two decimal numbers. At LOAD, before the
 * guest's library is loaded, the worker takes the uid, and the gid of the
 * same number, with <group> as its only supplementary group. The host
 * allocated the uid for this worker's guest (WorkerUsers). Unset: the worker
 * stays the host's user. */
#define APPHOST_WORKER_USER_VARIABLE "APPHOST_WORKER_USER"

/* Set in the worker's environment by a host that contains its guests
 * (CONTRACT X6): the parts of the container the worker enforces at LOAD,
 * before the guest's library is loaded, separated by commas:
 * APPHOST_SANDBOX_FILESYSTEM (Landlock: the system's libraries and the
 * guest's to read, the guests directory to write until START narrows it to
 * the guest's data directory), APPHOST_SANDBOX_CALLS (a seccomp filter;
 * each refused call is a SANDBOX_REFUSED report) and APPHOST_SANDBOX_NETWORK
 * (no network: a network namespace with no interface up, and, with the
 * filter, socket() of a network family refused), which the host leaves out
 * for a guest with the network entitlement (CONTRACT A6). A part the worker
 * cannot enforce ends it with status 1 and a line on stderr saying why.
 * Unset: no container. */
#define APPHOST_WORKER_SANDBOX_VARIABLE "APPHOST_WORKER_SANDBOX"
#define APPHOST_SANDBOX_FILESYSTEM "filesystem"
#define APPHOST_SANDBOX_CALLS "calls"
#define APPHOST_SANDBOX_NETWORK "network"

/* Set by a host whose operator granted the guest files outside its
 * container (`--grant`): absolute paths, one per line, that the filesystem
 * part lets the guest read (CONTRACT A6). */
#define APPHOST_WORKER_GRANTS_VARIABLE "APPHOST_WORKER_GRANTS"

/* Set by a host with APPHOST_SANDBOX_CALLS: the call filter's BPF program,
 * as `--sandbox-support` printed it for the same network part, which the
 * worker loads with its own pid put in rather than compiling the filter. */
#define APPHOST_WORKER_CALL_FILTER_VARIABLE "APPHOST_WORKER_CALL_FILTER"
/* The worker's one argument that makes it enforce each part in a throwaway
 * process and print "<part> ok: ..." or "<part> missing: <why>", a line
 * each: how the host learns what this machine's kernel allows; then, where
 * the filter held, "program network <hex>" and "program - <hex>", its
 * program with and without the network part, for
 * APPHOST_WORKER_CALL_FILTER. */
#define APPHOST_SANDBOX_SUPPORT_ARGUMENT "--sandbox-support"

/* "1" in the worker's environment keeps the guest's core dumps; otherwise
 * the worker sets RLIMIT_CORE to 0 before the guest loads. */
#define APPHOST_WORKER_CORE_DUMPS_VARIABLE "APPHOST_WORKER_CORE_DUMPS"

/* The numbers of apphost_messages.h's table: a frame's type is one of its
 * frames or reports (a report's frame has the report's number), a CALL's
 * call one of its calls. */
#define APPHOST_WIRE_TYPE(number, name, ...) APPHOST_WIRE_##name = number,
#define APPHOST_WIRE_CALL_NUMBER(number, name, ...) APPHOST_WIRE_CALL_##name = number,
#define APPHOST_WIRE_IGNORE(...)

enum apphost_wire_type {
    APPHOST_MESSAGES_FRAMES(APPHOST_WIRE_TYPE)
    APPHOST_MESSAGES_REPORTS(APPHOST_WIRE_TYPE, APPHOST_WIRE_IGNORE, APPHOST_WIRE_IGNORE, APPHOST_WIRE_IGNORE)
};

enum apphost_wire_call {
    APPHOST_MESSAGES_CALLS(APPHOST_WIRE_CALL_NUMBER, APPHOST_WIRE_IGNORE, APPHOST_WIRE_IGNORE, APPHOST_WIRE_IGNORE)
};

enum apphost_wire_scene_callback {
    APPHOST_WIRE_SCENE_WILL_ENTER_FOREGROUND = 1,
    APPHOST_WIRE_SCENE_DID_BECOME_ACTIVE = 2,
    APPHOST_WIRE_SCENE_WILL_RESIGN_ACTIVE = 3,
    APPHOST_WIRE_SCENE_DID_ENTER_BACKGROUND = 4,
    APPHOST_WIRE_SCENE_DID_DISCONNECT = 5
};

enum apphost_wire_load_failure {
    /* dlopen failed; detail is dlerror()'s text, which the host classifies. */
    APPHOST_WIRE_LOAD_DLOPEN = 1,
    /* The library has no apphost_entry symbol. */
    APPHOST_WIRE_LOAD_NO_ENTRY = 2
};

enum apphost_wire_start_outcome {
    APPHOST_WIRE_STARTED_OK = 0,
    /* init returned init_status, which is not APPHOST_OK; deinit was not called. */
    APPHOST_WIRE_STARTED_INIT_FAILED = 1,
    /* init succeeded but query(APPHOST_GUEST_APP_CALLBACKS_ID) returned NULL;
     * deinit was called. */
    APPHOST_WIRE_STARTED_NO_APP_CALLBACKS = 2
};

#endif /* APPHOST_WIRE_H */
