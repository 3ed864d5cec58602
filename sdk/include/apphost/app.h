/* SPDX-License-Identifier: Apache-2.0 */
/*
 * App lifecycle: the app states and the callbacks a guest implements for
 * its process-wide life (CONTRACT A1 to A5).
 *
 * Rules cited as CONTRACT <id> are in sdk/CONTRACT.md.
 */
#ifndef APPHOST_APP_H
#define APPHOST_APP_H

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* App states (CONTRACT A1). The host derives them from the scenes' states. */
enum apphost_app_state {
    APPHOST_APP_STATE_NOT_RUNNING = 0,
    APPHOST_APP_STATE_INACTIVE = 1,
    APPHOST_APP_STATE_ACTIVE = 2,
    APPHOST_APP_STATE_BACKGROUND = 3,
    APPHOST_APP_STATE_SUSPENDED = 4
};

/* Interface id for apphost_entry.query(): the guest returns a pointer to its
 * apphost_app_callbacks_t. Every guest must provide it. */
#define APPHOST_GUEST_APP_CALLBACKS_ID "apphost.guest.app/1"

/*
 * Process-wide callbacks. The host calls each on the guest's main queue, one
 * at a time, and never while the guest is suspended. Each must return within
 * the host's watchdog limit (CONTRACT B5). A NULL member means "not
 * implemented"; the host then goes on as if it had returned APPHOST_OK.
 */
typedef struct apphost_app_callbacks {
    /* sizeof(apphost_app_callbacks_t) as the guest was built. */
    uint32_t struct_size;

    /* [main-queue] Called once per launch, after init and before any scene
     * connects (CONTRACT A2). Return APPHOST_OK, or an error to fail the
     * launch: the host then calls deinit and unloads the guest. */
    apphost_status_t (*did_finish_launching)(void);

    /* [main-queue] The guest is about to be terminated and unloaded (CONTRACT
     * A3): save what must survive. Scenes get no further callbacks. */
    void (*will_terminate)(void);

    /* [main-queue] The host is short of memory (CONTRACT A4): free caches. */
    void (*did_receive_memory_warning)(void);
} apphost_app_callbacks_t;

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_APP_H */
