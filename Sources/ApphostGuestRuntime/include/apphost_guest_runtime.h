/*
 * The guest runtime: the guest's side of a channel, in C.
 *
 * It loads one guest library, hands its init the host interface of
 * sdk/include/apphost/host.h, delivers host-to-guest calls and passes what
 * the guest sends the host (log lines, saved scene states, the tasks,
 * timers and async work of the background extension, the requests of the
 * scenes extension and the audio extension's calls) to a reporter. It keeps
 * a mirror of the states the host last gave the guest, so that app_state,
 * scene_state and scene_size answer "as of the callback being delivered",
 * and get_session as of now, without asking the host. It knows
 * nothing of sockets or Swift: the worker process (apphost-worker) drives it
 * from its main thread, and the host can call it directly for guests it runs
 * in its own process.
 *
 * Threads: ahr_start, ahr_handle and ahr_stop run on the guest's main queue,
 * one thread, one at a time. ahr_load and ahr_descriptor may run anywhere.
 * The host functions the guest calls are safe from any guest thread
 * (CONTRACT X3).
 */
#ifndef APPHOST_GUEST_RUNTIME_H
#define APPHOST_GUEST_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <apphost/apphost.h>

#include "apphost_messages.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One loaded guest. Opaque; made by ahr_load, freed by ahr_stop. */
typedef struct ahr_runtime ahr_runtime;

/* ---- Loading -------------------------------------------------------------- */

typedef enum ahr_load_result {
    AHR_LOAD_OK = 0,
    /* dlopen failed; the error text is dlerror()'s. */
    AHR_LOAD_DLOPEN_FAILED = 1,
    /* The library has no apphost_entry symbol; the error text is dlerror()'s
     * for the dlsym. The library is unloaded again. */
    AHR_LOAD_NO_ENTRY = 2,
    /* The runtime could not allocate itself; the library is unloaded again. */
    AHR_LOAD_OUT_OF_MEMORY = 3
} ahr_load_result;

/*
 * dlopens `path` with RTLD_NOW | RTLD_LOCAL, as it is: give a path with a
 * '/', since dlopen searches the library path for a bare file name. Finds
 * apphost_entry and reads its raw descriptor (ahr_descriptor) without
 * validating anything and without calling any guest function: the caller
 * validates (CONTRACT X1). Nothing of the guest has run but its library
 * constructors.
 *
 * On AHR_LOAD_OK, *out is the runtime. Otherwise *out is NULL and, when
 * `error` is not NULL and `error_size` is not 0, `error` holds what went
 * wrong (dlerror()'s text, or "out of memory"), NUL-terminated, cut to fit
 * without splitting a UTF-8 sequence.
 */
ahr_load_result ahr_load(const char *path, ahr_runtime **out, char *error, size_t error_size);

/* The longest descriptor string the runtime reads, in bytes: a string with
 * no NUL within this many bytes is cut (at a character boundary), so a
 * garbage descriptor cannot make the runtime read on without end. */
enum { AHR_DESCRIPTOR_STRING_MAX_BYTES = 4096 };

/* A string read from the guest: `bytes` is NULL when the guest's pointer was
 * NULL or lay past its struct_size; otherwise a NUL-terminated copy owned by
 * the runtime, of `length` bytes, as the guest wrote them (UTF-8 unchecked). */
typedef struct ahr_text {
    const char *bytes;
    size_t length;
} ahr_text;

/* One action of the guest's table (actions.h) as declared: texts as
 * ahr_text says, `has_function` false for a NULL function. `function` is
 * the runtime's, for its calls: the wire carries has_function only, since
 * an address in the worker means nothing to the host. */
typedef struct ahr_raw_action {
    ahr_text name;
    ahr_text arguments;
    ahr_text result;
    ahr_text description;
    uint64_t flags;
    bool has_function;
    apphost_action_function_t function;
} ahr_raw_action;

