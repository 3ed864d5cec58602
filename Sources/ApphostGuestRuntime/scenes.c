/*
 * The scenes extension: the functions of apphost_scenes_t (see scenes.h in
 * the SDK for what each promises) and the host's calls that feed what they
 * check. Each function finds its guest through the registry
 * (host_context.h), so that any argument at all gets an answer, never a
 * crash (CONTRACT X3).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strnlen */

#include "scenes.h"

#include <stdlib.h>
#include <string.h>

#include "call_area.h"
#include "growth.h"
#include "host_context.h"
#include "sized_struct.h"
#include "utf8_cut.h"

enum { NANOSECONDS_PER_SECOND = 1000000000 };

/* Where a position is not found. */
static const size_t NOT_FOUND = (size_t)-1;

/* ---- Modal stacks (call with the lock held) -------------------------------- */

static ahr_modal_stack *find_stack(ahr_scenes *scenes, apphost_scene_t scene)
{
    size_t i;

    for (i = 0; i < scenes->stack_count; i++) {
        if (scenes->stacks[i].scene == scene) {
            return &scenes->stacks[i];
        }
    }
    return NULL;
}

static void remove_stack(ahr_scenes *scenes, ahr_modal_stack *stack)
{
    free(stack->modals);
    *stack = scenes->stacks[--scenes->stack_count];
}

/* The position of `modal` on `scene`'s stack, or NOT_FOUND. */
static size_t modal_position(ahr_scenes *scenes, apphost_scene_t scene, apphost_modal_t modal,
                             ahr_modal_stack **out_stack)
{
    ahr_modal_stack *stack = find_stack(scenes, scene);
    size_t i;

    *out_stack = stack;
    if (stack == NULL || modal == APPHOST_MODAL_INVALID) {
        return NOT_FOUND;
    }
    for (i = 0; i < stack->count; i++) {
        if (stack->modals[i] == modal) {
            return i;
        }
    }
    return NOT_FOUND;
}

/* Takes the modal at `position` and every one above it off `stack`; a stack
 * left empty goes. */
static void drop_from(ahr_scenes *scenes, ahr_modal_stack *stack, size_t position)
{
    stack->count = position;
    if (stack->count == 0) {
        remove_stack(scenes, stack);
    }
}

/* Takes `modal` and those above it off `scene`'s stack; false when it is
 * not there. */
static bool drop_modal(ahr_scenes *scenes, apphost_scene_t scene, apphost_modal_t modal)
{
    ahr_modal_stack *stack;
    size_t position = modal_position(scenes, scene, modal, &stack);

    if (position == NOT_FOUND) {
        return false;
    }
    drop_from(scenes, stack, position);
    return true;
}

/* Puts a new modal on top of `scene`'s stack and returns its id; the
 * invalid id when out of memory (no id is used up then). */
static apphost_modal_t push_modal(ahr_scenes *scenes, apphost_scene_t scene)
{
    ahr_modal_stack *stack = find_stack(scenes, scene);

    if (stack == NULL) {
        if (!ahr_reserve_one((void **)&scenes->stacks, &scenes->stack_capacity, scenes->stack_count,
                             sizeof *scenes->stacks)) {
            return APPHOST_MODAL_INVALID;
        }
        stack = &scenes->stacks[scenes->stack_count++];
        memset(stack, 0, sizeof *stack);
        stack->scene = scene;
    }
    if (!ahr_reserve_one((void **)&stack->modals, &stack->capacity, stack->count, sizeof *stack->modals)) {
        /* A stack just made for it holds nothing: not kept. */
        if (stack->count == 0) {
            remove_stack(scenes, stack);
        }
        return APPHOST_MODAL_INVALID;
    }
    stack->modals[stack->count++] = ++scenes->last_modal;
    return scenes->last_modal;
}

/* ---- State ---------------------------------------------------------------- */

void ahr_scenes_init(ahr_scenes *scenes, bool multiple_scenes)
{
    memset(scenes, 0, sizeof *scenes);
    pthread_mutex_init(&scenes->lock, NULL);
    scenes->multiple_scenes = multiple_scenes;
}

