/* minimal.c: the smallest useful apphost guest. It logs its launch and each
 * scene that becomes active. Build from the repository root:
 *   cc -std=c99 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags sdk/apphost.pc) \
 *      -Wl,--version-script=sdk/apphost.map sdk/examples/minimal.c -o minimal.so
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <apphost/apphost.h>

static const apphost_host_t *host; /* from init, valid until deinit returns */

static apphost_status_t did_finish_launching(void)
{
    host->log(host, APPHOST_LOG_INFO, "minimal: launched");
    return APPHOST_OK;
}

static void did_become_active(apphost_scene_t scene)
{
    char message[64];

    snprintf(message, sizeof message, "minimal: scene %" PRIu64 " is active", scene);
    host->log(host, APPHOST_LOG_INFO, message);
}

/* NULL members are callbacks this guest does not implement. */
static const apphost_app_callbacks_t app_callbacks = {
    sizeof(apphost_app_callbacks_t), did_finish_launching, NULL, NULL,
};

static const apphost_scene_callbacks_t scene_callbacks = {
    sizeof(apphost_scene_callbacks_t), NULL, NULL, did_become_active, NULL, NULL, NULL,
};

static apphost_status_t init(const apphost_host_t *h)
{
    if (h == NULL || h->log == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    host = h;
    return APPHOST_OK;
}

static void deinit(void)
{
    host = NULL;
}

static const void *query(const char *interface_id)
{
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_APP_CALLBACKS_ID) == 0) {
        return &app_callbacks;
    }
    if (interface_id != NULL && strcmp(interface_id, APPHOST_GUEST_SCENE_CALLBACKS_ID) == 0) {
        return &scene_callbacks;
    }
    return NULL;
}

static const apphost_guest_descriptor_t descriptor = {
    sizeof(apphost_guest_descriptor_t),
    "org.example.minimal", /* id: never change it, it names the saved state */
    "Minimal",             /* name */
    "1.0.0",               /* version */
    NULL,                  /* vendor */
    NULL,                  /* description */
    0,                     /* capabilities */
    NULL,                  /* actions (ABI 1.6, actions.h) */
};

const apphost_entry_t apphost_entry = {
    APPHOST_ABI_VERSION_INIT, &descriptor, init, deinit, query,
};
