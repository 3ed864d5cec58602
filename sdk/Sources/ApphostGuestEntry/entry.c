/*
 * The exported entry symbol of every Swift guest.
 *
 * A Swift guest library links this file through ApphostSDK, so its author
 * never writes C. Only what must be C is here: the exported data symbol
 * and the constructor that fills its descriptor. Its functions are the
 * Swift half's (ApphostGuestEntry.h lists them), and so are the callback
 * tables that query returns (GuestCallbacks.swift); all policy lives in
 * ApphostSDK.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, RTLD_NODELETE */
#endif
#include "ApphostGuestEntry.h"

#include <dlfcn.h>

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

const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT,
    &g_descriptor,
    apphost_sdk_init,
    apphost_sdk_deinit,
    /* [thread-safe]: the callback tables, which the Swift half builds once
     * (GuestCallbacks.swift). */
    apphost_sdk_query,
};
