/* The saves a guest asked the host to confirm: see saves.h. */
#include "saves.h"

#include <string.h>

void ahr_saves_init(ahr_saves *saves)
{
    memset(saves, 0, sizeof *saves);
    pthread_mutex_init(&saves->lock, NULL);
}

void ahr_saves_destroy(ahr_saves *saves)
{
    pthread_mutex_destroy(&saves->lock);
}

uint64_t ahr_saves_add(ahr_saves *saves, apphost_scene_t scene, apphost_save_confirmation_t confirmation,
                       void *context)
{
    uint64_t id = 0;

    pthread_mutex_lock(&saves->lock);
    if (saves->count < APPHOST_SAVE_CONFIRMATIONS_MAX) {
        id = ++saves->last_id;
        saves->waiting[saves->count++] = (ahr_save_waiting){id, scene, confirmation, context};
    }
    pthread_mutex_unlock(&saves->lock);
    return id;
}

int32_t ahr_saves_confirm(ahr_saves *saves, const ahr_call_save_confirmation *call)
{
    ahr_save_waiting found = {0, 0, NULL, NULL};
    size_t i;

    pthread_mutex_lock(&saves->lock);
    for (i = 0; i < saves->count; i++) {
        if (saves->waiting[i].id == call->id) {
            found = saves->waiting[i];
            saves->waiting[i] = saves->waiting[--saves->count];
            break;
        }
    }
    pthread_mutex_unlock(&saves->lock);
    if (found.confirmation == NULL) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    found.confirmation(found.context, found.scene, call->save_failed ? APPHOST_ERROR_INTERNAL : APPHOST_OK);
    return APPHOST_OK;
}
