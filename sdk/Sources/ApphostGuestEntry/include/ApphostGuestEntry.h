/*
 * ApphostGuestEntry: the C half of the Swift guest SDK.
 *
 * It defines the exported `apphost_entry` of every Swift guest so that no
 * Swift author writes C. The entry's functions are these, which ApphostSDK
 * implements in Swift with @_cdecl (EntryBridge.swift). They are internal to
 * the SDK, and guests never call them.
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

/* apphost_entry.query, [thread-safe]: the callback tables (app.h, scene.h,
 * scenes.h, audio.h), which ApphostSDK builds in Swift from closures
 * (GuestCallbacks.swift), so that a new callback is written there alone.
 * NULL for any other id. */
APPHOST_SDK_INTERNAL const void *apphost_sdk_query(const char *interface_id);

#ifdef __cplusplus
}
#endif

#endif /* APPHOST_GUEST_ENTRY_H */
