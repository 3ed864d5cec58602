/*
 * The host <-> worker wire protocol, version 9 (1 had no background calls,
 * 2 no scenes calls, 3 no activation tokens, 4 no scene titles, 5 no audio,
 * 6 no audio streams, 7 no audio threads, 8 no actions).
 *
 * With process isolation each guest runs in its own worker process
 * (apphost-worker), which talks to the host over one SOCK_STREAM socketpair
 * (the worker's file descriptor 3). This header is the one definition of
 * the protocol; its one codec is wire_messages.h, whose catalogue
 * (wire_catalogue.c) describes each message's fields once, in the order
 * given below, for the C worker and the Swift host alike.
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
 *               u8 call (enum apphost_wire_call), then per call:
 *                 DID_FINISH_LAUNCHING, WILL_TERMINATE, MEMORY_WARNING: nothing
 *                 WILL_CONNECT: u64 scene, str session_id, u8 role, u8 initial_state,
 *                               opt bytes restoration_data
 *                 SCENE_CALLBACK: u64 scene, u8 callback (enum apphost_wire_scene_callback)
 *                 EXPIRE_TASK: u64 task     (runs its expiration handler)
 *                 FIRE_TIMER: u64 timer     (runs its work)
 *                 RUN_WORK: u64 work        (runs the async work)
 *                 BACKGROUND_TIME: opt u64 nanoseconds of background budget
 *                               left (absent: unlimited, in the foreground;
 *                               values past INT64_MAX read as INT64_MAX)
 *                 SCENE_SIZE: u64 scene, u32 width, u32 height,
 *                               u8 size_class (enum apphost_size_class)
 *                 PERFORM_ACTION: u64 scene, str name, bytes payload,
 *                               u64 activation window (nanoseconds the
 *                               activation lasts from the call's delivery),
 *                               u64 activation token (the host's, never 0)
 *                 SHOULD_DISMISS_MODAL: u64 scene, u64 modal
 *                               (the REPLY's status is the verdict: 1 to let
 *                               the modal go, 0 to keep it)
 *                 DID_DISMISS_MODAL: u64 scene, u64 modal
 *                 DID_DISCARD: str session_id
 *                 NOTIFICATION_LIMIT: u32 count, u64 window nanoseconds (the
 *                               host's limit on notifications, CONTRACT N1)
 *                 SAVE_STATUS: u64 scene, bool failed (the host could not
 *                               store the scene's last save, CONTRACT X5)
 *                 AUDIO_SETUP: u32 sample_rate, u32 period_frames,
 *                               u32 channel_count (each at least 1),
 *                               u8 output, u8 input (enum apphost_audio_output,
 *                               enum apphost_audio_input)
 *                 AUDIO_ACTIVATION_FINISHED: u64 request, u8 result (enum
 *                               apphost_audio_activation_result)
 *                 AUDIO_INTERRUPTION_BEGAN: u8 reason (enum
 *                               apphost_audio_interruption_reason)
 *                 AUDIO_INTERRUPTION_ENDED: u8 reason, bool should_resume
 *                 AUDIO_ROUTE_CHANGED: u8 reason (enum
 *                               apphost_audio_route_change_reason), u8
 *                               previous output, u8 previous input, u8 output,
 *                               u8 input
 *                 SECONDARY_AUDIO_HINT: bool silence
 *                 MEDIA_SERVICES_RESET: nothing
 *                 AUDIO_STREAM: fd memfd, fd wake (the session's region,
 *                               ApphostMixing's mix_region.h, CONTRACT C13)
 *                 ACTION: u32 index (in the guest's actions table), u8 count
 *                               (at most 8), then count values (CONTRACT F2)
 *                 SAVE_CONFIRMATION: u64 confirmation (never 0), bool failed
 *                               (the host stored the save whose SAVE_STATE
 *                               carried it, or could not: CONTRACT X5)
 *               A "value" (actions.h) is u8 type code (b y n q i u x t d s,
 *               'a' for ay; 0, none, only as a result), then: bool for b;
 *               u64 for the integers (two's complement for n i x); f64 for
 *               d; bytes for s and ay (at most 65536). It must be valid for
 *               its type: within its range, a finite d, an s of UTF-8
 *               without NUL; anything else is a protocol error.
 *               An "fd" field is a u8, the descriptor's index among those the
 *               frame carries (0, 1, ... in field order): the descriptors
 *               themselves travel beside the bytes, as SCM_RIGHTS ancillary
 *               data sent with the frame's first byte, so that they reach
 *               the worker no later than the frame does.
 *               The ids are those the worker sent in the frames below; the
 *               REPLY's status for an id it never sent is
 *               APPHOST_ERROR_INVALID_HANDLE, and so on, as ahr_handle
 *               (apphost_guest_runtime.h) answers: a name past
 *               APPHOST_SCENES_TEXT_MAX_BYTES is cut, a payload past
 *               APPHOST_ACTION_PAYLOAD_MAX_BYTES is APPHOST_ERROR_TOO_LARGE.
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
 *   LOG         u8 level, str message (at most APPHOST_LOG_MESSAGE_MAX_BYTES,
 *               cut on a character boundary, UTF-8 unchecked: the host repairs)
 *   SAVE_STATE  u64 scene, bytes data (u32 length + bytes), u64 confirmation
 *               (0: none; else the id, per guest from 1, that the host's
 *               SAVE_CONFIRMATION names once it stored the save or could not)
 *   STOPPED     (empty)
 *   TASK_BEGAN  u64 task, str name (at most APPHOST_TASK_NAME_MAX_BYTES, cut
 *               on a character boundary, UTF-8 unchecked: the host repairs)
 *   TASK_ENDED  u64 task
 *   TIMER_SCHEDULED  u64 timer, u64 delay, u64 interval (0: fires once)
 *   TIMER_CANCELLED  u64 timer
 *   WORK_SUBMITTED   u64 work
 *               Ids are the worker's, per guest, counting from 1 for each
 *               kind; 0 is never one.
 *   SCENE_REQUESTED  u64 activation (the token it spent), u64 from, u8 role
 *               (enum apphost_scene_role), u8 style (enum
 *               apphost_presentation_style), bytes state (at most
 *               APPHOST_SCENE_STATE_MAX_BYTES): request_scene or
 *               request_scene_with_activation (CONTRACT S9)
 *   SESSION_ACTIVATION_REQUESTED  str session_id, u8 style (enum
 *               apphost_presentation_style)
 *   LOADING_PROGRESS  u64 scene, f64 progress (a fraction from 0 to 1,
 *               APPHOST_PROGRESS_INDETERMINATE or APPHOST_PROGRESS_NONE)
 *   MODAL_PRESENTED  u64 scene, u64 modal, u8 style (enum
 *               apphost_modal_style), str title
 *   MODAL_DISMISSED  u64 scene, u64 modal (and every modal above it)
 *   NOTIFICATION_POSTED  str title, str body (empty for none)
 *   SESSION_CLOSE_REQUESTED  str session_id: close_session, of one of the
 *               guest's sessions (CONTRACT S7)
 *   SCENE_TITLE_CHANGED  u64 scene, str title (empty for none):
 *               set_scene_title (ABI 1.3)
 *               Strings are the guest's bytes, UTF-8 unchecked (the host
 *               repairs): titles and bodies at most
 *               APPHOST_SCENES_TEXT_MAX_BYTES, cut on a character
 *               boundary; session ids 1 to 256 bytes (the runtime refuses
 *               longer ones). Modal ids are the worker's, per guest,
 *               counting from 1; 0 is never one.
 *   AUDIO_CONFIGURED  u8 category, u8 mode (enums apphost_audio_category and
 *               apphost_audio_mode), u32 options (only audio.h's bits; the
 *               combination as the runtime accepted it, CONTRACT C3, C4)
 *   AUDIO_ACTIVATION_REQUESTED  u64 request (the worker's, per guest,
 *               counting from 1)
 *   AUDIO_DEACTIVATED  bool notify_others
 *   AUDIO_RENDERING  bool rendering
 *   AUDIO_GAIN  f64 gain (0 to 1)
 *   AUDIO_OUTPUT_OVERRIDDEN  u8 override (enum apphost_audio_output_override)
 *   AUDIO_THREAD  u64 thread id (the worker's gettid, never 0), bool realtime
 *               (it got SCHED_FIFO itself)
 *   ACTION_RESULT  bool ok, then a value (the action's result; none for a
 *               void one) when ok, or str problem (a broken result) when
 *               not: written during an ACTION CALL, before its REPLY
 */
