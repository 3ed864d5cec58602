/*
 * The guest's scene sessions as the runtime has seen them (CONTRACT S8), for
 * list_sessions, activate_session and close_session to answer at once: a
 * session is known from its first will_connect (the host connects every
 * session of a guest it launches, and every new one it opens) until its
 * did_discard, with its scene's handle while it is connected.
 */
#ifndef AHR_SESSION_LIST_H
#define AHR_SESSION_LIST_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "apphost_guest_runtime.h"

typedef struct ahr_session_entry {
    /* NUL-terminated, owned by the list. */
    char *id;
    size_t length;
    int32_t role;
    /* APPHOST_SCENE_INVALID while unattached. */
    apphost_scene_t scene;
} ahr_session_entry;

/* Written on the main queue, read from any guest thread, under `lock`. */
typedef struct ahr_session_list {
    pthread_mutex_t lock;
    /* In the order they first connected. */
    ahr_session_entry *entries;
    size_t count;
    size_t capacity;
} ahr_session_list;

void ahr_sessions_init(ahr_session_list *list);
void ahr_sessions_destroy(ahr_session_list *list);

/* Follows what `call` says, before its callback runs: WILL_CONNECT adds its
 * session (or gives a known one its new handle), did_disconnect unattaches
 * it, DID_DISCARD removes it. False, with nothing changed, when a new
 * session could not be added for want of memory. */
bool ahr_sessions_will_deliver(ahr_session_list *list, const ahr_call *call);

/* After will_terminate's callback: every session is unattached. */
void ahr_sessions_unattach_all(ahr_session_list *list);

/* Whether the guest has the session `id` of `length` bytes. */
bool ahr_sessions_contains(ahr_session_list *list, const char *id, size_t length);

/* A copy of the list to read without the lock: *out (free it with
 * ahr_sessions_free_copy) holds *count entries. False when out of memory. */
bool ahr_sessions_copy(ahr_session_list *list, ahr_session_entry **out, size_t *count);
void ahr_sessions_free_copy(ahr_session_entry *entries, size_t count);

#endif
