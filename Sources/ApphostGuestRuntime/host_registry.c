/*
 * The apphost_host_t pointers handed out and not yet withdrawn. A host
 * function looks its `host` argument up here instead of dereferencing it,
 * so a NULL, foreign or stale pointer gets an error code instead of a crash
 * (CONTRACT X3). A use count keeps a context alive while a call on another
 * guest thread still works on it, so that withdrawing it waits for that
 * call, and the runtime never calls its reporter after ahr_stop.
 *
 * One process-wide list, linked through the contexts: it never allocates,
 * and a process holds few guests.
 */
#include "host_context.h"

#include <stddef.h>

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static ahr_host_context *registered;

void ahr_registry_add(ahr_host_context *context)
{
    pthread_mutex_lock(&registry_lock);
    context->next = registered;
    registered = context;
    pthread_mutex_unlock(&registry_lock);
}

/* Call with registry_lock held. */
static ahr_host_context *find(const apphost_host_t *host)
{
    ahr_host_context *context = registered;

    while (context != NULL && context->host != host) {
        context = context->next;
    }
    return context;
}

ahr_host_context *ahr_registry_acquire(const apphost_host_t *host)
{
    ahr_host_context *context;

    if (host == NULL) {
        return NULL;
    }
    pthread_mutex_lock(&registry_lock);
    context = find(host);
    if (context != NULL) {
        pthread_mutex_lock(&context->use_lock);
        context->users++;
        pthread_mutex_unlock(&context->use_lock);
    }
    pthread_mutex_unlock(&registry_lock);
    return context;
}

void ahr_registry_release(ahr_host_context *context)
{
    pthread_mutex_lock(&context->use_lock);
    if (--context->users == 0) {
        pthread_cond_broadcast(&context->idle);
    }
    pthread_mutex_unlock(&context->use_lock);
}

void ahr_registry_remove(ahr_host_context *context)
{
    ahr_host_context **link;

    pthread_mutex_lock(&registry_lock);
    for (link = &registered; *link != NULL; link = &(*link)->next) {
        if (*link == context) {
            *link = context->next;
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);

    pthread_mutex_lock(&context->use_lock);
    while (context->users > 0) {
        pthread_cond_wait(&context->idle, &context->use_lock);
    }
    pthread_mutex_unlock(&context->use_lock);
}
