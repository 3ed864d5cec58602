/*
 * One loaded guest: its library, the host interface its init got, its
 * callbacks, the mirror of the states the host gave it and what its
 * extensions keep (its audio session among them). The worker runs it, and
 * so does the host for the guests it runs in its own process
 * (Sources/ApphostChannels/InProcess/InProcessGuest.swift).
 */
#include "apphost_guest_runtime.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "audio.h"
#include "background.h"
#include "call_area.h"
#include "guest_callbacks.h"
#include "host_interface.h"
#include "main_queue.h"
#include "session_list.h"
#include "raw_descriptor.h"
#include "saves.h"
#include "scene_connection.h"
#include "scenes.h"
#include "state_mirror.h"
#include "utf8_cut.h"

typedef enum phase {
    PHASE_LOADED,
    /* Between a successful ahr_start and ahr_stop. */
    PHASE_RUNNING,
    /* The guest is unloaded: its start failed. */
    PHASE_UNLOADED
} phase;

struct ahr_runtime {
    void *library;
    apphost_entry_t entry;
    ahr_raw_descriptor descriptor;
    /* The descriptor's strings. */
    char *descriptor_strings;
    phase phase;
    ahr_state_mirror mirror;
    /* The background extension's tasks, timers and work. */
    ahr_background background;
    /* The scenes extension's activation and modals. */
    ahr_scenes scenes;
    /* The audio extension's session. */
    ahr_audio audio;
    /* The actions the descriptor declared, prepared for calls. */
    ahr_actions actions;
    /* Where the runtime's own reports go (action results): ahr_start's. */
    ahr_reporter reporter;
    /* Which thread delivers a call now, for the [main-queue] functions. */
    ahr_main_queue main_queue;
    /* The guest's sessions, for list_sessions and the like. */
    ahr_session_list sessions;
    /* The saves waiting for their confirmation (ABI 1.7). */
    ahr_saves saves;
    /* From ahr_start until the guest is unloaded. */
    apphost_host_t *host;
    ahr_guest_callbacks callbacks;
    /* The guest's audio thread hung in render at stop: its code must stay
     * mapped, so the library is not closed. */
    bool keep_loaded;
};

/* Copies `message` into the caller's buffer, cut to fit. */
static void report(char *error, size_t error_size, const char *message)
{
    size_t length;

    if (error == NULL || error_size == 0) {
        return;
    }
    length = ahr_utf8_prefix_length(message, strlen(message), error_size - 1);
    memcpy(error, message, length);
    error[length] = '\0';
}

static void report_dlerror(char *error, size_t error_size)
{
    const char *message = dlerror();

    report(error, error_size, message != NULL ? message : "unknown dlopen error");
}

ahr_load_result ahr_load(const char *path, ahr_runtime **out, char *error, size_t error_size)
{
    ahr_runtime *runtime;
    void *library;
    void *symbol;

    *out = NULL;
    /* RTLD_NOW: an unresolved symbol fails here, not later inside a callback. */
    library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        report_dlerror(error, error_size);
        return AHR_LOAD_DLOPEN_FAILED;
    }
    (void)dlerror();
    symbol = dlsym(library, APPHOST_ENTRY_SYMBOL);
    if (symbol == NULL) {
        report_dlerror(error, error_size);
        dlclose(library);
        return AHR_LOAD_NO_ENTRY;
    }
    runtime = calloc(1, sizeof *runtime);
    if (runtime == NULL) {
        dlclose(library);
        report(error, error_size, "out of memory");
        return AHR_LOAD_OUT_OF_MEMORY;
    }
    runtime->library = library;
    ahr_read_entry(symbol, &runtime->entry);
    if (!ahr_read_raw_descriptor(&runtime->entry, &runtime->descriptor, &runtime->descriptor_strings)) {
        dlclose(library);
        free(runtime);
        report(error, error_size, "out of memory");
        return AHR_LOAD_OUT_OF_MEMORY;
    }
    runtime->phase = PHASE_LOADED;
    ahr_actions_prepare(&runtime->actions, &runtime->descriptor);
    ahr_mirror_init(&runtime->mirror);
    ahr_background_init(&runtime->background);
    ahr_scenes_init(&runtime->scenes, (runtime->descriptor.capabilities & APPHOST_CAPABILITY_MULTIPLE_SCENES) != 0);
    ahr_audio_init(&runtime->audio, (runtime->descriptor.capabilities & APPHOST_CAPABILITY_AUDIO_INPUT) != 0);
    ahr_main_queue_init(&runtime->main_queue);
    ahr_sessions_init(&runtime->sessions);
    ahr_saves_init(&runtime->saves);
    *out = runtime;
    return AHR_LOAD_OK;
}

