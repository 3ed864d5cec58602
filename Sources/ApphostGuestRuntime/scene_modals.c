/*
 * The modals a guest opens on its scenes (CONTRACT N3): a stack a scene,
 * the ids given out per guest, present_modal and dismiss_modal, and the
 * host's SHOULD_DISMISS_MODAL and DID_DISMISS_MODAL. Apart from scenes.c
 * because the stacks are a state of their own that only these functions
 * and the scene's disconnection touch.
 */
#include <stdlib.h>
#include <string.h>

#include "growth.h"
#include "scene_parts.h"

/* ---- Modal stacks (call with the lock held) -------------------------------- */

static ahr_modal_stack *find_stack(ahr_scenes *scenes, apphost_scene_t scene)
{
    return ahr_find_scene(scenes->stacks, scenes->stack_count, sizeof *scenes->stacks, scene);
}

static void remove_stack(ahr_scenes *scenes, ahr_modal_stack *stack)
{
    free(stack->modals);
    *stack = scenes->stacks[--scenes->stack_count];
}

/* The position of `modal` on `scene`'s stack, or AHR_SCENES_NOT_FOUND. */
static size_t modal_position(ahr_scenes *scenes, apphost_scene_t scene, apphost_modal_t modal,
                             ahr_modal_stack **out_stack)
{
    ahr_modal_stack *stack = find_stack(scenes, scene);
    size_t i;

    *out_stack = stack;
    if (stack == NULL || modal == APPHOST_MODAL_INVALID) {
        return AHR_SCENES_NOT_FOUND;
    }
    for (i = 0; i < stack->count; i++) {
        if (stack->modals[i] == modal) {
            return i;
        }
    }
    return AHR_SCENES_NOT_FOUND;
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

    if (position == AHR_SCENES_NOT_FOUND) {
        return false;
    }
    drop_from(scenes, stack, position);
    return true;
}

/* Puts a new modal on top of `scene`'s stack and returns its id; the
 * invalid id when out of memory (no id is used up then). */
static apphost_modal_t push_modal(ahr_scenes *scenes, apphost_scene_t scene)
{
    ahr_modal_stack *stack = ahr_find_or_add_scene((void **)&scenes->stacks, &scenes->stack_count,
                                                   &scenes->stack_capacity, sizeof *scenes->stacks, scene);

    if (stack == NULL) {
        return APPHOST_MODAL_INVALID;
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

static void free_stacks(ahr_scenes *scenes)
{
    size_t i;

    for (i = 0; i < scenes->stack_count; i++) {
        free(scenes->stacks[i].modals);
    }
    scenes->stack_count = 0;
}

void ahr_scenes_free_modals(ahr_scenes *scenes)
{
    free_stacks(scenes);
    free(scenes->stacks);
    scenes->stacks = NULL;
    scenes->stack_capacity = 0;
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

/* ---- The host's calls, on the main queue ---------------------------------- */

/* Any modal: one that is not open is the delivery's to answer. */
int32_t ahr_scenes_check_should_dismiss_modal(const ahr_call_should_dismiss_modal *call)
{
    (void)call;
    return APPHOST_OK;
}

int32_t ahr_scenes_deliver_should_dismiss_modal(const ahr_scenes_delivery *delivery,
                                                const ahr_call_should_dismiss_modal *call)
{
    ahr_scenes *scenes = delivery->scenes;
    const apphost_guest_scenes_t *callbacks = delivery->callbacks;
    ahr_modal_stack *stack;
    bool open;
    int32_t verdict = 1;

    pthread_mutex_lock(&scenes->lock);
    open = modal_position(scenes, call->scene, call->modal, &stack) != AHR_SCENES_NOT_FOUND;
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

int32_t ahr_scenes_check_did_dismiss_modal(const ahr_call_did_dismiss_modal *call)
{
    (void)call;
    return APPHOST_OK;
}

int32_t ahr_scenes_deliver_did_dismiss_modal(const ahr_scenes_delivery *delivery, const ahr_call_did_dismiss_modal *call)
{
    ahr_scenes *scenes = delivery->scenes;
    ahr_state_mirror *mirror = delivery->mirror;
    const apphost_guest_scenes_t *callbacks = delivery->callbacks;
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

/* ---- The guest's functions, from any thread ------------------------------- */

static apphost_status_t present_connected(ahr_scene_request *request, ahr_host_context *context)
{
    apphost_modal_t modal = push_modal(context->scenes, request->scene);

    if (modal == APPHOST_MODAL_INVALID) {
        return APPHOST_ERROR_OUT_OF_MEMORY;
    }
    /* Before the host hears of it, so that the id is there for a
     * should_dismiss_modal that comes before this returns. */
    *request->out_modal = modal;
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_MODAL_PRESENTED,
                                           .modal_presented = {.scene = request->scene,
                                                               .id = modal,
                                                               .style = request->style,
                                                               .text = request->bytes,
                                                               .text_length = request->length}});
    return APPHOST_OK;
}

apphost_status_t ahr_scenes_present_modal(const apphost_host_t *host, apphost_scene_t scene, int32_t style,
                                          const char *title, apphost_modal_t *out_modal)
{
    ahr_scene_request request;

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
    request = (ahr_scene_request){.scene = scene,
                                  .style = style,
                                  .bytes = title,
                                  .length = ahr_scenes_text_length(title),
                                  .out_modal = out_modal};
    return ahr_scenes_on_connected(host, &request, present_connected, APPHOST_OK);
}

static apphost_status_t dismiss_connected(ahr_scene_request *request, ahr_host_context *context)
{
    if (!drop_modal(context->scenes, request->scene, request->modal)) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_MODAL_DISMISSED,
                                           .modal_dismissed = {.scene = request->scene, .id = request->modal}});
    return APPHOST_OK;
}

apphost_status_t ahr_scenes_dismiss_modal(const apphost_host_t *host, apphost_scene_t scene, apphost_modal_t modal)
{
    return ahr_scenes_on_connected(host, &(ahr_scene_request){.scene = scene, .modal = modal}, dismiss_connected,
                                   APPHOST_OK);
}
