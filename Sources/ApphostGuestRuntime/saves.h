/*
 * The saves one guest asked the host to confirm (save_scene_state_confirmed,
 * ABI 1.7, CONTRACT X5): for each, the confirmation function and context the
 * guest gave, kept by the runtime under an id it gives out (per guest,
 * counting from 1); the host gets the id with the save (SAVE_STATE) and,
 * once the save is stored or could not be, sends SAVE_CONFIRMATION naming
 * it, which runs the function on the guest's main queue.
 *
 * At most APPHOST_SAVE_CONFIRMATIONS_MAX wait at once, so the table is a
 * fixed array and what the host keeps for them is bounded too. Under
 * `lock`, which may be taken with the state mirror's held, never the other
 * way round; the guest's function runs without it.
 */
#ifndef AHR_SAVES_H
#define AHR_SAVES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "apphost_guest_runtime.h"

typedef struct ahr_save_waiting {
    uint64_t id;
    apphost_scene_t scene;
    apphost_save_confirmation_t confirmation;
    void *context;
} ahr_save_waiting;

typedef struct ahr_saves {
    pthread_mutex_t lock;
    /* The first `count` wait, in no order. */
    ahr_save_waiting waiting[APPHOST_SAVE_CONFIRMATIONS_MAX];
    size_t count;
    /* The last id given out; 0 before the first. */
    uint64_t last_id;
} ahr_saves;

void ahr_saves_init(ahr_saves *saves);

/* Drops what waits, calling none of it: the guest is gone. */
void ahr_saves_destroy(ahr_saves *saves);

/* Keeps `confirmation(context, scene, ...)` for a save about to be handed
 * to the host; its id, or 0 (nothing kept) when
 * APPHOST_SAVE_CONFIRMATIONS_MAX wait already. */
uint64_t ahr_saves_add(ahr_saves *saves, apphost_scene_t scene, apphost_save_confirmation_t confirmation,
                       void *context);

/* [main-queue] SAVE_CONFIRMATION: runs the confirmation of `call->id`, once,
 * with APPHOST_OK, or APPHOST_ERROR_INTERNAL when `call->save_failed`;
 * APPHOST_ERROR_INVALID_HANDLE, running nothing, for an id that does not
 * wait (never given out, or confirmed already). */
int32_t ahr_saves_confirm(ahr_saves *saves, const ahr_call_save_confirmation *call);

#endif