/* apphost_entry and its descriptor as the guest declared them. */
typedef struct ahr_raw_descriptor {
    apphost_version_t abi_version;
    /* False when apphost_entry.descriptor is NULL, or when the guest was built
     * for another ABI major, whose entry may be laid out differently: then
     * only abi_version was read, and every member below is zero. */
    bool has_descriptor;
    /* The descriptor's struct_size as declared; members past it (and past
     * this runtime's descriptor) were not read and are zero or absent. */
    uint32_t struct_size;
    ahr_text id;
    ahr_text name;
    ahr_text version;
    ahr_text vendor;
    ahr_text description;
    uint64_t capabilities;
    bool has_init;
    bool has_deinit;
    bool has_query;
    /* ABI 1.6: the actions table the descriptor points to (actions.h), as
     * declared; has_actions is false for a NULL pointer or a descriptor
     * whose struct_size ends before it. The runtime reads the table's
     * members within its struct_size, each action's within action_size,
     * `action_count` actions (`actions_read`), and none when that is past
     * APPHOST_ACTIONS_MAX or action_size cannot hold a name.
     * An action's strings are cut one byte past actions.h's limits (a
     * signature at 17 bytes, a result at 3), so that the host still sees
     * them too long. */
    bool has_actions;
    uint32_t actions_struct_size;
    uint32_t action_size;
    ahr_text actions_id;
    uint32_t action_count;
    uint32_t actions_read;
    ahr_raw_action actions[APPHOST_ACTIONS_MAX];
} ahr_raw_descriptor;

/* The guest's raw descriptor, owned by the runtime until ahr_stop. */
const ahr_raw_descriptor *ahr_descriptor(const ahr_runtime *runtime);

/* ---- Starting ------------------------------------------------------------- */

/*
 * What the guest asks of the host: its own calls, after the runtime checked
 * their arguments (CONTRACT X3). The kinds are the reports of
 * apphost_messages.h's table, whose numbers enum apphost_wire_type takes too,
 * so that a worker sends a report as the frame of the same number. The
 * table's fields make each kind's own type (ahr_report_<name>, below), and
 * its prose says what each means.
 */
#define AHR_REPORT_KIND(number, name, ...) AHR_REPORT_##name = number,
#define AHR_MESSAGE_IGNORE(...)
typedef enum ahr_report_kind {
    APPHOST_MESSAGES_REPORTS(AHR_REPORT_KIND, AHR_MESSAGE_IGNORE, AHR_MESSAGE_IGNORE, AHR_MESSAGE_IGNORE)
} ahr_report_kind;

/* The type codes of actions.h's signatures, one per value; ay is
 * AHR_VALUE_BYTES, 'a'. */
typedef enum ahr_value_type {
    /* No value: the result of a void action. */
    AHR_VALUE_NONE = 0,
    AHR_VALUE_BOOL = 'b',
    AHR_VALUE_UINT8 = 'y',
    AHR_VALUE_INT16 = 'n',
    AHR_VALUE_UINT16 = 'q',
    AHR_VALUE_INT32 = 'i',
    AHR_VALUE_UINT32 = 'u',
    AHR_VALUE_INT64 = 'x',
    AHR_VALUE_UINT64 = 't',
    AHR_VALUE_DOUBLE = 'd',
    AHR_VALUE_STRING = 's',
    AHR_VALUE_BYTES = 'a'
} ahr_value_type;

/* One argument or result. The member its type uses: `boolean` for b,
 * `integer` for n, i and x, `unsigned_integer` for y, q, u and t, `real`
 * for d, `bytes` and `length` for s (UTF-8, no NUL, not NUL-terminated) and
 * ay; the others are zero. Integers hold values within their type's range. */
typedef struct ahr_value {
    ahr_value_type type;
    bool boolean;
    int64_t integer;
    uint64_t unsigned_integer;
    double real;
    const void *bytes;
    size_t length;
} ahr_value;

