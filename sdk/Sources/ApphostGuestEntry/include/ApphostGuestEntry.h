/*
 * ApphostGuestEntry: the C half of the Swift guest SDK.
 *
 * It defines the exported `apphost_entry` of every Swift guest so that no
 * Swift author writes C. Its functions forward to these functions, which
 * ApphostSDK implements in Swift with @_cdecl. They are internal to the SDK,
 * and guests never call them.
 *
 * Each is declared hidden: when one object of a link refers to a symbol as
 * hidden, the linker hides the symbol in the output, whatever the defining
 * object says. So a Swift guest exports none of them, with no version script
 * (which SwiftPM could pass only as an unsafe flag).
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

#define APPHOST_SDK_INTERNAL __attribute__((visibility("hidden")))

/* Fills `out` from the registered GuestApp type's descriptor, with strings
 * that the caller owns (malloc'd). Returns false, leaving `out` untouched,
 * when no GuestApp type registered itself through @main. */
APPHOST_SDK_INTERNAL bool apphost_sdk_fill_descriptor(apphost_guest_descriptor_t *out);

/* apphost_entry.init and .deinit. */
APPHOST_SDK_INTERNAL apphost_status_t apphost_sdk_init(const apphost_host_t *host);
APPHOST_SDK_INTERNAL void apphost_sdk_deinit(void);

/* apphost_app_callbacks_t members. */
APPHOST_SDK_INTERNAL apphost_status_t apphost_sdk_did_finish_launching(void);
APPHOST_SDK_INTERNAL void apphost_sdk_will_terminate(void);
APPHOST_SDK_INTERNAL void apphost_sdk_did_receive_memory_warning(void);

/* apphost_scene_callbacks_t members. */
APPHOST_SDK_INTERNAL void apphost_sdk_scene_will_connect(const apphost_scene_connection_t *connection);
APPHOST_SDK_INTERNAL void apphost_sdk_scene_will_enter_foreground(apphost_scene_t scene);
APPHOST_SDK_INTERNAL void apphost_sdk_scene_did_become_active(apphost_scene_t scene);
APPHOST_SDK_INTERNAL void apphost_sdk_scene_will_resign_active(apphost_scene_t scene);
APPHOST_SDK_INTERNAL void apphost_sdk_scene_did_enter_background(apphost_scene_t scene);
APPHOST_SDK_INTERNAL void apphost_sdk_scene_did_disconnect(apphost_scene_t scene);

APPHOST_SDK_INTERNAL void apphost_sdk_scene_did_change_size(apphost_scene_t scene, const apphost_scene_size_t *size);
APPHOST_SDK_INTERNAL void apphost_sdk_scene_perform_action(apphost_scene_t scene, const char *name, const void *payload, size_t length);
APPHOST_SDK_INTERNAL int32_t apphost_sdk_scene_should_dismiss_modal(apphost_scene_t scene, apphost_modal_t modal);
APPHOST_SDK_INTERNAL void apphost_sdk_scene_did_dismiss_modal(apphost_scene_t scene, apphost_modal_t modal);
APPHOST_SDK_INTERNAL void apphost_sdk_did_discard(const char *session_id);
APPHOST_SDK_INTERNAL void apphost_sdk_did_refuse_request(apphost_request_t request, int32_t reason);

/* apphost_guest_audio_t members (audio.h, ABI 1.4). */
APPHOST_SDK_INTERNAL void apphost_sdk_audio_activation_finished(apphost_audio_request_t request, int32_t result);
APPHOST_SDK_INTERNAL void apphost_sdk_audio_interruption_began(int32_t reason);
APPHOST_SDK_INTERNAL void apphost_sdk_audio_interruption_ended(int32_t reason, int32_t should_resume);
APPHOST_SDK_INTERNAL void apphost_sdk_audio_route_changed(int32_t reason, const apphost_audio_route_t *previous,
                                                          const apphost_audio_route_t *current);
APPHOST_SDK_INTERNAL void apphost_sdk_audio_secondary_audio_hint(int32_t silence);
APPHOST_SDK_INTERNAL void apphost_sdk_audio_media_services_reset(void);
/* ABI 1.5, [audio-thread]. */
APPHOST_SDK_INTERNAL void apphost_sdk_audio_render(const apphost_audio_buffer_t *buffer);

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_GUEST_ENTRY_H */
