/*
 * The functions of apphost_host_t; see host.h for what each promises. Each
 * finds its guest through the registry (host_context.h), so that any
 * argument at all gets an answer, never a crash (CONTRACT X3).
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */

#include <string.h>

#include "host_context.h"
#include "host_interface.h"
#include "utf8_cut.h"

/* host_log's body: the message, cut, to the reporter. Read only once the
 * host is known, as every function reads the guest's memory. */
static apphost_status_t send_log(ahr_host_context *context, void *argument)
{
    ahr_report *report = argument;
    ahr_report_log *log = &report->log;
    /* strnlen: a longer message is never read past the limit. */
    size_t length = strnlen(log->text, APPHOST_LOG_MESSAGE_MAX_BYTES + 1);

    log->text_length = ahr_utf8_prefix_length(log->text, length, APPHOST_LOG_MESSAGE_MAX_BYTES);
    ahr_report_send(context, report);
    return APPHOST_OK;
}

static apphost_status_t host_log(const apphost_host_t *host, int32_t level, const char *message)
{
    if (message == NULL || level < APPHOST_LOG_TRACE || level > APPHOST_LOG_ERROR) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return ahr_guest_call(host, AHR_LOCK_NONE, send_log,
                          &(ahr_report){.kind = AHR_REPORT_LOG, .log = {.level = level, .text = message}});
}

static const char *host_data_directory(const apphost_host_t *host)
{
    ahr_host_context *context = ahr_registry_acquire(host);
    const char *directory;

    if (context == NULL) {
        return NULL;
    }
    /* Freed only when the interface is withdrawn, after deinit returned. */
    directory = context->data_directory;
    ahr_registry_release(context);
    return directory;
}

static int32_t host_app_state(const apphost_host_t *host)
{
    apphost_status_t refusal;
    ahr_host_context *context = ahr_registry_acquire_on_main_queue(host, AHR_MAIN_QUEUE_APP_STATE, "app_state", &refusal);
    int32_t state;

    /* app_state has no error channel, and a positive status would read as a
     * valid state (1 is INACTIVE): a negated one, -1 for a host it does not
     * know. */
    if (context == NULL) {
        return -refusal;
    }
    state = ahr_mirror_app_state(context->mirror);
    ahr_registry_release(context);
    return state;
}

apphost_status_t ahr_read_scene(ahr_host_context *context, void *argument)
{
    ahr_scene_read *read = argument;
    bool connected = read->state != NULL ? ahr_mirror_scene_state(context->mirror, read->scene, read->state)
                                         : ahr_mirror_scene_size(context->mirror, read->scene, read->size);

    return connected ? APPHOST_OK : APPHOST_ERROR_INVALID_HANDLE;
}

