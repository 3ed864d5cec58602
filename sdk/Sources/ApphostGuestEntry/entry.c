/*
 * The exported entry symbol of every Swift guest.
 *
 * A Swift guest library links this file through ApphostSDK, so its author
 * never writes C. The functions here only forward to the Swift half
 * (ApphostGuestEntry.h lists them); all policy lives in ApphostSDK.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, RTLD_NODELETE */
#endif
#include "ApphostGuestEntry.h"

#include <dlfcn.h>
#include <string.h>

/*
 * The guest library's own `main`, which the Swift compiler generates for the
 * author's `@main` type. Its default `GuestApp.main()` registers the type
 * with the SDK; that is how the SDK finds the author's type without a C
 * symbol written by hand.
 *
 * Hidden visibility makes the linker bind this reference inside the guest
 * library, so it never reaches the host executable's `main`. A guest without
 * an `@main` type fails to link ("hidden symbol `main' isn't defined"),
 * which is the error its author should see.
 */
extern __attribute__((visibility("hidden"))) int main(int argc, char **argv);

/*
 * The descriptor must be readable right after dlopen, before init (see
 * entry.h), and apphost_entry is a const struct holding a plain pointer to
 * it: the host reads it without calling anything, so it cannot be filled
 * lazily on first access. It is filled instead by the constructor below,
 * which the dynamic loader runs before dlopen returns. Until then, and for
 * good if no @main type registered itself, it stays all zero, which the
 * host refuses as invalid (struct_size 0, id NULL).
 */
static apphost_guest_descriptor_t g_descriptor;

/*
 * Keeps this library mapped after the host dlcloses it. The Swift runtime
 * cannot unload code: it keeps pointers into every Swift image it has seen
 * (registered sections, and metadata caches such as the one for imported C
 * types, which is shared by name across all images). Unmapping a Swift guest
 * makes a later Swift guest, or the host, crash on those stale pointers (seen
 * with two Swift guests: load one, unload it, load the other). So a Swift
 * guest stays loaded; dlopen of the same file later returns the same copy,
 * whose globals the SDK resets in init and deinit.
 */
static void pin_library(void)
{
    Dl_info info;

    if (dladdr((const void *)&g_descriptor, &info) != 0 && info.dli_fname != NULL) {
        /* NOLOAD only finds this already loading library; NODELETE pins it. */
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    }
}

__attribute__((constructor)) static void apphost_guest_entry_load(void)
{
    static char program[] = "apphost-guest";
    char *argv[] = { program, NULL };

    pin_library();
    /* Runs once per load: the loader runs constructors once, under its lock.
     * Swift's own image constructor (swiftrt.o) comes first in the link, so
     * the Swift runtime knows this library by now. */
    (void)main(1, argv);
    /* The descriptor's strings are malloc'd and never freed: they must
     * live as long as the library, which pin_library makes the process. */
    (void)apphost_sdk_fill_descriptor(&g_descriptor);
}

static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t),
    apphost_sdk_did_finish_launching,
    apphost_sdk_will_terminate,
    apphost_sdk_did_receive_memory_warning,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t),
    apphost_sdk_scene_will_connect,
    apphost_sdk_scene_will_enter_foreground,
    apphost_sdk_scene_did_become_active,
    apphost_sdk_scene_will_resign_active,
    apphost_sdk_scene_did_enter_background,
    apphost_sdk_scene_did_disconnect,
};

static const apphost_guest_scenes_t guest_scenes = {
    sizeof(apphost_guest_scenes_t),
    apphost_sdk_scene_did_change_size,
    apphost_sdk_scene_perform_action,
    apphost_sdk_scene_should_dismiss_modal,
    apphost_sdk_scene_did_dismiss_modal,
    apphost_sdk_did_discard,
    apphost_sdk_did_refuse_request,
};

/* Every Swift guest answers for its audio session (audio.h): the SDK turns
 * these calls into AudioSession's events and activate()'s answers, and
 * ignores them when the guest never touches its session. render (ABI 1.5)
 * calls the guest's renderer, and leaves silence without one; a host of ABI
 * 1.4 reads the table only up to media_services_reset and never calls it. */
static const apphost_guest_audio_t guest_audio = {
    sizeof(apphost_guest_audio_t),
    apphost_sdk_audio_activation_finished,
    apphost_sdk_audio_interruption_began,
    apphost_sdk_audio_interruption_ended,
    apphost_sdk_audio_route_changed,
    apphost_sdk_audio_secondary_audio_hint,
    apphost_sdk_audio_media_services_reset,
    apphost_sdk_audio_render,
};

/* [thread-safe]: compares strings and returns constant data. */
static const void *apphost_guest_entry_query(const char *interface_id)
{
    if (interface_id == NULL) {
        return NULL;
    }
    if (strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
    if (strcmp(interface_id, APPHOST_GUEST_SCENE_CALLBACKS_ID) == 0) {
        return &scene_callbacks;
    }
    if (strcmp(interface_id, APPHOST_GUEST_SCENES_CALLBACKS_ID) == 0) {
        return &guest_scenes;
    }
    if (strcmp(interface_id, APPHOST_GUEST_AUDIO_CALLBACKS_ID) == 0) {
        return &guest_audio;
    }
    return NULL;
}

const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT,
    &g_descriptor,
    apphost_sdk_init,
    apphost_sdk_deinit,
    apphost_guest_entry_query,
};
