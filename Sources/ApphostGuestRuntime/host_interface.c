#define _POSIX_C_SOURCE 200809L /* strdup, snprintf */

#include "host_interface.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_context.h"

/* The interface and its context in one allocation; `host` comes first, so
 * that the interface pointer is the block's. */
typedef struct host_block {
    apphost_host_t host;
    ahr_host_context context;
} host_block;

static char *copy_string(const char *string) { return strdup(string == NULL ? "" : string); }

static void free_block(host_block *block)
{
    free((char *)block->host.name);
    free((char *)block->host.version);
    free(block->context.data_directory);
    free(block);
}

apphost_host_t *ahr_host_interface_create(ahr_state_mirror *mirror, ahr_background *background, ahr_scenes *scenes,
                                          ahr_audio *audio, ahr_main_queue *main_queue, ahr_session_list *sessions,
                                          ahr_saves *saves,
                                          const char *data_directory,
                                          const char *host_name, const char *host_version, ahr_reporter reporter)
{
    host_block *block = calloc(1, sizeof *block);

    if (block == NULL) {
        return NULL;
    }
    block->host.name = copy_string(host_name);
    block->host.version = copy_string(host_version);
    block->context.data_directory = copy_string(data_directory);
    if (block->host.name == NULL || block->host.version == NULL || block->context.data_directory == NULL) {
        free_block(block);
        return NULL;
    }
    block->host.struct_size = sizeof(apphost_host_t);
    block->host.abi_version = (apphost_version_t)APPHOST_ABI_VERSION_INIT;
    block->host.host_data = &block->context;
    ahr_host_functions_install(&block->host);

    block->context.host = &block->host;
    block->context.mirror = mirror;
    block->context.background = background;
    block->context.scenes = scenes;
    block->context.audio = audio;
    block->context.main_queue = main_queue;
    block->context.sessions = sessions;
    block->context.saves = saves;
    block->context.reporter = reporter;
    pthread_mutex_init(&block->context.use_lock, NULL);
    pthread_cond_init(&block->context.idle, NULL);
    ahr_registry_add(&block->context);
    return &block->host;
}

void ahr_host_interface_withdraw(apphost_host_t *host)
{
    host_block *block = (host_block *)host;

    ahr_registry_remove(&block->context);
    pthread_cond_destroy(&block->context.idle);
    pthread_mutex_destroy(&block->context.use_lock);
    free_block(block);
}

ahr_host_context *ahr_registry_acquire_on_main_queue(const apphost_host_t *host, ahr_main_queue_function function,
                                                     const char *name, apphost_status_t *refusal)
{
    ahr_host_context *context = ahr_registry_acquire(host);
    char message[256];
    int length;

    if (context == NULL) {
        *refusal = APPHOST_ERROR_INVALID_ARGUMENT;
        return NULL;
    }
    if (ahr_main_queue_is_current(context->main_queue)) {
        return context;
    }
    if (ahr_main_queue_first_misuse(context->main_queue, function) && context->reporter.report != NULL) {
        length = snprintf(message, sizeof message,
                          "%s is a [main-queue] function, called here from a thread that is not delivering a "
                          "callback: it returns APPHOST_ERROR_WRONG_THREAD (logged once)",
                          name);
        if (length > 0) {
            ahr_report_send(context,
                            &(ahr_report){.kind = AHR_REPORT_LOG,
                                          .log = {.level = APPHOST_LOG_WARNING,
                                                  .text = message,
                                                  .text_length = (size_t)length < sizeof message ? (size_t)length
                                                                                                : sizeof message - 1}});
        }
    }
    ahr_registry_release(context);
    *refusal = APPHOST_ERROR_WRONG_THREAD;
    return NULL;
}