/* A signature's text parsed (actions.h): up to `max` complete types ("ay"
 * is one) into `types`, their number in *count. False for anything else
 * (an unknown code, an 'a' not followed by 'y', more than `max` types),
 * with `problem` (when not NULL) saying what, NUL-terminated, cut to
 * `problem_size`. [thread-safe] */
bool ahr_parse_value_types(const char *text, size_t length, size_t max, ahr_value_type *types, size_t *count,
                           char *problem, size_t problem_size);

/* True when `value` is a valid value of its type for an action: an integer
 * within its type's range, a finite double, a string or bytes of at most
 * APPHOST_ACTION_VALUE_MAX_BYTES (bytes NULL only with length 0), a string
 * of valid UTF-8 without NUL. [thread-safe] */
bool ahr_value_is_valid(const ahr_value *value);

/* A field F(member, kind) of the table as its C members (APPHOST_FIELD_<kind>,
 * apphost_messages.h). */
#define AHR_MESSAGE_FIELD(member, kind) APPHOST_FIELD_##kind(member)

/* Each report's own type, ahr_report_<name>, made of the table's fields:
 * ahr_report_scene_title_changed is { uint64_t scene; const char *text;
 * size_t text_length; }. Texts are the guest's bytes: not NUL-terminated
 * and not checked, invalid UTF-8 passed on as it is, for the receiver to
 * repair. */
#define AHR_REPORT_TYPE(number, name, lower_name, area, swift_case, fields, arguments) \
    typedef struct ahr_report_##lower_name {                                           \
        fields                                                                         \
    } ahr_report_##lower_name;
APPHOST_MESSAGES_REPORTS(AHR_REPORT_TYPE, AHR_MESSAGE_FIELD, AHR_MESSAGE_IGNORE, AHR_MESSAGE_IGNORE)

/* One report: its kind, and its members in the union's member of that kind's
 * name (a TASK_BEGAN's in `report->task_began`); the others are not used. */
#define AHR_REPORT_MEMBER(number, name, lower_name, ...) ahr_report_##lower_name lower_name;
typedef struct ahr_report {
    ahr_report_kind kind;
    union {
        APPHOST_MESSAGES_REPORTS(AHR_REPORT_MEMBER, AHR_MESSAGE_IGNORE, AHR_MESSAGE_IGNORE, AHR_MESSAGE_IGNORE)
    };
} ahr_report;

/*
 * Where the reports go: `report` is called for each, on whichever guest
 * thread made the call, possibly several at once, and must copy what it
 * keeps: the pointers are valid only during the call. It must not call back
 * into the runtime. A NULL `report` drops them. The context must stay valid
 * until ahr_stop returns; no report is made after that, or after a failed
 * ahr_start returns.
 */
typedef struct ahr_reporter {
    void *context;
    void (*report)(void *context, const ahr_report *report);
} ahr_reporter;

/* The largest notification limit the runtime keeps count of. */
enum { AHR_NOTIFICATION_LIMIT_MAX = 10000 };

/* CONTRACT X7: how many audio session requests (set_configuration,
 * activate, deactivate, set_rendering, set_gain, override_output) a guest
 * may make within AHR_AUDIO_REQUEST_WINDOW_NS; the rest of the window gets
 * APPHOST_ERROR_LIMIT_REACHED and reaches no one. The host keeps the same
 * numbers (ApphostPolicy's FloodPolicy.audioRequests) and stops a guest that
 * keeps at the limit. */
enum { AHR_AUDIO_REQUEST_LIMIT = 100 };
#define AHR_AUDIO_REQUEST_WINDOW_NS 1000000000ULL

/* The most unspent activations a guest holds (CONTRACT S9). */
enum { AHR_ACTIVATIONS_MAX = 16 };

/* The longest session id activate_session accepts, in bytes; a longer one
 * is no session of the host's: APPHOST_ERROR_INVALID_ARGUMENT. */
