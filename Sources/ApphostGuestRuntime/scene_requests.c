/*
 * Requests for a scene and the activations they spend (CONTRACT S9, S13):
 * PERFORM_ACTION grants a transient activation, request_scene and
 * request_scene_with_activation spend one, activation_token and
 * activation_time_left tell the guest of them; each accepted request gets an
 * id, which submit_scene_request tells and SCENE_REQUEST_REFUSED names when
 * the host refuses it after all (did_refuse_request). Apart from scenes.c because
 * an activation's window and spending are one rule of their own.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "scene_parts.h"

#include <string.h>
#include <time.h>

#include "sized_struct.h"
#include "utf8_cut.h"

enum { NANOSECONDS_PER_SECOND = 1000000000 };

/* ---- Activations (CONTRACT S9, call with the lock held) -------------------- */

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

/* The position of unspent, unexpired `token`, or AHR_SCENES_NOT_FOUND;
 * writes the seconds left to *seconds_left when not NULL. Call with the
 * lock held. */
static size_t find_activation(ahr_scenes *scenes, apphost_activation_t token, double *seconds_left)
{
    struct timespec now;
    size_t i;

    if (token == APPHOST_ACTIVATION_INVALID) {
        return AHR_SCENES_NOT_FOUND;
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
    return AHR_SCENES_NOT_FOUND;
}

/* Spends `token` if it is unspent and within its window. Call with the lock
 * held. */
static bool spend_activation(ahr_scenes *scenes, apphost_activation_t token)
{
    size_t position = find_activation(scenes, token, NULL);

    if (position == AHR_SCENES_NOT_FOUND) {
        return false;
    }
    drop_activation(scenes, position);
    return true;
}

/* ---- The host's call, on the main queue ----------------------------------- */

int32_t ahr_scenes_check_perform_action(const ahr_call_perform_action *call)
{
    if ((call->action_name == NULL && call->action_name_length != 0) ||
        (call->payload == NULL && call->payload_length != 0) || call->activation == APPHOST_ACTIVATION_INVALID) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return call->payload_length > APPHOST_ACTION_PAYLOAD_MAX_BYTES ? APPHOST_ERROR_TOO_LARGE : APPHOST_OK;
}

/* PERFORM_ACTION: grants its activation, then runs the guest's
 * perform_action. */
int32_t ahr_scenes_deliver_perform_action(const ahr_scenes_delivery *delivery, const ahr_call_perform_action *call)
{
    ahr_scenes *scenes = delivery->scenes;
    ahr_state_mirror *mirror = delivery->mirror;
    const apphost_guest_scenes_t *callbacks = delivery->callbacks;
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

/* ---- The guest's functions, from any thread ------------------------------- */

static apphost_status_t request_connected(ahr_scene_request *request, ahr_host_context *context)
{
    apphost_activation_t activation = request->activation;

    if (request->of_running_action) {
        activation = ahr_main_queue_is_current(context->main_queue) ? context->scenes->delivering
                                                                     : APPHOST_ACTIVATION_INVALID;
    }
    if (!spend_activation(context->scenes, activation)) {
        return APPHOST_ERROR_NO_ACTIVATION;
    }
    context->scenes->last_request++;
    if (request->out_request != NULL) {
        *request->out_request = context->scenes->last_request;
    }
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_SCENE_REQUESTED,
                                           .scene_requested = {.id = context->scenes->last_request,
                                                               .activation = activation,
                                                               .scene = request->scene,
                                                               .role = request->role,
                                                               .style = request->style,
                                                               .bytes = request->bytes,
                                                               .bytes_length = request->length}});
    return APPHOST_OK;
}

/* request_scene and request_scene_with_activation. */
static apphost_status_t request(const apphost_host_t *host, bool of_running_action, apphost_activation_t activation,
                                apphost_scene_t from, int32_t role, int32_t style, const void *state, size_t length,
                                apphost_request_t *out_request)
{
    static const unsigned char empty = 0;
    ahr_scene_request request = {.scene = from,
                                 .role = role,
                                 .style = style,
                                 .bytes = state != NULL ? state : &empty,
                                 .length = length,
                                 .opens_scene = true,
                                 .of_running_action = of_running_action,
                                 .activation = activation,
                                 .out_request = out_request};
    apphost_status_t refusal = APPHOST_OK;

    if ((role != APPHOST_SCENE_ROLE_PRIMARY && role != APPHOST_SCENE_ROLE_AUXILIARY) ||
        !ahr_scenes_is_presentation_style(style) || (state == NULL && length != 0)) {
        refusal = APPHOST_ERROR_INVALID_ARGUMENT;
    } else if (length > APPHOST_SCENE_STATE_MAX_BYTES) {
        refusal = APPHOST_ERROR_TOO_LARGE;
    }
    return ahr_scenes_on_connected(host, &request, request_connected, refusal);
}