static void free_stacks(ahr_scenes *scenes)
{
    size_t i;

    for (i = 0; i < scenes->stack_count; i++) {
        free(scenes->stacks[i].modals);
    }
    scenes->stack_count = 0;
}

void ahr_scenes_destroy(ahr_scenes *scenes)
{
    free(scenes->posted);
    scenes->posted = NULL;
    free_stacks(scenes);
    free(scenes->stacks);
    scenes->stacks = NULL;
    scenes->stack_capacity = 0;
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

void ahr_scenes_forget_scene(ahr_scenes *scenes, apphost_scene_t scene)
{
    ahr_modal_stack *stack;

    pthread_mutex_lock(&scenes->lock);
    stack = find_stack(scenes, scene);
    if (stack != NULL) {
        remove_stack(scenes, stack);
    }
    pthread_mutex_unlock(&scenes->lock);
}

void ahr_scenes_forget_all(ahr_scenes *scenes)
{
    pthread_mutex_lock(&scenes->lock);
    free_stacks(scenes);
    pthread_mutex_unlock(&scenes->lock);
}

/* ---- Activations (CONTRACT S9) --------------------------------------------- */

static bool before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Drops the activation at `index`, keeping the others oldest first. Call
 * with the lock held. */
static void drop_activation(ahr_scenes *scenes, size_t index)
{
    memmove(&scenes->activations[index], &scenes->activations[index + 1],
            (scenes->activation_count - index - 1) * sizeof scenes->activations[0]);
    scenes->activation_count--;
}

/* Drops the activations whose window is over. Call with the lock held. */
static void drop_expired(ahr_scenes *scenes, const struct timespec *now)
{
    size_t i = 0;

    while (i < scenes->activation_count) {
        if (before(now, &scenes->activations[i].until)) {
            i++;
        } else {
            drop_activation(scenes, i);
        }
    }
}

/* Grants `token` from now until `nanoseconds` later; the oldest goes when
 * AHR_ACTIVATIONS_MAX are held. Call with the lock held. */
static void grant_activation(ahr_scenes *scenes, apphost_activation_t token, uint64_t nanoseconds)
{
    struct timespec now;
    struct timespec until;

    clock_gettime(CLOCK_MONOTONIC, &now);
    drop_expired(scenes, &now);
    if (scenes->activation_count == AHR_ACTIVATIONS_MAX) {
        drop_activation(scenes, 0);
    }
    until = now;
    /* At most 2^64 ns, 585 years: no time_t of 64 bits overflows. */
    until.tv_sec += (time_t)(nanoseconds / NANOSECONDS_PER_SECOND);
    until.tv_nsec += (long)(nanoseconds % NANOSECONDS_PER_SECOND);
    if (until.tv_nsec >= NANOSECONDS_PER_SECOND) {
        until.tv_sec++;
        until.tv_nsec -= NANOSECONDS_PER_SECOND;
    }
    scenes->activations[scenes->activation_count++] = (ahr_activation){token, until};
}

/* The position of unspent, unexpired `token`, or NOT_FOUND; writes the
 * seconds left to *seconds_left when not NULL. Call with the lock held. */
static size_t find_activation(ahr_scenes *scenes, apphost_activation_t token, double *seconds_left)
{
    struct timespec now;
    size_t i;

    if (token == APPHOST_ACTIVATION_INVALID) {
        return NOT_FOUND;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    drop_expired(scenes, &now);
    for (i = 0; i < scenes->activation_count; i++) {
        if (scenes->activations[i].token == token) {
            if (seconds_left != NULL) {
                *seconds_left = (double)(scenes->activations[i].until.tv_sec - now.tv_sec) +
                                (double)(scenes->activations[i].until.tv_nsec - now.tv_nsec) / NANOSECONDS_PER_SECOND;
            }
            return i;
        }
    }
    return NOT_FOUND;
}

/* Spends `token` if it is unspent and within its window. Call with the lock
 * held. */
static bool spend_activation(ahr_scenes *scenes, apphost_activation_t token)
{
    size_t position = find_activation(scenes, token, NULL);

    if (position == NOT_FOUND) {
        return false;
    }
    drop_activation(scenes, position);
    return true;
}

/* ---- The notification limit (CONTRACT N1) ----------------------------------- */

static uint64_t nanoseconds_between(const struct timespec *earlier, const struct timespec *later)
{
    return (uint64_t)(later->tv_sec - earlier->tv_sec) * NANOSECONDS_PER_SECOND + (uint64_t)later->tv_nsec -
           (uint64_t)earlier->tv_nsec;
}

static int32_t set_notification_limit(ahr_scenes *scenes, uint32_t limit, uint64_t window_ns)
{
    struct timespec *posted = calloc(limit, sizeof *posted);

    if (posted == NULL) {
        return APPHOST_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&scenes->lock);
    /* The count starts with the limit: the host sends it once, before
     * did_finish_launching, and counted those before on its own account. */
    free(scenes->posted);
    scenes->posted = posted;
    scenes->posted_count = 0;
    scenes->notification_limit = limit;
    scenes->notification_window_ns = window_ns;
    pthread_mutex_unlock(&scenes->lock);
    return APPHOST_OK;
}

/* Whether one more notification is within the limit now, which this counts.
 * Call with the lock held. */
static bool take_notification(ahr_scenes *scenes)
{
    struct timespec now;
    size_t expired = 0;

    if (scenes->notification_limit == 0) {
        return true;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    while (expired < scenes->posted_count &&
           nanoseconds_between(&scenes->posted[expired], &now) >= scenes->notification_window_ns) {
        expired++;
    }
    memmove(scenes->posted, scenes->posted + expired, (scenes->posted_count - expired) * sizeof *scenes->posted);
    scenes->posted_count -= expired;
    if (scenes->posted_count >= scenes->notification_limit) {
        return false;
    }
    scenes->posted[scenes->posted_count++] = now;
    return true;
}

/* ---- The host's calls, on the main queue ---------------------------------- */

bool ahr_scenes_is_call(const ahr_call *call) { return ahr_call_area_of(call->kind) == AHR_AREA_SCENES; }

int32_t ahr_scenes_check_call(const ahr_call *call)
{
    switch (call->kind) {
    case AHR_CALL_SCENE_SIZE:
        return call->size_class == APPHOST_SIZE_CLASS_COMPACT || call->size_class == APPHOST_SIZE_CLASS_REGULAR
                   ? APPHOST_OK
                   : APPHOST_ERROR_INVALID_ARGUMENT;
    case AHR_CALL_PERFORM_ACTION:
        if ((call->action_name == NULL && call->action_name_length != 0) ||
            (call->payload == NULL && call->payload_length != 0) || call->activation == APPHOST_ACTIVATION_INVALID) {
            return APPHOST_ERROR_INVALID_ARGUMENT;
        }
        return call->payload_length > APPHOST_ACTION_PAYLOAD_MAX_BYTES ? APPHOST_ERROR_TOO_LARGE : APPHOST_OK;
    case AHR_CALL_DID_DISCARD:
        return call->session_id == NULL && call->session_id_length != 0 ? APPHOST_ERROR_INVALID_ARGUMENT
                                                                         : APPHOST_OK;
    case AHR_CALL_NOTIFICATION_LIMIT:
        return call->notification_limit == 0 || call->notification_limit > AHR_NOTIFICATION_LIMIT_MAX
                   ? APPHOST_ERROR_INVALID_ARGUMENT
                   : APPHOST_OK;
    case AHR_CALL_SHOULD_DISMISS_MODAL:
    case AHR_CALL_DID_DISMISS_MODAL:
        /* Any modal: one that is not open is ahr_scenes_handle's to answer. */
        break;
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
    session = malloc(call->session_id_length + 1);
    if (session == NULL) {
        return false;
    }
    if (call->session_id_length > 0) {
        memcpy(session, call->session_id, call->session_id_length);
    }
    session[call->session_id_length] = '\0';
    *copy = session;
    return true;
}

static int32_t change_size(ahr_state_mirror *mirror, const apphost_guest_scenes_t *callbacks, apphost_scene_t scene)
{
    apphost_scene_size_t size;

    memset(&size, 0, sizeof size);
    /* The mirror took the new size before this runs. */
    if (!ahr_mirror_scene_size(mirror, scene, &size)) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    size.struct_size = sizeof size;
    if (callbacks != NULL && callbacks->did_change_size != NULL) {
        callbacks->did_change_size(scene, &size);
    }
    return APPHOST_OK;
}

static int32_t perform_action(ahr_scenes *scenes, ahr_state_mirror *mirror, const apphost_guest_scenes_t *callbacks,
                              const ahr_call *call)
{
    char name[APPHOST_SCENES_TEXT_MAX_BYTES + 1];
    size_t length = ahr_utf8_prefix_length(call->action_name, call->action_name_length, APPHOST_SCENES_TEXT_MAX_BYTES);
    int32_t state;

    if (!ahr_mirror_scene_state(mirror, call->scene, &state)) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    if (length > 0) {
        memcpy(name, call->action_name, length);
    }
    name[length] = '\0';
    /* Before the guest's code runs, so that perform_action itself may open
     * a scene (CONTRACT S9). */
    pthread_mutex_lock(&scenes->lock);
    grant_activation(scenes, call->activation, call->activation_ns);
    scenes->delivering = call->activation;
    pthread_mutex_unlock(&scenes->lock);
    if (callbacks != NULL && callbacks->perform_action != NULL) {
        callbacks->perform_action(call->scene, name, call->payload_length > 0 ? call->payload : NULL,
                                  call->payload_length);
    }
    pthread_mutex_lock(&scenes->lock);
    scenes->delivering = APPHOST_ACTIVATION_INVALID;
    pthread_mutex_unlock(&scenes->lock);
    return APPHOST_OK;
}

static int32_t should_dismiss_modal(ahr_scenes *scenes, const apphost_guest_scenes_t *callbacks, const ahr_call *call)
{
    ahr_modal_stack *stack;
    bool open;
    int32_t verdict = 1;

    pthread_mutex_lock(&scenes->lock);
    open = modal_position(scenes, call->scene, call->modal, &stack) != NOT_FOUND;
    pthread_mutex_unlock(&scenes->lock);
    /* A modal that is not open has nothing to keep. */
    if (!open) {
        return 1;
    }
    if (callbacks != NULL && callbacks->should_dismiss_modal != NULL) {
        verdict = callbacks->should_dismiss_modal(call->scene, call->modal) != 0 ? 1 : 0;
    }
    if (verdict != 0) {
        pthread_mutex_lock(&scenes->lock);
        /* Unless the guest dismissed it itself meanwhile. */
        (void)drop_modal(scenes, call->scene, call->modal);
        pthread_mutex_unlock(&scenes->lock);
    }
    return verdict;
}

static int32_t did_dismiss_modal(ahr_scenes *scenes, ahr_state_mirror *mirror, const apphost_guest_scenes_t *callbacks,
                                 const ahr_call *call)
{
    int32_t state;

    if (!ahr_mirror_scene_state(mirror, call->scene, &state)) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    pthread_mutex_lock(&scenes->lock);
    /* Usually gone already: SHOULD_DISMISS_MODAL took it off. */
    (void)drop_modal(scenes, call->scene, call->modal);
    pthread_mutex_unlock(&scenes->lock);
    if (callbacks != NULL && callbacks->did_dismiss_modal != NULL) {
        callbacks->did_dismiss_modal(call->scene, call->modal);
    }
    return APPHOST_OK;
}

int32_t ahr_scenes_handle(ahr_scenes *scenes, ahr_state_mirror *mirror, const apphost_guest_scenes_t *callbacks,
                          const ahr_call *call, const char *session)
{
    switch (call->kind) {
    case AHR_CALL_SCENE_SIZE:
        return change_size(mirror, callbacks, call->scene);
    case AHR_CALL_PERFORM_ACTION:
        return perform_action(scenes, mirror, callbacks, call);
    case AHR_CALL_SHOULD_DISMISS_MODAL:
        return should_dismiss_modal(scenes, callbacks, call);
    case AHR_CALL_DID_DISMISS_MODAL:
        return did_dismiss_modal(scenes, mirror, callbacks, call);
    case AHR_CALL_DID_DISCARD:
        if (callbacks != NULL && callbacks->did_discard != NULL) {
            callbacks->did_discard(session != NULL ? session : "");
        }
        return APPHOST_OK;
    case AHR_CALL_NOTIFICATION_LIMIT:
        return set_notification_limit(scenes, call->notification_limit, call->notification_window_ns);
    default:
        break;
    }
    return APPHOST_ERROR_INVALID_ARGUMENT;
}

/* ---- The guest's functions, from any thread ------------------------------- */

/* A style of enum apphost_presentation_style. */
static bool is_presentation_style(int32_t style)
{
    return style >= APPHOST_PRESENTATION_AUTOMATIC && style <= APPHOST_PRESENTATION_PROMINENT;
}

/* A guest's text of at most APPHOST_SCENES_TEXT_MAX_BYTES, cut at a
 * character boundary; strnlen, so a longer one is never read past the
 * limit. */
static size_t text_length(const char *text)
{
    return ahr_utf8_prefix_length(text, strnlen(text, APPHOST_SCENES_TEXT_MAX_BYTES + 1),
                                  APPHOST_SCENES_TEXT_MAX_BYTES);
}

/* One request about a scene, carried out under the mirror's lock while the
 * scene is known to be connected (scenes.h). */
typedef struct scene_request scene_request;

/* What a function does once its scene is known connected, under the
 * extension's lock, while it runs; returns the function's status. */
typedef apphost_status_t (*scene_body)(scene_request *request, ahr_host_context *context);

struct scene_request {
    ahr_host_context *context;
    scene_body body;
    apphost_scene_t scene;
    int32_t role;
    int32_t style;
    const void *bytes;
    size_t length;
    double progress;
    apphost_modal_t modal;
    apphost_modal_t *out_modal;
    /* request_scene spends the activation of the action running on the
     * calling thread; request_scene_with_activation the token it presents. */
    bool of_running_action;
    apphost_activation_t activation;
    /* A request for another scene: refused unless the guest declares
     * APPHOST_CAPABILITY_MULTIPLE_SCENES (CONTRACT S13). */
    bool opens_scene;
    apphost_status_t status;
};

/* Runs request->body under the extension's lock, while the scene is known to
 * be connected (ahr_mirror_if_connected's callback). */
static void run_locked(void *argument)
{
    scene_request *request = argument;
    ahr_scenes *scenes = request->context->scenes;

    pthread_mutex_lock(&scenes->lock);
    request->status = scenes->running ? request->body(request, request->context) : APPHOST_ERROR_INVALID_STATE;
    pthread_mutex_unlock(&scenes->lock);
}

/* Runs `body` on `request` while its scene is connected, for the guest of
 * `host`, and returns its status. Before that (and after the caller
 * answered scene 0 with APPHOST_ERROR_INVALID_HANDLE, before any other
 * check, as every function does): APPHOST_ERROR_INVALID_ARGUMENT for a host the registry does not know, `refusal` when it is not APPHOST_OK,
 * APPHOST_ERROR_INVALID_STATE while the extension does not run (init,
 * deinit), APPHOST_ERROR_NOT_DECLARED for a request that opens a scene of a
 * guest that declares one scene only, and APPHOST_ERROR_INVALID_HANDLE when
 * the scene is not connected. */
static apphost_status_t on_connected_scene(const apphost_host_t *host, scene_request *request, scene_body body,
                                           apphost_status_t refusal)
{
    ahr_host_context *context = ahr_registry_acquire(host);
    apphost_status_t status;

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

static apphost_status_t request_connected(scene_request *request, ahr_host_context *context)
{
    apphost_activation_t activation = request->activation;

    if (request->of_running_action) {
        activation = ahr_main_queue_is_current(context->main_queue) ? context->scenes->delivering
                                                                     : APPHOST_ACTIVATION_INVALID;
    }
    if (!spend_activation(context->scenes, activation)) {
        return APPHOST_ERROR_NO_ACTIVATION;
    }
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_SCENE_REQUESTED,
                                           .activation = activation,
                                           .scene = request->scene,
                                           .role = request->role,
                                           .style = request->style,
                                           .bytes = request->bytes,
                                           .bytes_length = request->length});
    return APPHOST_OK;
}

/* request_scene and request_scene_with_activation. */
static apphost_status_t request(const apphost_host_t *host, bool of_running_action, apphost_activation_t activation,
                                apphost_scene_t from, int32_t role, int32_t style, const void *state, size_t length)
{
    static const unsigned char empty = 0;
    scene_request request;

    if (from == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    if ((role != APPHOST_SCENE_ROLE_PRIMARY && role != APPHOST_SCENE_ROLE_AUXILIARY) ||
        !is_presentation_style(style) || (state == NULL && length != 0)) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    memset(&request, 0, sizeof request);
    request.scene = from;
    request.role = role;
    request.style = style;
    request.bytes = state != NULL ? state : &empty;
    request.length = length;
    request.opens_scene = true;
    request.of_running_action = of_running_action;
    request.activation = activation;
    return on_connected_scene(host, &request, request_connected,
                              length > APPHOST_SCENE_STATE_MAX_BYTES ? APPHOST_ERROR_TOO_LARGE : APPHOST_OK);
}

static apphost_status_t request_scene(const apphost_host_t *host, apphost_scene_t from, int32_t role, int32_t style,
                                      const void *state, size_t length)
{
    return request(host, true, APPHOST_ACTIVATION_INVALID, from, role, style, state, length);
}

static apphost_status_t request_scene_with_activation(const apphost_host_t *host, apphost_activation_t activation,
                                                      apphost_scene_t from, int32_t role, int32_t style,
                                                      const void *state, size_t length)
{
    return request(host, false, activation, from, role, style, state, length);
}

static apphost_status_t activation_token(const apphost_host_t *host, apphost_activation_t *out_activation)
{
    ahr_host_context *context;
    ahr_scenes *scenes;
    apphost_status_t status = APPHOST_ERROR_NO_ACTIVATION;

    if (out_activation != NULL) {
        *out_activation = APPHOST_ACTIVATION_INVALID;
    }
    if (out_activation == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    context = ahr_registry_acquire_on_main_queue(host, AHR_MAIN_QUEUE_ACTIVATION_TOKEN, "activation_token", &status);
    if (context == NULL) {
        return status;
    }
    scenes = context->scenes;
    pthread_mutex_lock(&scenes->lock);
    if (find_activation(scenes, scenes->delivering, NULL) != NOT_FOUND) {
        *out_activation = scenes->delivering;
        status = APPHOST_OK;
    }
    pthread_mutex_unlock(&scenes->lock);
    ahr_registry_release(context);
    return status;
}

static apphost_status_t activation_time_left(const apphost_host_t *host, apphost_activation_t activation,
                                             double *out_seconds)
{
    ahr_host_context *context;
    ahr_scenes *scenes;
    apphost_status_t status = APPHOST_ERROR_NO_ACTIVATION;
    double seconds = 0;

    if (out_seconds == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    *out_seconds = 0;
    context = ahr_registry_acquire(host);
    if (context == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    scenes = context->scenes;
    pthread_mutex_lock(&scenes->lock);
    if (find_activation(scenes, activation, &seconds) != NOT_FOUND) {
        *out_seconds = seconds;
        status = APPHOST_OK;
    }
    pthread_mutex_unlock(&scenes->lock);
    ahr_registry_release(context);
    return status;
}

/* What to do with one of the guest's own sessions, under the extension's
 * lock: tell the reporter of an activation (with a style) or a close. */
typedef enum own_session_request { ACTIVATE_SESSION, CLOSE_SESSION } own_session_request;

/* activate_session and close_session: APPHOST_ERROR_INVALID_ARGUMENT for an
 * empty id, one past AHR_SESSION_ID_MAX_BYTES (strnlen: never read past the
 * limit) or a host the registry does not know; APPHOST_ERROR_INVALID_STATE
 * while the extension does not run; APPHOST_ERROR_INVALID_HANDLE for a
 * session the guest does not have. */
static apphost_status_t on_own_session(const apphost_host_t *host, const char *session_id, own_session_request what,
                                       int32_t style)
{
    ahr_host_context *context;
    ahr_scenes *scenes;
    apphost_status_t status = APPHOST_OK;
    size_t length;

    if (session_id == NULL || session_id[0] == '\0') {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    length = strnlen(session_id, AHR_SESSION_ID_MAX_BYTES + 1);
    if (length > AHR_SESSION_ID_MAX_BYTES) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    context = ahr_registry_acquire(host);
    if (context == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    scenes = context->scenes;
    pthread_mutex_lock(&scenes->lock);
    if (!scenes->running) {
        status = APPHOST_ERROR_INVALID_STATE;
    } else if (!ahr_sessions_contains(context->sessions, session_id, length)) {
        status = APPHOST_ERROR_INVALID_HANDLE;
    } else {
        ahr_report_send(context, &(ahr_report){.kind = what == ACTIVATE_SESSION
                                                           ? AHR_REPORT_SESSION_ACTIVATION_REQUESTED
                                                           : AHR_REPORT_SESSION_CLOSE_REQUESTED,
                                               .text = session_id,
                                               .text_length = length,
                                               .style = what == ACTIVATE_SESSION ? style : 0});
    }
    pthread_mutex_unlock(&scenes->lock);
    ahr_registry_release(context);
    return status;
}

static apphost_status_t activate_session(const apphost_host_t *host, const char *session_id, int32_t style)
{
    if (!is_presentation_style(style)) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return on_own_session(host, session_id, ACTIVATE_SESSION, style);
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
static apphost_status_t scene_size(const apphost_host_t *host, apphost_scene_t scene, apphost_scene_size_t *out_size)
{
    ahr_host_context *context;
    apphost_status_t refusal;
    apphost_scene_size_t size;
    uint32_t declared;
    bool connected;

    if (scene == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    if (out_size == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    declared = ahr_declared_size(out_size);
    /* Every member the struct has had since ABI 1.1 is needed. */
    if (declared < AHR_SCENE_SIZE_MIN_BYTES) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    context = ahr_registry_acquire_on_main_queue(host, AHR_MAIN_QUEUE_SCENE_SIZE, "scene_size", &refusal);
    if (context == NULL) {
        return refusal;
    }
    memset(&size, 0, sizeof size);
    connected = ahr_mirror_scene_size(context->mirror, scene, &size);
    ahr_registry_release(context);
    if (!connected) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    ahr_write_sized_struct(out_size, declared, &size, sizeof size);
    return APPHOST_OK;
}

static apphost_status_t progress_connected(scene_request *request, ahr_host_context *context)
{
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_LOADING_PROGRESS,
                                           .scene = request->scene,
                                           .progress = request->progress});
    return APPHOST_OK;
}

static apphost_status_t set_loading_progress(const apphost_host_t *host, apphost_scene_t scene, double progress)
{
    scene_request request;

    if (scene == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    /* NaN fails every comparison. */
    if (!(progress == APPHOST_PROGRESS_NONE || progress == APPHOST_PROGRESS_INDETERMINATE ||
          (progress >= 0.0 && progress <= 1.0))) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    memset(&request, 0, sizeof request);
    request.scene = scene;
    request.progress = progress;
    return on_connected_scene(host, &request, progress_connected, APPHOST_OK);
}

static apphost_status_t title_connected(scene_request *request, ahr_host_context *context)
{
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_SCENE_TITLE_CHANGED,
                                           .scene = request->scene,
                                           .text = request->bytes,
                                           .text_length = request->length});
    return APPHOST_OK;
}

/* NULL and "" both take the title away: the host hears an empty one. */
static apphost_status_t set_scene_title(const apphost_host_t *host, apphost_scene_t scene, const char *title)
{
    scene_request request;

    if (scene == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    memset(&request, 0, sizeof request);
    request.scene = scene;
    request.bytes = title != NULL ? title : "";
    request.length = title != NULL ? text_length(title) : 0;
    return on_connected_scene(host, &request, title_connected, APPHOST_OK);
}

static apphost_status_t present_connected(scene_request *request, ahr_host_context *context)
{
    apphost_modal_t modal = push_modal(context->scenes, request->scene);

    if (modal == APPHOST_MODAL_INVALID) {
        return APPHOST_ERROR_OUT_OF_MEMORY;
    }
    /* Before the host hears of it, so that the id is there for a
     * should_dismiss_modal that comes before this returns. */
    *request->out_modal = modal;
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_MODAL_PRESENTED,
                                           .scene = request->scene,
                                           .id = modal,
                                           .style = request->style,
                                           .text = request->bytes,
                                           .text_length = request->length});
    return APPHOST_OK;
}

static apphost_status_t present_modal(const apphost_host_t *host, apphost_scene_t scene, int32_t style,
                                      const char *title, apphost_modal_t *out_modal)
{
    scene_request request;

    /* A guest that ignores the status holds the invalid id. */
    if (out_modal != NULL) {
        *out_modal = APPHOST_MODAL_INVALID;
    }
    if (scene == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    if ((style != APPHOST_MODAL_SHEET && style != APPHOST_MODAL_FULL_SCREEN) || title == NULL || title[0] == '\0' ||
        out_modal == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    memset(&request, 0, sizeof request);
    request.scene = scene;
    request.style = style;
    request.bytes = title;
    request.length = text_length(title);
    request.out_modal = out_modal;
    return on_connected_scene(host, &request, present_connected, APPHOST_OK);
}

static apphost_status_t dismiss_connected(scene_request *request, ahr_host_context *context)
{
    if (!drop_modal(context->scenes, request->scene, request->modal)) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_MODAL_DISMISSED,
                                           .scene = request->scene,
                                           .id = request->modal});
    return APPHOST_OK;
}

static apphost_status_t dismiss_modal(const apphost_host_t *host, apphost_scene_t scene, apphost_modal_t modal)
{
    scene_request request;

    if (scene == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    memset(&request, 0, sizeof request);
    request.scene = scene;
    request.modal = modal;
    return on_connected_scene(host, &request, dismiss_connected, APPHOST_OK);
}

static apphost_status_t post_notification(const apphost_host_t *host, const char *title, const char *body)
{
    ahr_host_context *context;
    ahr_scenes *scenes;
    apphost_status_t status;
    size_t title_length;
    size_t body_length;

    if (title == NULL || title[0] == '\0') {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    if (body == NULL) {
        body = "";
    }
    title_length = text_length(title);
    body_length = text_length(body);
    context = ahr_registry_acquire(host);
    if (context == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    scenes = context->scenes;
    pthread_mutex_lock(&scenes->lock);
    if (!scenes->running) {
        status = APPHOST_ERROR_INVALID_STATE;
    } else if (!take_notification(scenes)) {
        status = APPHOST_ERROR_LIMIT_REACHED;
    } else {
        ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_NOTIFICATION_POSTED,
                                               .text = title,
                                               .text_length = title_length,
                                               .body = body,
                                               .body_length = body_length});
        status = APPHOST_OK;
    }
    pthread_mutex_unlock(&scenes->lock);
    ahr_registry_release(context);
    return status;
}

static apphost_status_t list_sessions(const apphost_host_t *host, apphost_session_visitor_t visit, void *context)
{
    ahr_host_context *host_context;
    apphost_status_t refusal;
    ahr_session_entry *entries;
    apphost_session_info_t info;
    size_t count;
    size_t i;

    if (visit == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    host_context = ahr_registry_acquire_on_main_queue(host, AHR_MAIN_QUEUE_LIST_SESSIONS, "list_sessions", &refusal);
    if (host_context == NULL) {
        return refusal;
    }
    /* A copy, so that no lock is held while the guest's visit runs. */
    if (!ahr_sessions_copy(host_context->sessions, &entries, &count)) {
        ahr_registry_release(host_context);
        return APPHOST_ERROR_OUT_OF_MEMORY;
    }
    ahr_registry_release(host_context);
    for (i = 0; i < count; i++) {
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        info.session_id = entries[i].id;
        info.role = entries[i].role;
        info.scene = entries[i].scene;
        visit(context, &info);
    }
    ahr_sessions_free_copy(entries, count);
    return APPHOST_OK;
}

static apphost_status_t close_session(const apphost_host_t *host, const char *session_id)
{
    return on_own_session(host, session_id, CLOSE_SESSION, APPHOST_PRESENTATION_AUTOMATIC);
}

static const apphost_scenes_t extension = {
    sizeof(apphost_scenes_t), request_scene,          activate_session,
    scene_size,               set_loading_progress,   present_modal,
    dismiss_modal,            post_notification,      activation_token,
    request_scene_with_activation, activation_time_left, list_sessions,
    close_session,            set_scene_title,
};

const apphost_scenes_t *ahr_scenes_extension(void) { return &extension; }
