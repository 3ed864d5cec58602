/* What will_connect receives, made from a WILL_CONNECT call. */
#ifndef AHR_SCENE_CONNECTION_H
#define AHR_SCENE_CONNECTION_H

#include <stdbool.h>

#include "apphost_guest_runtime.h"

/* False for pointers that cannot hold what their lengths say. */
bool ahr_connection_is_valid(const ahr_call_will_connect *call);

/*
 * Fills `connection` for `call`. The session id is copied with a NUL, since
 * the guest reads a C string: free *session_copy after the call. The
 * restoration bytes are the call's own, NULL with length 0 only when the
 * session saved nothing, and a non-NULL pointer for an empty saved state, so
 * that the guest can tell the two apart (CONTRACT S12). False when out of
 * memory.
 */
bool ahr_connection_make(const ahr_call_will_connect *call, apphost_scene_connection_t *connection,
                         char **session_copy);

#endif