apphost_status_t ahr_scenes_request_scene(const apphost_host_t *host, apphost_scene_t from, int32_t role, int32_t style,
                                          const void *state, size_t length)
{
    return request(host, true, APPHOST_ACTIVATION_INVALID, from, role, style, state, length, NULL);
}

apphost_status_t ahr_scenes_request_scene_with_activation(const apphost_host_t *host, apphost_activation_t activation,
                                                          apphost_scene_t from, int32_t role, int32_t style,
                                                          const void *state, size_t length)
{
    return request(host, false, activation, from, role, style, state, length, NULL);
}

/* The apphost_scene_request_t of ABI 1.8, whose members every caller needs. */
enum { AHR_SCENE_REQUEST_MIN_BYTES = sizeof(apphost_scene_request_t) };

apphost_status_t ahr_scenes_submit_scene_request(const apphost_host_t *host, const apphost_scene_request_t *submitted,
                                                apphost_request_t *out_request)
{
    apphost_scene_request_t copy;

    if (out_request == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    *out_request = APPHOST_REQUEST_INVALID;
    if (submitted == NULL || ahr_declared_size(submitted, AHR_SCENE_REQUEST_MIN_BYTES) == 0) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    /* Read once: the guest's struct may change under another thread. */
    memcpy(&copy, submitted, sizeof copy);
    return request(host, copy.activation == APPHOST_ACTIVATION_INVALID, copy.activation, copy.from, copy.role,
                   copy.style, copy.state, copy.length, out_request);
}

int32_t ahr_scenes_check_scene_request_refused(const ahr_call_scene_request_refused *call)
{
    return call->id == APPHOST_REQUEST_INVALID ? APPHOST_ERROR_INVALID_ARGUMENT : APPHOST_OK;
}

/* SCENE_REQUEST_REFUSED: did_refuse_request, for a guest whose callbacks
 * have it. */
int32_t ahr_scenes_deliver_scene_request_refused(const ahr_scenes_delivery *delivery,
                                                 const ahr_call_scene_request_refused *call)
{
    const apphost_guest_scenes_t *callbacks = delivery->callbacks;

    if (callbacks != NULL && callbacks->did_refuse_request != NULL) {
        callbacks->did_refuse_request(call->id, (int32_t)call->request_refusal);
    }
    return APPHOST_OK;
}

/* activation_token's body: the activation of the action being delivered,
 * while it is unspent. */
static apphost_status_t token_locked(ahr_host_context *context, void *out_activation)
{
    ahr_scenes *scenes = context->scenes;

    if (find_activation(scenes, scenes->delivering, NULL) == AHR_SCENES_NOT_FOUND) {
        return APPHOST_ERROR_NO_ACTIVATION;
    }
    *(apphost_activation_t *)out_activation = scenes->delivering;
    return APPHOST_OK;
}

apphost_status_t ahr_scenes_activation_token(const apphost_host_t *host, apphost_activation_t *out_activation)
{
    if (out_activation == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    *out_activation = APPHOST_ACTIVATION_INVALID;
    return ahr_guest_call_on_main_queue(host, AHR_MAIN_QUEUE_ACTIVATION_TOKEN, "activation_token", AHR_LOCK_SCENES,
                                        token_locked, out_activation);
}

/* activation_time_left's arguments. */
typedef struct time_left_request {
    apphost_activation_t activation;
    double *out_seconds;
} time_left_request;

static apphost_status_t time_left_locked(ahr_host_context *context, void *argument)
{
    time_left_request *request = argument;

    return find_activation(context->scenes, request->activation, request->out_seconds) == AHR_SCENES_NOT_FOUND
               ? APPHOST_ERROR_NO_ACTIVATION
               : APPHOST_OK;
}

apphost_status_t ahr_scenes_activation_time_left(const apphost_host_t *host, apphost_activation_t activation,
                                                 double *out_seconds)
{
    if (out_seconds == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    *out_seconds = 0;
    return ahr_guest_call(host, AHR_LOCK_SCENES, time_left_locked, &(time_left_request){activation, out_seconds});
}