const ahr_raw_descriptor *ahr_descriptor(const ahr_runtime *runtime) { return &runtime->descriptor; }

/* Withdraws the host interface and dlcloses the library, once. */
static void unload(ahr_runtime *runtime)
{
    if (runtime->host != NULL) {
        ahr_host_interface_withdraw(runtime->host);
        runtime->host = NULL;
    }
    if (runtime->library != NULL && !runtime->keep_loaded) {
        dlclose(runtime->library);
        runtime->library = NULL;
    }
    memset(&runtime->callbacks, 0, sizeof runtime->callbacks);
    runtime->phase = PHASE_UNLOADED;
}

/* Refuses to start, without calling anything of the guest. */
static ahr_start_result refuse(int32_t status, int32_t *init_status)
{
    if (init_status != NULL) {
        *init_status = status;
    }
    return AHR_START_INIT_FAILED;
}

ahr_start_result ahr_start(ahr_runtime *runtime, const char *data_directory, const char *host_name,
                           const char *host_version, ahr_reporter reporter, int32_t *init_status)
{
    apphost_status_t status;

    if (runtime->phase != PHASE_LOADED) {
        return refuse(APPHOST_ERROR_INVALID_STATE, init_status);
    }
    /* Another major's entry was not read (raw_descriptor.h); the host
     * refuses such a guest before it gets here. */
    if (runtime->entry.init == NULL) {
        unload(runtime);
        return refuse(APPHOST_ERROR_UNSUPPORTED, init_status);
    }
    runtime->host = ahr_host_interface_create(&runtime->mirror, &runtime->background, &runtime->scenes,
                                              &runtime->audio, &runtime->main_queue, &runtime->sessions,
                                              &runtime->saves,
                                              data_directory, host_name, host_version, reporter);
    if (runtime->host == NULL) {
        unload(runtime);
        return refuse(APPHOST_ERROR_OUT_OF_MEMORY, init_status);
    }

    runtime->reporter = reporter;
    ahr_main_queue_enter(&runtime->main_queue);
    status = runtime->entry.init(runtime->host);
    if (init_status != NULL) {
        *init_status = status;
    }
    /* A guest whose init failed is unloaded without deinit, as entry.h says. */
    if (status != APPHOST_OK) {
        ahr_main_queue_leave(&runtime->main_queue);
        unload(runtime);
        return AHR_START_INIT_FAILED;
    }
    if (runtime->entry.query == NULL || !ahr_callbacks_query(runtime->entry.query, &runtime->callbacks)) {
        if (runtime->entry.deinit != NULL) {
            runtime->entry.deinit();
        }
        ahr_main_queue_leave(&runtime->main_queue);
        unload(runtime);
        return AHR_START_NO_APP_CALLBACKS;
    }
    ahr_main_queue_leave(&runtime->main_queue);
    runtime->phase = PHASE_RUNNING;
    ahr_background_set_running(&runtime->background, true);
    ahr_scenes_set_running(&runtime->scenes, true);
    ahr_audio_set_accepting(&runtime->audio, true);
    return AHR_START_OK;
}

