/*
 * ApphostGuestEntry: the C half of the Swift guest SDK.
 *
 * It defines the exported `apphost_entry` of every Swift guest so that no
 * Swift author writes C. Its functions forward to these functions, which
 * ApphostSDK implements in Swift with @_cdecl. They are internal to the SDK:
 * a guest library hides them with sdk/apphost.map, and guests never call them.
 *
 * Swift does not import this header (ApphostSDK defines the functions); it is
 * here so that the contract between the two halves is written down once.
 */
#ifndef APPHOST_GUEST_ENTRY_H
#define APPHOST_GUEST_ENTRY_H

#include <stdbool.h>

#include <apphost/apphost.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills `out` from the registered GuestApp type's descriptor, with strings
 * that the caller owns (malloc'd). Returns false, leaving `out` untouched,
 * when no GuestApp type registered itself through @main. */
bool apphost_sdk_fill_descriptor(apphost_guest_descriptor_t *out);

/* apphost_entry.init and .deinit. */
apphost_status_t apphost_sdk_init(const apphost_host_t *host);
void apphost_sdk_deinit(void);

/* apphost_app_callbacks_t members. */
apphost_status_t apphost_sdk_did_finish_launching(void);
void apphost_sdk_will_terminate(void);
void apphost_sdk_did_receive_memory_warning(void);

/* apphost_scene_callbacks_t members. */
void apphost_sdk_scene_will_connect(const apphost_scene_connection_t *connection);
void apphost_sdk_scene_will_enter_foreground(apphost_scene_t scene);
void apphost_sdk_scene_did_become_active(apphost_scene_t scene);
void apphost_sdk_scene_will_resign_active(apphost_scene_t scene);
void apphost_sdk_scene_did_enter_background(apphost_scene_t scene);
void apphost_sdk_scene_did_disconnect(apphost_scene_t scene);

void apphost_sdk_scene_did_change_size(apphost_scene_t scene, const apphost_scene_size_t *size);
void apphost_sdk_scene_perform_action(apphost_scene_t scene, const char *name, const void *payload, size_t length);
int32_t apphost_sdk_scene_should_dismiss_modal(apphost_scene_t scene, apphost_modal_t modal);
void apphost_sdk_scene_did_dismiss_modal(apphost_scene_t scene, apphost_modal_t modal);
void apphost_sdk_did_discard(const char *session_id);

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_GUEST_ENTRY_H */