enum { AHR_SESSION_ID_MAX_BYTES = 256 };

typedef enum ahr_start_result {
    AHR_START_OK = 0,
    /* init returned *init_status, not APPHOST_OK; deinit was not called and
     * the guest is unloaded. Also returned, without calling init, when
     * there is nothing to start: the runtime was started before
     * (APPHOST_ERROR_INVALID_STATE), or the entry has no init or is of
     * another ABI major (APPHOST_ERROR_UNSUPPORTED). */
    AHR_START_INIT_FAILED = 1,
    /* init succeeded, but query(APPHOST_GUEST_APP_CALLBACKS_ID) returned NULL
     * (or there is no query): deinit was called and the guest is unloaded. */
    AHR_START_NO_APP_CALLBACKS = 2
} ahr_start_result;

/*
 * [main-queue] Builds the guest's apphost_host_t (struct_size, the ABI
 * version of these headers, `host_name`, `host_version`, the host
 * functions, whose get_extension offers APPHOST_BACKGROUND_EXTENSION_ID,
 * APPHOST_SCENES_EXTENSION_ID and APPHOST_AUDIO_EXTENSION_ID), calls init
 * with it and takes the guest's app, scene, scenes and audio callbacks
 * (APPHOST_GUEST_SCENES_CALLBACKS_ID and APPHOST_GUEST_AUDIO_CALLBACKS_ID,
 * optional) from query; members past a table's struct_size read as NULL.
 * `data_directory` is what the data_directory host function returns: a
 * directory the caller has made. The runtime copies the three
 * strings; NULL reads as "". *init_status (when not NULL) is init's status,
 * APPHOST_OK when init succeeded. The background extension accepts tasks,
 * timers and async work only once ahr_start has succeeded: during init,
 * begin_task returns APPHOST_TASK_INVALID, and schedule_timer and
 * dispatch_async APPHOST_ERROR_INVALID_STATE.
 *
 * The scenes extension likewise accepts requests only from a successful
 * ahr_start until ahr_stop begins: during init and deinit request_scene,
 * activate_session, set_loading_progress, present_modal, dismiss_modal and
 * post_notification return APPHOST_ERROR_INVALID_STATE (the host could act
 * on none of them), after the checks of their arguments and host that need
 * no state (CONTRACT X3); present_modal then writes APPHOST_MODAL_INVALID
 * to *out_modal. scene_size answers from the mirror at any time, as
 * scene_state does, to the thread delivering a call (ahr_run_on_main_queue).
 *
 * The audio extension accepts calls from a successful ahr_start until
 * will_terminate is delivered (ahr_handle) or ahr_stop begins: during init
 * and deinit every function of apphost_audio_t but get_session returns APPHOST_ERROR_INVALID_STATE, after
 * the checks of its arguments and host that need no state (a combination
 * the C2 to C4 table refuses is APPHOST_ERROR_INVALID_COMBINATION even
 * then); activate then writes APPHOST_AUDIO_REQUEST_INVALID to
 * *out_request. get_session answers from the mirror at any time, from any
 * thread: from load on, the session is soloAmbient, default mode, no
 * options, inactive, gain 1 (CONTRACT C1).
 *
 * request_scene is refused with APPHOST_ERROR_NOT_DECLARED when the
 * descriptor does not declare APPHOST_CAPABILITY_MULTIPLE_SCENES (CONTRACT
 * S13), and app_state, scene_state and scene_size with
 * APPHOST_ERROR_WRONG_THREAD off the thread delivering a call (X3), which
 * the log reporter hears once per function, at APPHOST_LOG_WARNING.
 */
ahr_start_result ahr_start(ahr_runtime *runtime, const char *data_directory, const char *host_name,
                           const char *host_version, ahr_reporter reporter, int32_t *init_status);

/* ---- Calls ---------------------------------------------------------------- */