static apphost_status_t host_scene_state(const apphost_host_t *host, apphost_scene_t scene, int32_t *out_state)
{
    if (scene == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    if (out_state == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return ahr_guest_call_on_main_queue(host, AHR_MAIN_QUEUE_SCENE_STATE, "scene_state", AHR_LOCK_NONE,
                                        ahr_read_scene, &(ahr_scene_read){.scene = scene, .state = out_state});
}

/* One save, handed to the reporter while the scene is known connected. */
typedef struct pending_save {
    ahr_host_context *context;
    apphost_scene_t scene;
    const void *bytes;
    size_t length;
    /* save_scene_state_confirmed's; NULL for save_scene_state. */
    apphost_save_confirmation_t confirmation;
    void *confirmation_context;
    /* Set when the guest has APPHOST_SAVE_CONFIRMATIONS_MAX confirmations
     * waiting: nothing was handed over. */
    bool refused;
} pending_save;

static void deliver_save(void *argument)
{
    pending_save *save = argument;
    uint64_t confirmation = 0;

    /* The id is taken and the save reported under the mirror's lock, so
     * that the host hears of it before a later did_disconnect of the scene
     * is delivered, with its confirmation's id. */
    if (save->confirmation != NULL) {
        confirmation = ahr_saves_add(save->context->saves, save->scene, save->confirmation,
                                     save->confirmation_context);
        if (confirmation == 0) {
            save->refused = true;
            return;
        }
    }
    ahr_report_send(save->context, &(ahr_report){.kind = AHR_REPORT_SAVE_STATE,
                                                 .save_state = {.scene = save->scene,
                                                                .id = confirmation,
                                                                .bytes = save->bytes,
                                                                .bytes_length = save->length}});
}

/* save_scene_state, and save_scene_state_confirmed with a `confirmation`. */
static apphost_status_t save_state(const apphost_host_t *host, apphost_scene_t scene, const void *bytes,
                                   size_t length, apphost_save_confirmation_t confirmation, void *confirmation_context)
{
    static const char empty = 0;
    ahr_host_context *context;
    pending_save save;
    bool connected;
    bool failed = false;

    if (scene == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    if (bytes == NULL && length != 0) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    context = ahr_registry_acquire(host);
    if (context == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    if (length > APPHOST_SCENE_STATE_MAX_BYTES) {
        ahr_registry_release(context);
        return APPHOST_ERROR_TOO_LARGE;
    }
    save = (pending_save){context, scene, bytes == NULL ? &empty : bytes, length, confirmation, confirmation_context,
                          false};
    /* Handed over under the mirror's lock, so the save reaches the reporter
     * before any later did_disconnect is delivered. While the host cannot
     * store this scene's saves (CONTRACT X5), this one goes to it too, for
     * it to try, and the guest hears that its saves are not kept for good. */
    connected = ahr_mirror_if_connected(context->mirror, scene, deliver_save, &save, &failed);
    ahr_registry_release(context);
    if (!connected) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    if (save.refused) {
        return APPHOST_ERROR_LIMIT_REACHED;
    }
    return failed ? APPHOST_ERROR_INTERNAL : APPHOST_OK;
}

static apphost_status_t host_save_scene_state(const apphost_host_t *host, apphost_scene_t scene, const void *bytes,
                                              size_t length)
{
    return save_state(host, scene, bytes, length, NULL, NULL);
}

static apphost_status_t host_save_scene_state_confirmed(const apphost_host_t *host, apphost_scene_t scene,
                                                        const void *bytes, size_t length,
                                                        apphost_save_confirmation_t confirmation, void *context)
{
    /* The scene's check comes first, as for every function (host.h). */
    if (scene != APPHOST_SCENE_INVALID && confirmation == NULL) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    return save_state(host, scene, bytes, length, confirmation, context);
}

static const void *host_get_extension(const apphost_host_t *host, const char *extension_id)
{
    ahr_host_context *context;
    const void *extension;

    /* A NULL or unknown host or id gets NULL. */
    if (extension_id == NULL) {
        return NULL;
    }
    if (strcmp(extension_id, APPHOST_BACKGROUND_EXTENSION_ID) == 0) {
        extension = ahr_background_extension();
    } else if (strcmp(extension_id, APPHOST_SCENES_EXTENSION_ID) == 0) {
        extension = ahr_scenes_extension();
    } else if (strcmp(extension_id, APPHOST_AUDIO_EXTENSION_ID) == 0) {
        extension = ahr_audio_extension();
    } else {
        return NULL;
    }
    context = ahr_registry_acquire(host);
    if (context == NULL) {
        return NULL;
    }
    ahr_registry_release(context);
    return extension;
}

void ahr_host_functions_install(apphost_host_t *host)
{
    host->log = host_log;
    host->data_directory = host_data_directory;
    host->app_state = host_app_state;
    host->scene_state = host_scene_state;
    host->save_scene_state = host_save_scene_state;
    host->get_extension = host_get_extension;
    host->save_scene_state_confirmed = host_save_scene_state_confirmed;
}