int32_t ahr_handle(ahr_runtime *runtime, const ahr_call *call)
{
    apphost_scene_connection_t connection;
    char *session = NULL;
    char *discarded = NULL;
    int32_t status;

    if (call->kind == AHR_CALL_AUDIO_STREAM) {
        /* Takes its descriptors on every path, and runs no guest code on
         * the main queue. */
        return ahr_audio_take_stream(&runtime->audio, runtime->host,
                                     runtime->phase == PHASE_RUNNING && runtime->callbacks.has_audio
                                         ? &runtime->callbacks.audio
                                         : NULL,
                                     call);
    }
    if (runtime->phase != PHASE_RUNNING) {
        return APPHOST_ERROR_INTERNAL;
    }
    if (!ahr_call_is_known(call) || (call->kind == AHR_CALL_WILL_CONNECT && !ahr_connection_is_valid(&call->will_connect)) ||
        !ahr_background_call_is_valid(call)) {
        return APPHOST_ERROR_INVALID_ARGUMENT;
    }
    status = ahr_scenes_check_call(call);
    if (status == APPHOST_OK) {
        status = ahr_audio_check_call(&runtime->audio, call);
    }
    if (status != APPHOST_OK) {
        return status;
    }
    if (call->kind == AHR_CALL_SAVE_STATUS) {
        /* Runs no guest code: save_scene_state reads it, from any thread. */
        return ahr_mirror_set_save_failed(&runtime->mirror, call->save_status.scene, call->save_status.save_failed)
                   ? APPHOST_OK
                   : APPHOST_ERROR_INVALID_HANDLE;
    }
    /* Everything that may fail comes before the mirror changes. */
    if (call->kind == AHR_CALL_WILL_CONNECT && !ahr_connection_make(&call->will_connect, &connection, &session)) {
        return APPHOST_ERROR_OUT_OF_MEMORY;
    }
    if (!ahr_scenes_copy_session(call, &discarded) || !ahr_sessions_will_deliver(&runtime->sessions, call) ||
        !ahr_mirror_will_deliver(&runtime->mirror, call)) {
        free(session);
        free(discarded);
        return APPHOST_ERROR_OUT_OF_MEMORY;
    }
    if (call->kind == AHR_CALL_SCENE_CALLBACK && call->scene_callback.scene_callback == AHR_SCENE_DID_DISCONNECT) {
        /* Its handle is stale from here, and its modals with it. */
        ahr_scenes_forget_scene(&runtime->scenes, call->scene_callback.scene);
    }
    if (call->kind == AHR_CALL_WILL_TERMINATE) {
        ahr_background_will_terminate(&runtime->background);
        /* The host could act on no audio call from here (audio.h). */
        ahr_audio_set_accepting(&runtime->audio, false);
    }
    ahr_main_queue_enter(&runtime->main_queue);
    if (ahr_background_is_call(call)) {
        status = ahr_background_handle(&runtime->background, call);
    } else if (ahr_scenes_is_call(call)) {
        status = ahr_scenes_handle(&runtime->scenes, &runtime->mirror,
                                   runtime->callbacks.has_scenes ? &runtime->callbacks.scenes : NULL, call, discarded);
    } else if (call->kind == AHR_CALL_SAVE_CONFIRMATION) {
        status = ahr_saves_confirm(&runtime->saves, &call->save_confirmation);
    } else if (call->kind == AHR_CALL_ACTION) {
        status = ahr_actions_call(&runtime->actions, call, runtime->reporter);
    } else if (ahr_audio_is_call(call)) {
        status = ahr_audio_handle(&runtime->audio, runtime->callbacks.has_audio ? &runtime->callbacks.audio : NULL,
                                  call);
    } else {
        status = ahr_callbacks_invoke(&runtime->callbacks, call, session != NULL ? &connection : NULL);
    }
    ahr_main_queue_leave(&runtime->main_queue);
    if (call->kind == AHR_CALL_WILL_TERMINATE) {
        ahr_mirror_forget_scenes(&runtime->mirror);
        ahr_sessions_unattach_all(&runtime->sessions);
        ahr_scenes_forget_all(&runtime->scenes);
    }
    free(session);
    free(discarded);
    return status;
}

void ahr_run_on_main_queue(ahr_runtime *runtime, void (*body)(void *context), void *context)
{
    ahr_main_queue_enter(&runtime->main_queue);
    body(context);
    ahr_main_queue_leave(&runtime->main_queue);
}

void ahr_stop(ahr_runtime *runtime)
{
    if (runtime == NULL) {
        return;
    }
    /* No task begins, and no timer or work is accepted, during deinit: no
     * call will run them. Nor does the host act on scene requests or audio
     * calls then. */
    ahr_background_set_running(&runtime->background, false);
    ahr_scenes_set_running(&runtime->scenes, false);
    ahr_audio_set_accepting(&runtime->audio, false);
    /* render is guest code too: not during or after deinit. */
    if (!ahr_audio_stop_rendering(&runtime->audio)) {
        runtime->keep_loaded = true;
    }
    if (runtime->phase == PHASE_RUNNING && runtime->entry.deinit != NULL) {
        ahr_main_queue_enter(&runtime->main_queue);
        runtime->entry.deinit();
        ahr_main_queue_leave(&runtime->main_queue);
    }
    unload(runtime);
    ahr_mirror_destroy(&runtime->mirror);
    ahr_background_destroy(&runtime->background);
    ahr_scenes_destroy(&runtime->scenes);
    ahr_audio_destroy(&runtime->audio);
    ahr_main_queue_destroy(&runtime->main_queue);
    ahr_sessions_destroy(&runtime->sessions);
    ahr_saves_destroy(&runtime->saves);
    free(runtime->descriptor_strings);
    free(runtime);
}

void ahr_set_audio_request_limit(ahr_runtime *runtime, uint32_t limit)
{
    ahr_audio_set_request_limit(&runtime->audio, limit);
}