/* The host-to-guest calls: the calls of apphost_messages.h's table, whose
 * numbers enum apphost_wire_call takes too. call_area.c says which part of
 * the runtime handles each. */
#define AHR_CALL_KIND(number, name, ...) AHR_CALL_##name = number,
typedef enum ahr_call_kind {
    APPHOST_MESSAGES_CALLS(AHR_CALL_KIND, AHR_MESSAGE_IGNORE, AHR_MESSAGE_IGNORE, AHR_MESSAGE_IGNORE)
} ahr_call_kind;

/* BACKGROUND_TIME's background_time_ns while the guest is in the foreground. */
#define AHR_BACKGROUND_TIME_UNLIMITED (-1)

/* The scene callbacks other than will_connect; the values are those of enum
 * apphost_wire_scene_callback. */
typedef enum ahr_scene_callback {
    AHR_SCENE_WILL_ENTER_FOREGROUND = 1,
    AHR_SCENE_DID_BECOME_ACTIVE = 2,
    AHR_SCENE_WILL_RESIGN_ACTIVE = 3,
    AHR_SCENE_DID_ENTER_BACKGROUND = 4,
    AHR_SCENE_DID_DISCONNECT = 5
} ahr_scene_callback;

/* Each call's own type, ahr_call_<name>, made of the table's fields (see
 * the table's prose for what each carries): ahr_call_scene_size is {
 * uint64_t scene; uint32_t width; uint32_t height; int32_t size_class; }.
 * A text or bytes is NULL only with a length of 0 and needs no NUL. A call
 * without fields has an empty type. */
#define AHR_CALL_TYPE(number, name, lower_name, area, swift_case, fields, arguments) \
    typedef struct ahr_call_##lower_name {                                           \
        fields                                                                       \
    } ahr_call_##lower_name;
APPHOST_MESSAGES_CALLS(AHR_CALL_TYPE, AHR_MESSAGE_FIELD, AHR_MESSAGE_IGNORE, AHR_MESSAGE_IGNORE)

/* One host-to-guest call and the states the guest sees while it runs: its
 * kind, and its members in the union's member of that kind's name (a
 * SCENE_SIZE's in `call->scene_size`); the others are not used. */
#define AHR_CALL_MEMBER(number, name, lower_name, ...) ahr_call_##lower_name lower_name;
typedef struct ahr_call {
    /* The app state (enum apphost_app_state) this transition puts the guest in. */
    int32_t app_state;
    /* The state (enum apphost_scene_state) of the call's scene (the `scene`
     * of its type) after this transition; has_scene_state is false for app
     * callbacks. */
    bool has_scene_state;
    int32_t scene_state;
    ahr_call_kind kind;
    union {
        APPHOST_MESSAGES_CALLS(AHR_CALL_MEMBER, AHR_MESSAGE_IGNORE, AHR_MESSAGE_IGNORE, AHR_MESSAGE_IGNORE)
    };
} ahr_call;

