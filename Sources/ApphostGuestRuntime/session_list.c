/* The guest's scene sessions as the runtime has seen them (session_list.h). */
#include "session_list.h"

#include <stdlib.h>
#include <string.h>

#include "growth.h"

void ahr_sessions_init(ahr_session_list *list)
{
    memset(list, 0, sizeof *list);
    pthread_mutex_init(&list->lock, NULL);
}

void ahr_sessions_free_copy(ahr_session_entry *entries, size_t count)
{
    size_t i;

    for (i = 0; i < count; i++) {
        free(entries[i].id);
    }
    free(entries);
}

void ahr_sessions_destroy(ahr_session_list *list)
{
    ahr_sessions_free_copy(list->entries, list->count);
    list->entries = NULL;
    list->count = 0;
    pthread_mutex_destroy(&list->lock);
}

/* The entry of session `id`, or NULL. Call with the lock held. */
static ahr_session_entry *find(ahr_session_list *list, const char *id, size_t length)
{
    size_t i;

    for (i = 0; i < list->count; i++) {
        if (list->entries[i].length == length && memcmp(list->entries[i].id, id, length) == 0) {
            return &list->entries[i];
        }
    }
    return NULL;
}

/* Call with the lock held. */
static bool add(ahr_session_list *list, const ahr_call_will_connect *call)
{
    ahr_session_entry *entry = find(list, call->session_id, call->session_id_length);
    char *id;

    if (entry != NULL) {
        entry->scene = call->scene;
        return true;
    }
    id = malloc(call->session_id_length + 1);
    if (id == NULL || !ahr_reserve_one((void **)&list->entries, &list->capacity, list->count, sizeof *list->entries)) {
        free(id);
        return false;
    }
    if (call->session_id_length > 0) {
        memcpy(id, call->session_id, call->session_id_length);
    }
    id[call->session_id_length] = '\0';
    list->entries[list->count++] = (ahr_session_entry){id, call->session_id_length, call->role, call->scene};
    return true;
}

/* Call with the lock held. */
static void remove_session(ahr_session_list *list, const char *id, size_t length)
{
    ahr_session_entry *entry = find(list, id, length);
    size_t index;

    if (entry == NULL) {
        return;
    }
    index = (size_t)(entry - list->entries);
    free(entry->id);
    memmove(entry, entry + 1, (list->count - index - 1) * sizeof *entry);
    list->count--;
}

/* Call with the lock held. */
static void unattach(ahr_session_list *list, apphost_scene_t scene)
{
    size_t i;

    for (i = 0; i < list->count; i++) {
        if (scene == APPHOST_SCENE_INVALID || list->entries[i].scene == scene) {
            list->entries[i].scene = APPHOST_SCENE_INVALID;
        }
    }
}

bool ahr_sessions_will_deliver(ahr_session_list *list, const ahr_call *call)
{
    bool applied = true;

    pthread_mutex_lock(&list->lock);
    if (call->kind == AHR_CALL_WILL_CONNECT) {
        applied = add(list, &call->will_connect);
    } else if (call->kind == AHR_CALL_SCENE_CALLBACK && call->scene_callback.scene_callback == AHR_SCENE_DID_DISCONNECT) {
        unattach(list, call->scene_callback.scene);
    } else if (call->kind == AHR_CALL_DID_DISCARD) {
        remove_session(list, call->did_discard.session_id, call->did_discard.session_id_length);
    }
    pthread_mutex_unlock(&list->lock);
    return applied;
}

void ahr_sessions_unattach_all(ahr_session_list *list)
{
    pthread_mutex_lock(&list->lock);
    unattach(list, APPHOST_SCENE_INVALID);
    pthread_mutex_unlock(&list->lock);
}

bool ahr_sessions_contains(ahr_session_list *list, const char *id, size_t length)
{
    bool found;

    pthread_mutex_lock(&list->lock);
    found = find(list, id, length) != NULL;
    pthread_mutex_unlock(&list->lock);
    return found;
}

bool ahr_sessions_copy(ahr_session_list *list, ahr_session_entry **out, size_t *count)
{
    ahr_session_entry *copy;
    size_t i;

    *out = NULL;
    *count = 0;
    pthread_mutex_lock(&list->lock);
    copy = calloc(list->count > 0 ? list->count : 1, sizeof *copy);
    if (copy == NULL) {
        pthread_mutex_unlock(&list->lock);
        return false;
    }
    for (i = 0; i < list->count; i++) {
        copy[i] = list->entries[i];
        copy[i].id = malloc(list->entries[i].length + 1);
        if (copy[i].id == NULL) {
            pthread_mutex_unlock(&list->lock);
            ahr_sessions_free_copy(copy, i);
            return false;
        }
        memcpy(copy[i].id, list->entries[i].id, list->entries[i].length + 1);
    }
    *count = list->count;
    pthread_mutex_unlock(&list->lock);
    *out = copy;
    return true;
}