#ifndef APPHOST_WIRE_H
#define APPHOST_WIRE_H

#include <stdint.h>

enum {
    APPHOST_WIRE_VERSION = 10,
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

enum apphost_wire_type {
    /* host -> worker */
    APPHOST_WIRE_LOAD = 1,
    APPHOST_WIRE_START = 2,
    APPHOST_WIRE_CALL = 3,
    APPHOST_WIRE_STOP = 4,
    /* worker -> host */
    APPHOST_WIRE_HELLO = 64,
    APPHOST_WIRE_LOADED = 65,
    APPHOST_WIRE_LOAD_FAILED = 66,
    APPHOST_WIRE_STARTED = 67,
    APPHOST_WIRE_REPLY = 68,
    APPHOST_WIRE_LOG = 69,
    APPHOST_WIRE_SAVE_STATE = 70,
    APPHOST_WIRE_STOPPED = 71,
    APPHOST_WIRE_TASK_BEGAN = 72,
    APPHOST_WIRE_TASK_ENDED = 73,
    APPHOST_WIRE_TIMER_SCHEDULED = 74,
    APPHOST_WIRE_TIMER_CANCELLED = 75,
    APPHOST_WIRE_WORK_SUBMITTED = 76,
    APPHOST_WIRE_SCENE_REQUESTED = 77,
    APPHOST_WIRE_SESSION_ACTIVATION_REQUESTED = 78,
    APPHOST_WIRE_LOADING_PROGRESS = 79,
    APPHOST_WIRE_MODAL_PRESENTED = 80,
    APPHOST_WIRE_MODAL_DISMISSED = 81,
    APPHOST_WIRE_NOTIFICATION_POSTED = 82,
    APPHOST_WIRE_SESSION_CLOSE_REQUESTED = 83,
    APPHOST_WIRE_SCENE_TITLE_CHANGED = 84,
    APPHOST_WIRE_AUDIO_CONFIGURED = 85,
    APPHOST_WIRE_AUDIO_ACTIVATION_REQUESTED = 86,
    APPHOST_WIRE_AUDIO_DEACTIVATED = 87,
    APPHOST_WIRE_AUDIO_RENDERING = 88,
    APPHOST_WIRE_AUDIO_GAIN = 89,
    APPHOST_WIRE_AUDIO_OUTPUT_OVERRIDDEN = 90,
    APPHOST_WIRE_AUDIO_THREAD = 91,
    APPHOST_WIRE_ACTION_RESULT = 92
};

enum apphost_wire_call {
    APPHOST_WIRE_CALL_DID_FINISH_LAUNCHING = 1,
    APPHOST_WIRE_CALL_WILL_TERMINATE = 2,
    APPHOST_WIRE_CALL_MEMORY_WARNING = 3,
    APPHOST_WIRE_CALL_WILL_CONNECT = 4,
    APPHOST_WIRE_CALL_SCENE_CALLBACK = 5,
    APPHOST_WIRE_CALL_EXPIRE_TASK = 6,
    APPHOST_WIRE_CALL_FIRE_TIMER = 7,
    APPHOST_WIRE_CALL_RUN_WORK = 8,
    APPHOST_WIRE_CALL_BACKGROUND_TIME = 9,
    APPHOST_WIRE_CALL_SCENE_SIZE = 10,
    APPHOST_WIRE_CALL_PERFORM_ACTION = 11,
    APPHOST_WIRE_CALL_SHOULD_DISMISS_MODAL = 12,
    APPHOST_WIRE_CALL_DID_DISMISS_MODAL = 13,
    APPHOST_WIRE_CALL_DID_DISCARD = 14,
    APPHOST_WIRE_CALL_NOTIFICATION_LIMIT = 15,
    APPHOST_WIRE_CALL_SAVE_STATUS = 16,
    APPHOST_WIRE_CALL_AUDIO_SETUP = 17,
    APPHOST_WIRE_CALL_AUDIO_ACTIVATION_FINISHED = 18,
    APPHOST_WIRE_CALL_AUDIO_INTERRUPTION_BEGAN = 19,
    APPHOST_WIRE_CALL_AUDIO_INTERRUPTION_ENDED = 20,
    APPHOST_WIRE_CALL_AUDIO_ROUTE_CHANGED = 21,
    APPHOST_WIRE_CALL_SECONDARY_AUDIO_HINT = 22,
    APPHOST_WIRE_CALL_MEDIA_SERVICES_RESET = 23,
    APPHOST_WIRE_CALL_AUDIO_STREAM = 24,
    APPHOST_WIRE_CALL_ACTION = 25,
    APPHOST_WIRE_CALL_SAVE_CONFIRMATION = 26
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