/*
 * [main-queue] Delivers one call: updates the mirror, runs the guest's
 * callback, then updates the mirror again. Mirror rules: will_connect adds
 * the scene with `scene_state` (or `initial_state` without one) and a size
 * of 0x0 compact; other scene callbacks, and the scenes calls about a
 * scene, update a connected scene's state; did_disconnect removes the
 * scene BEFORE its callback runs (its handle is already stale there);
 * will_terminate removes every scene AFTER its callback returns, so that the
 * guest can still save them (CONTRACT A3).
 *
 * will_terminate also ends background work: from the moment it is
 * delivered, begin_task returns APPHOST_TASK_INVALID (CONTRACT B1).
 *
 * The background calls (every one sets the mirror's app state too):
 * - EXPIRE_TASK runs the expiration handler of open task `id`, at most once
 *   per task; nothing for a task ended meanwhile or without a handler.
 * - FIRE_TIMER runs the work of timer `id`, and forgets a one-shot timer
 *   before its work runs; nothing for a cancelled or finished timer.
 * - RUN_WORK runs work `id` once and forgets it.
 * - BACKGROUND_TIME sets the budget that time_remaining counts down from
 *   (CLOCK_MONOTONIC, from this call) and begin_task checks; runs no guest
 *   code.
 * The guest's function is called without any lock held, so it may call
 * every function of the extension.
 *
 * The scenes calls (every one sets the mirror's app state too, and, with
 * has_scene_state, the state of its scene when that is connected). A call
 * about a scene that is not connected runs no guest code:
 * - SCENE_SIZE stores the size in the mirror, for scene_size, then calls
 *   did_change_size with it. A scene's size is 0x0 compact from
 *   will_connect until its first SCENE_SIZE. APPHOST_ERROR_INVALID_HANDLE
 *   for a scene that is not connected.
 * - PERFORM_ACTION grants the activation `activation` (CONTRACT S9), from
 *   now (CLOCK_MONOTONIC) until activation_ns later, BEFORE calling
 *   perform_action: request_scene on this thread while perform_action runs
 *   spends it, and so does request_scene_with_activation presenting the
 *   token (activation_token) from anywhere within the window; one scene
 *   per action. The guest holds at most AHR_ACTIVATIONS_MAX unspent
 *   activations: a newer one replaces the oldest. The name reaches the guest NUL-terminated, cut at
 *   APPHOST_SCENES_TEXT_MAX_BYTES on a character boundary; the payload is
 *   NULL when empty. APPHOST_ERROR_INVALID_HANDLE, without any activation,
 *   for a scene that is not connected; APPHOST_ERROR_TOO_LARGE for a
 *   payload past APPHOST_ACTION_PAYLOAD_MAX_BYTES.
 * - SHOULD_DISMISS_MODAL asks should_dismiss_modal about a modal open on a
 *   connected scene. Returns 1 when the modal may go (the guest has no such
 *   callback, or it returned nonzero): the runtime then takes it, and every
 *   modal above it, off the scene's stack; 0 when the guest keeps it. A
 *   modal that is not open there (never given out, dismissed already, or
 *   its scene not connected) has nothing to keep: 1, and no guest code runs.
 * - DID_DISMISS_MODAL takes the modal, and every modal above it, off the
 *   stack if it is still there, then calls did_dismiss_modal (also when it
 *   was gone already, as after a SHOULD_DISMISS_MODAL that let it go).
 *   APPHOST_ERROR_INVALID_HANDLE for a scene that is not connected.
 * - DID_DISCARD calls did_discard with the session id, NUL-terminated.
 * - NOTIFICATION_LIMIT sets the limit post_notification keeps from then on
 *   (CONTRACT N1): one more within the window is APPHOST_ERROR_LIMIT_REACHED
 *   at once. Until it comes, every notification goes to the reporter, where the
 *   host counts them on its own account. Runs no guest code;
 *   APPHOST_ERROR_INVALID_ARGUMENT for a limit of 0 or past
 *   AHR_NOTIFICATION_LIMIT_MAX.
 * The modals of a scene are forgotten when it disconnects: at
 * did_disconnect, before its callback, and after will_terminate's.
 *
 * The audio calls (every one sets the mirror's app state too):
 * - AUDIO_SETUP stores the format and the session's route in the mirror,
 *   for get_session; runs no guest code. The host sends it once after a
 *   successful ahr_start, before any other audio call; until then
 *   get_session tells a format and route of 0.
 * - AUDIO_ACTIVATION_FINISHED sets the session active when the result is
 *   APPHOST_AUDIO_ACTIVATED and no deactivate came after the request was
 *   made, then calls activation_finished (with any result, the session
 *   left inactive included). APPHOST_ERROR_INVALID_HANDLE for a request the
 *   runtime never gave out.
 * - AUDIO_INTERRUPTION_BEGAN sets the session inactive BEFORE calling
 *   interruption_began (CONTRACT C6); _ENDED calls interruption_ended with
 *   should_resume as 1 or 0.
 * - AUDIO_ROUTE_CHANGED stores the new route, then calls route_changed with
 *   both routes, as apphost_audio_route_t with struct_size set, valid
 *   during the call only.
 * - SECONDARY_AUDIO_HINT calls secondary_audio_hint with 1 or 0.
 * - MEDIA_SERVICES_RESET puts the session back as at launch (soloAmbient,
 *   default mode, no options, inactive, gain 1; format and route stay),
 *   then calls media_services_reset (CONTRACT C15).
 * The guest's function is called without any lock held, so it may call
 * every function of the extension. From will_terminate on (from the moment
 * it is delivered, its callback included), set_configuration, activate,
 * deactivate, set_rendering, set_gain and override_output return
 * APPHOST_ERROR_INVALID_STATE, as during init and deinit; activate too
 * while the guest's background time is 0, as begin_task is refused then: a
 * BACKGROUND_TIME of 0 came, or the budget the last one gave has run out.
 * Past AHR_AUDIO_REQUEST_LIMIT of them within AHR_AUDIO_REQUEST_WINDOW_NS
 * they return APPHOST_ERROR_LIMIT_REACHED, report nothing and change
 * nothing, until the window ends (CONTRACT X7; ahr_set_audio_request_limit).
 * APPHOST_ERROR_INVALID_ARGUMENT for an audio call with a value out of its
 * enum's range, or a format of 0. A refused audio call runs no guest code
 * and changes nothing, the app state included.
 *
 * AUDIO_STREAM hands the guest its session's region, the shared memory
 * that the host's mixer asks for periods through (CONTRACT C13): ahr_handle
 * takes both descriptors, whatever it returns (it closes them unless a
 * renderer keeps them). When the guest implements render, the runtime
 * starts its audio thread on the region (audio_renderer.h), replacing the
 * thread of an earlier stream, and render is called for each period the
 * host asks for while the session is active. Runs no guest code on the
 * main queue and changes no state; APPHOST_ERROR_UNSUPPORTED for a guest
 * without render (the host then mixes nothing of it),
 * APPHOST_ERROR_INVALID_STATE before AUDIO_SETUP or when the guest is not
 * running, APPHOST_ERROR_INVALID_ARGUMENT for a negative descriptor or a
 * region the runtime refuses (not a region, or not of the announced
 * format). ahr_stop stops the thread before deinit.
 *
 * ACTION calls action `action_index` of the guest's table (actions.h,
 * CONTRACT F2) with `action_arguments`, through the libffi call interface
 * the runtime prepared at ahr_load: `s` arguments as NUL-terminated copies
 * and `ay` ones as a copy (never NULL) and its length, all freed when the
 * function has returned. The function runs as a callback does (the
 * [main-queue] host functions answer it); its result is copied and
 * reported (AHR_REPORT_ACTION_RESULT) before ahr_handle returns. Returns
 * APPHOST_OK when it ran and returned a valid result,
 * APPHOST_ERROR_GUEST_FAILED when it ran and returned a broken one (a NULL
 * or invalid string, a result too long), and, without running anything,
 * APPHOST_ERROR_INVALID_HANDLE for an index past the table or an action
 * whose declaration the runtime could not prepare (the host refuses such
 * a guest at load), APPHOST_ERROR_INVALID_ARGUMENT for arguments that are
 * not the declared ones (their number, a type, ahr_value_is_valid),
 * APPHOST_ERROR_OUT_OF_MEMORY when the copies could not be made.
 *
 * SAVE_STATUS tells whether the host could store the last save of a
 * connected scene (CONTRACT X5): while `save_failed` holds, save_scene_state
 * of the scene still hands its bytes to the reporter but returns
 * APPHOST_ERROR_INTERNAL, so that the guest learns its saves are not kept
 * for good. A scene connects with its saves taken to work. Runs no guest
 * code and changes no state; APPHOST_ERROR_INVALID_HANDLE for a scene that
 * is not connected.
 *
 * SAVE_CONFIRMATION runs, on the calling thread as the guest's main queue,
 * the confirmation save_scene_state_confirmed was given for the save whose
 * SAVE_STATE report carried `id`, with APPHOST_OK, or with
 * APPHOST_ERROR_INTERNAL when `save_failed` (the host could not store it),
 * whether or not its scene is still connected; once. An id that does not
 * wait (never given out, or confirmed already) gets
 * APPHOST_ERROR_INVALID_HANDLE, and nothing runs.
 *
 * Returns did_finish_launching's status, SHOULD_DISMISS_MODAL's 1 or 0 (a
 * verdict, not a status), APPHOST_OK for every other call and for a
 * callback the guest does not implement (a NULL member, or one past its
 * table's struct_size), APPHOST_ERROR_INVALID_ARGUMENT for an unknown kind
 * or scene callback, a WILL_CONNECT or DID_DISCARD whose session_id or a
 * WILL_CONNECT whose restoration is NULL with a length, a PERFORM_ACTION
 * whose action_name or payload is NULL with a length or whose activation
 * is APPHOST_ACTIVATION_INVALID, a SCENE_SIZE with a
 * size_class out of range, or a background_time_ns below -1,
 * APPHOST_ERROR_INVALID_HANDLE for an EXPIRE_TASK or FIRE_TIMER of an id
 * the runtime never gave out, a RUN_WORK of one it did not give out or
 * already ran, and the scenes and audio calls' cases above,
 * APPHOST_ERROR_TOO_LARGE
 * for PERFORM_ACTION's, APPHOST_ERROR_OUT_OF_MEMORY when the call could not be
 * prepared (nothing is delivered then), and APPHOST_ERROR_INTERNAL when the
 * guest is not running (not started, or its start failed). A host that
 * reads SHOULD_DISMISS_MODAL's answer as a verdict reads INTERNAL, the only
 * other value it can get, as "let it go" too: a guest that is not running
 * keeps nothing.
 */
int32_t ahr_handle(ahr_runtime *runtime, const ahr_call *call);

/*
 * [main-queue] Runs `body(context)` as a delivery runs: while it runs, the
 * [main-queue] host functions (app_state, scene_state, scene_size,
 * activation_token) answer calls from this thread, as they answer a
 * guest's callbacks, and refuse every other thread with
 * APPHOST_ERROR_WRONG_THREAD. ahr_start, ahr_handle and ahr_stop do this
 * themselves around the guest code they call; this is for a caller that
 * runs guest code of its own on the main queue, as tests do.
 */
void ahr_run_on_main_queue(ahr_runtime *runtime, void (*body)(void *context), void *context);

/*
 * [thread-safe] Sets how many audio session requests the guest may make
 * within AHR_AUDIO_REQUEST_WINDOW_NS (CONTRACT X7): AHR_AUDIO_REQUEST_LIMIT
 * until this is called, which the host keeps; 0 for no limit, for tests of
 * other rules that make many requests at once. From the next request on.
 */
void ahr_set_audio_request_limit(ahr_runtime *runtime, uint32_t limit);

/* ---- Stopping ------------------------------------------------------------- */

/*
 * [main-queue] Calls deinit when init succeeded and the guest is running,
 * withdraws the host interface (later calls through its pointer, the
 * background, scenes and audio extensions' included, get error codes or
 * invalid ids; calls already in progress finish first), dlcloses the
 * library and frees the runtime with its tasks, timers, work and modals.
 * During deinit no task begins, no timer or work is accepted (no call would
 * run them) and the scenes and audio extensions refuse requests
 * (ahr_start; get_session still answers). NULL is ignored.
 */
void ahr_stop(ahr_runtime *runtime);

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_GUEST_RUNTIME_H */
